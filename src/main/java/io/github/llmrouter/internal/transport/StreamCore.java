package io.github.llmrouter.internal.transport;

import io.github.llmrouter.api.LlmException;
import io.github.llmrouter.api.MalformedResponseException;
import io.github.llmrouter.api.Usage;
import io.github.llmrouter.replica.Replica;
import java.io.IOException;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Function;
import okhttp3.Response;
import org.jspecify.annotations.Nullable;

/**
 * The life of one event stream a replica is sending, shared by the typed and the raw reader: that
 * the answer is an event stream at all, the switch from the first-byte bound to the idle timeout,
 * the one rule for when the answer is complete, what the answer reported of itself, how a failed
 * read is judged, and the end, told to its {@link StreamEnd} exactly once.
 *
 * <p>The answer is complete once the replica has said so: {@code data: [DONE]}, the Responses
 * API's {@code response.completed}, or a chunk with a finish reason. The stream then ends
 * completed when its body ends or its reader stops; before that, a body that ends is a cut
 * connection (broken), and a reader that stops has let it go (abandoned). A read that fails is
 * the replica breaking the stream, unless the call's own deadline cut it (abandoned: nobody is to
 * blame).
 *
 * <p>One reader thread reads; {@link #end} may come from any thread (a caller closing early).
 */
final class StreamCore {
  private final Response response;
  private final StreamEnd end;
  private final Function<IOException, LlmException> classify;
  private final AtomicBoolean ended = new AtomicBoolean();
  private volatile boolean complete;
  private volatile Reported reported = Reported.NOTHING;

  /**
   * @param response the replica's answer, its headers read; closed when the stream ends
   * @param end told once how the stream ended
   * @param classify what a read failure is, as for any attempt ({@link HttpTransport#classify})
   */
  StreamCore(Response response, StreamEnd end, Function<IOException, LlmException> classify) {
    this.response = response;
    this.end = end;
    this.classify = classify;
  }

  /**
   * Fails, before anything is read, if {@code response} is not an event stream: a server that
   * ignored {@code "stream": true}, or answered an error as JSON.
   *
   * @throws MalformedResponseException if the body is JSON
   */
  static void requireEventStream(Replica replica, Response response) {
    String contentType = response.header("Content-Type");
    if (contentType != null && contentType.startsWith("application/json")) {
      throw new MalformedResponseException(replica.id(), "stream (got application/json, expected "
          + "text/event-stream)", new IOException("not an event stream"));
    }
  }

  /** The first event has arrived: from now on, each read waits at most {@code idleTimeout}. */
  static void idleFromNowOn(Response response, Duration idleTimeout) {
    response.body().source().timeout().timeout(idleTimeout.toNanos(), TimeUnit.NANOSECONDS);
  }

  /** The replica said the answer is complete. */
  void completeSaid() {
    complete = true;
  }

  /** {@return whether the replica has said the answer is complete} */
  boolean complete() {
    return complete;
  }

  /** {@return whether the stream has ended, one way or another} */
  boolean ended() {
    return ended.get();
  }

  /**
   * An event reported {@code usage} (which makes it the answer's, replacing any earlier one) or
   * only the {@code model}, kept where nothing reported one yet. Allocates only on a change.
   */
  void reported(@Nullable Usage usage, @Nullable String model) {
    Reported now = reported;
    if (usage != null) {
      reported = new Reported(usage, model != null ? model : now.model());
    } else if (model != null && now.model() == null) {
      reported = new Reported(now.usage(), model);
    }
  }

  /**
   * A read failed with {@code e}: the failure, classified; the stream has ended with it, broken,
   * unless the call's deadline cut it.
   */
  LlmException readFailed(IOException e) {
    return failed(classify.apply(e));
  }

  /** {@code failure} ends the stream: broken by it, unless it is the call's deadline. */
  LlmException failed(LlmException failure) {
    end(Verdict.of(failure).deadline() ? null : failure);
    return failure;
  }

  /**
   * The body ended: completed if the replica said the answer is complete; else a cut connection,
   * whose failure is returned (null if complete).
   */
  @Nullable LlmException bodyEnded() {
    if (complete) {
      end(null);
      return null;
    }
    LlmException cut = classify.apply(new IOException("stream ended without [DONE]"));
    end(cut);
    return cut;
  }

  /**
   * Ends the stream once, closing the response: broken by {@code failure} if not null, else
   * completed if the replica said the answer is complete, else abandoned.
   */
  void end(@Nullable LlmException failure) {
    if (!ended.compareAndSet(false, true)) return;
    try {
      response.close();
    } finally {
      if (failure != null) end.broke(failure);
      else if (complete) end.completed(reported);
      else end.abandoned();
    }
  }
}
