package io.github.llmrouter.internal.dispatch;

import static java.util.Objects.requireNonNull;

import io.github.llmrouter.api.ApiObject;
import io.github.llmrouter.api.LlmException;
import io.github.llmrouter.api.LlmTimeoutException;
import io.github.llmrouter.api.RawRequest;
import io.github.llmrouter.api.ResponseStream;
import io.github.llmrouter.api.StreamChunk;
import io.github.llmrouter.api.StreamInterruptedException;
import io.github.llmrouter.internal.transport.Endpoint;
import io.github.llmrouter.internal.transport.Json;
import io.github.llmrouter.internal.transport.Verdict;
import io.github.llmrouter.observe.RoutingListener;
import io.github.llmrouter.observe.StreamResumptionEvent;
import io.github.llmrouter.routing.RoutingRequest;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.NoSuchElementException;
import org.jspecify.annotations.Nullable;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * A typed chat or completion stream that, when it breaks after its first chunk, continues on
 * another replica ({@link StreamContinuation}) so that its caller reads one whole answer: the
 * continuation's first new text follows the last text delivered. At most a set number of times
 * per call, within the call's deadline and the retry budget; never once a chunk showed a tool
 * call, log probabilities or a second choice, nor for a request that asks for any of those or for
 * structured output. A stream that cannot continue ends as it would have without this: with a
 * {@link StreamInterruptedException} or an {@link LlmTimeoutException} carrying everything the
 * caller read, and, if a continuation was tried and failed, that failure as a suppressed
 * exception.
 *
 * <p>A continuation that repeats the text already delivered before its own (a server that
 * ignores the continuation switches) has that repetition removed: its chunks are held while
 * their text matches the delivered text, and once the whole of it has been matched the rest
 * follows; text that departs from it earlier is new text and is passed on as it came. The usage
 * the last chunk reports then counts both parts: the tokens delivered before are added to its
 * completion tokens and taken from its prompt tokens, and it says how many resumptions it took
 * ({@code "resumptions"}).
 *
 * <p>Read by one consumer, like any {@link ResponseStream}; {@link #close} may come from any
 * thread.
 *
 * @param <T> the chunk type
 */
final class ResumingStream<T extends ApiObject & StreamChunk> implements ResponseStream<T> {
  private final RequestDispatcher dispatcher;
  private final Endpoint<T> endpoint;
  private final RoutingRequest request;
  private final RawRequest original;
  private final Deadline deadline;
  private final int maxResumptions;
  private volatile ResponseStream<T> current;
  private @Nullable Iterator<T> chunks;
  /** Every chunk handed to the caller, in order, for the exception that may end the stream. */
  private final List<T> delivered = new ArrayList<>();
  private final StringBuilder text = new StringBuilder();
  /** Chunks with text handed to the caller: the tokens produced so far, one per chunk. */
  private int produced;
  /** Tokens produced before the current continuation began. */
  private int producedBefore;
  private int resumptions;
  /** Why the stream must not be continued, once a chunk said so. */
  private @Nullable String unsafe;
  /** Chunks decided and waiting for the caller. */
  private final ArrayDeque<T> ready = new ArrayDeque<>();
  /** While a continuation may be repeating it: the text delivered before it; else null. */
  private @Nullable String echo;
  private final List<T> held = new ArrayList<>();
  private final StringBuilder heldText = new StringBuilder();
  private boolean iterated;
  private volatile boolean closed;
  /** Hears each break and what became of it (the client's log, at least). */
  private final RoutingListener listener;

  ResumingStream(RequestDispatcher dispatcher, Endpoint<T> endpoint, RoutingRequest request,
      RawRequest original, Deadline deadline, int maxResumptions, ResponseStream<T> first) {
    this.dispatcher = dispatcher;
    this.endpoint = endpoint;
    this.request = request;
    this.original = original;
    this.deadline = deadline;
    this.maxResumptions = maxResumptions;
    this.current = first;
    this.listener = dispatcher.config.listener(); // a break is rare: always told
  }

  @Override
  public String replicaId() {
    return current.replicaId();
  }

  @Override
  public int resumptions() {
    return resumptions;
  }

  @Override
  public Iterator<T> iterator() {
    if (iterated) throw new IllegalStateException("a ResponseStream can be iterated once");
    iterated = true;
    chunks = current.iterator();
    return new Iterator<>() {
      @Override
      public boolean hasNext() {
        return fill();
      }

      @Override
      public T next() {
        if (!fill()) throw new NoSuchElementException();
        T chunk = ready.removeFirst();
        delivered.add(chunk);
        String t = chunk.text();
        if (!t.isEmpty()) {
          text.append(t);
          produced++;
        }
        return chunk;
      }
    };
  }

  /** Reads until a chunk is ready for the caller; {@return false at the end of the answer} */
  private boolean fill() {
    while (ready.isEmpty()) {
      if (closed) return false;
      Iterator<T> it = requireNonNull(chunks);
      T chunk;
      try {
        if (!it.hasNext()) {
          releaseHeld();
          return !ready.isEmpty();
        }
        chunk = it.next();
      } catch (StreamInterruptedException | LlmTimeoutException broken) {
        resume(broken);
        continue;
      }
      if (unsafe == null) unsafe = StreamContinuation.whyNot(chunk);
      if (echo == null) {
        ready.add(resumptions > 0 ? withSummedUsage(chunk) : chunk);
      } else {
        compareEcho(chunk);
      }
    }
    return true;
  }

  /**
   * A continuation's chunk while it may be repeating the delivered text: held while its text
   * matches that text; released without the repetition once the whole of it was repeated;
   * released as it came if it departs from it: new text that begins like the delivered text
   * cannot be told from a repetition that is not exact (a run of one character continues with
   * more of it), so only an exact repetition is removed.
   */
  private void compareEcho(T chunk) {
    String before = requireNonNull(echo);
    held.add(chunk);
    heldText.append(chunk.text());
    int n = heldText.length();
    boolean ends = chunk.finishReason() != null || chunk.usage() != null;
    if (n < before.length() && before.startsWith(heldText.toString()) && !ends) return;
    if (n >= before.length() && heldText.toString().startsWith(before)) {
      // A repetition: drop it, and pass on what follows it.
      int skip = before.length();
      for (T h : held) {
        String t = h.text();
        if (skip == 0 || t.isEmpty()) {
          ready.add(withSummedUsage(h));
        } else if (skip >= t.length() && h.finishReason() == null && h.usage() == null) {
          skip -= t.length(); // all repetition
        } else {
          ready.add(withSummedUsage(withText(h, t.substring(Math.min(skip, t.length())))));
          skip = 0;
        }
      }
      held.clear();
      heldText.setLength(0);
      echo = null;
      return;
    }
    releaseHeld();
  }

  /** Passes on the held chunks as they came: the continuation did not repeat the text. */
  private void releaseHeld() {
    for (T h : held) ready.add(withSummedUsage(h));
    held.clear();
    heldText.setLength(0);
    echo = null;
  }

  /**
   * The stream broke: continues it on another replica, or throws what ends it (with everything
   * the caller read).
   */
  private void resume(LlmException broken) {
    if (closed) throw ended(broken); // the caller let go: nothing to tell
    String why = whyNotResume(broken);
    RawRequest next = null;
    if (why == null) {
      // Read only now that a stream broke: the body may hold a long prompt.
      JsonNode body;
      try {
        body = Json.MAPPER.readTree(original.body());
        why = StreamContinuation.whyNot(endpoint, body);
      } catch (JacksonException e) {
        body = null;
        why = "the request is not JSON";
      }
      if (why == null) {
        next = StreamContinuation.of(endpoint, original, (ObjectNode) requireNonNull(body),
            text.toString(), produced);
        if (next == null) why = "its token limit is used up";
      }
    }
    if (why == null && !dispatcher.budget.tryRetry()) why = "the retry budget is spent";
    String from = current.replicaId();
    if (why != null) {
      told(from, null, resumptions + 1, StreamResumptionEvent.Outcome.SKIPPED, why);
      throw ended(broken);
    }
    ResponseStream<T> continued;
    try {
      continued = dispatcher.continueStream(endpoint, request, requireNonNull(next), deadline,
          from);
    } catch (LlmException failed) {
      told(from, null, resumptions + 1, StreamResumptionEvent.Outcome.FAILED,
          failed.getMessage());
      LlmException end = ended(broken);
      end.addSuppressed(failed);
      throw end;
    }
    told(from, continued.replicaId(), resumptions + 1, StreamResumptionEvent.Outcome.RESUMED,
        null);
    current.close();
    current = continued;
    chunks = continued.iterator();
    resumptions++;
    producedBefore = produced;
    // What was held of a continuation that broke in turn is its text: compare anew.
    held.clear();
    heldText.setLength(0);
    echo = text.toString();
    if (closed) continued.close();
  }

  /** Tells the listeners what became of break number {@code resumption} of the stream. */
  private void told(String from, @Nullable String to, int resumption,
      StreamResumptionEvent.Outcome outcome, @Nullable String why) {
    if (listener == RoutingListener.NONE) return;
    listener.onStreamResumption(new StreamResumptionEvent(endpoint.operation(), request.model(),
        from, to, resumption, text.length(), outcome, why));
  }

  /**
   * Why the stream that broke with {@code broken} is not to be continued, as far as its state
   * says (the request's own fields are read next), or null.
   */
  private @Nullable String whyNotResume(LlmException broken) {
    if (resumptions >= maxResumptions) return "it was resumed " + resumptions + " times";
    if (broken.getCause() instanceof LlmException cause) {
      Verdict verdict = Verdict.of(cause);
      if (verdict.deadline()) return "the call deadline passed";
      // An error event about the request (a 4xx) would end a continuation the same way.
      if (verdict.blame() != Verdict.Blame.REPLICA) return "the replica rejected the request";
    }
    if (deadline.reachedBy(dispatcher.config.ticker().read())) return "the call deadline passed";
    return unsafe;
  }

  /**
   * What ends the stream: {@code broken} itself if nothing was resumed (it carries what the
   * caller read), else the same kind of failure carrying every chunk the caller read.
   */
  private LlmException ended(LlmException broken) {
    if (resumptions == 0) return broken;
    String replica = current.replicaId();
    Throwable cause = broken.getCause() != null ? broken.getCause() : broken;
    if (broken instanceof LlmTimeoutException) {
      return new LlmTimeoutException(broken.getMessage() + " (resumed " + resumptions
          + " times)", replica, cause, delivered, text.toString());
    }
    return new StreamInterruptedException(replica, delivered, text.toString(), cause);
  }

  /** {@code chunk} with its text replaced by {@code rest}: a continuation's repetition cut off. */
  private T withText(T chunk, String rest) {
    ObjectNode tree = Json.MAPPER.valueToTree(chunk);
    JsonNode choice = tree.path("choices").path(0);
    if (choice.isObject()) {
      JsonNode delta = choice.path("delta");
      if (delta.isObject()) ((ObjectNode) delta).put("content", rest);
      else ((ObjectNode) choice).put("text", rest);
    }
    return rebind(chunk, tree);
  }

  /**
   * {@code chunk}, whose usage (if it reports one) now counts the tokens delivered before this
   * continuation too, and says how many resumptions the answer took.
   */
  private T withSummedUsage(T chunk) {
    if (resumptions == 0 || chunk.usage() == null) return chunk;
    ObjectNode tree = Json.MAPPER.valueToTree(chunk);
    ObjectNode usage = (ObjectNode) tree.get("usage");
    long prompt = Math.max(0, usage.path("prompt_tokens").asLong() - producedBefore);
    long completion = usage.path("completion_tokens").asLong() + producedBefore;
    usage.put("prompt_tokens", prompt);
    usage.put("completion_tokens", completion);
    usage.put("total_tokens", prompt + completion);
    usage.put("resumptions", resumptions);
    return rebind(chunk, tree);
  }

  @SuppressWarnings("unchecked") // the chunk's own class
  private T rebind(T chunk, ObjectNode tree) {
    return (T) Json.MAPPER.treeToValue(tree, chunk.getClass());
  }

  @Override
  public void close() {
    closed = true;
    current.close();
  }
}
