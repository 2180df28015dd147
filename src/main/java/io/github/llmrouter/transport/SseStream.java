package io.github.llmrouter.transport;

import io.github.llmrouter.api.LlmException;
import io.github.llmrouter.api.MalformedResponseException;
import io.github.llmrouter.api.ResponseStream;
import io.github.llmrouter.api.StreamInterruptedException;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.NoSuchElementException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Function;
import okhttp3.Response;
import okio.BufferedSource;
import org.jspecify.annotations.Nullable;
import tools.jackson.core.JacksonException;

/**
 * An OpenAI-style SSE response ({@code data: {json}} events ending with {@code data: [DONE]}) as a
 * pull-based {@link ResponseStream}. Internal; not part of the public API.
 */
public final class SseStream<T> implements ResponseStream<T> {
  private static final String DONE = "[DONE]";

  private final String replicaId;
  private final Response response;
  private final SseReader reader;
  private final Class<T> type;
  private final ChunkAdapter<T> adapter;
  private final Runnable onClose;
  private final Function<IOException, LlmException> classify;
  private final AtomicBoolean closed = new AtomicBoolean();
  private final List<T> received = new ArrayList<>();
  private final StringBuilder receivedText = new StringBuilder();
  private @Nullable T next;
  private boolean finished;
  private boolean sawFinishReason;
  private boolean iterated;

  private SseStream(String replicaId, Response response, Class<T> type, ChunkAdapter<T> adapter,
      Runnable onClose, Function<IOException, LlmException> classify) {
    this.replicaId = replicaId;
    this.response = response;
    this.reader = new SseReader(response.body().source());
    this.type = type;
    this.adapter = adapter;
    this.onClose = onClose;
    this.classify = classify;
  }

  /**
   * Reads up to the first chunk (under the response's read timeout: the time-to-first-byte bound)
   * and then switches the connection's read timeout to {@code idleTimeout}. Throws, without
   * running {@code onClose}, if anything fails before the first chunk: the dispatcher may retry.
   */
  static <T> SseStream<T> open(String replicaId, Response response, Class<T> type,
      ChunkAdapter<T> adapter, Duration idleTimeout, Runnable onClose,
      Function<IOException, LlmException> classify) {
    String contentType = response.header("Content-Type", "");
    if (contentType.startsWith("application/json")) {
      // The server ignored "stream": true (or answered an error as JSON): not an event stream.
      throw new MalformedResponseException(replicaId, "stream (got application/json, expected "
          + "text/event-stream)", new IOException("not an event stream"));
    }
    SseStream<T> stream = new SseStream<>(replicaId, response, type, adapter, onClose, classify);
    try {
      stream.advance();
    } catch (IOException e) {
      throw classify.apply(e);
    }
    BufferedSource source = response.body().source();
    source.timeout().timeout(idleTimeout.toNanos(), TimeUnit.NANOSECONDS);
    return stream;
  }

  @Override
  public String replicaId() {
    return replicaId;
  }

  /**
   * The last chunk received so far, or null: after the stream ends, the one that carries the
   * usage when the server honours {@code stream_options.include_usage}.
   */
  public @Nullable T lastChunk() {
    return received.isEmpty() ? null : received.get(received.size() - 1);
  }

  @Override
  public Iterator<T> iterator() {
    if (iterated) throw new IllegalStateException("a ResponseStream can be iterated once");
    iterated = true;
    return new Iterator<>() {
      @Override
      public boolean hasNext() {
        if (next != null) return true;
        if (finished || closed.get()) return false;
        try {
          advance();
        } catch (IOException e) {
          throw interrupted(e);
        } catch (LlmException e) {
          throw interrupted(e);
        }
        return next != null;
      }

      @Override
      public T next() {
        if (!hasNext()) throw new NoSuchElementException();
        T chunk = next;
        next = null;
        return chunk;
      }
    };
  }

  /** Reads the next chunk into {@link #next}, or marks the stream finished. */
  private void advance() throws IOException {
    String data = reader.nextData();
    if (data == null) {
      // The connection ended without [DONE]. Complete if the server said why it finished;
      // otherwise it broke.
      if (!sawFinishReason) throw new IOException("stream ended without [DONE]");
      finish();
      return;
    }
    if (data.equals(DONE)) {
      finish();
      return;
    }
    T chunk;
    try {
      chunk = Json.MAPPER.readValue(data, type);
    } catch (JacksonException e) {
      throw new MalformedResponseException(replicaId, "stream event", e);
    }
    String error = adapter.errorOf(chunk);
    if (error != null) {
      throw new IOException("replica reported an error in the stream");
    }
    if (adapter.isFinal(chunk)) sawFinishReason = true;
    received.add(chunk);
    receivedText.append(adapter.textOf(chunk));
    next = chunk;
  }

  private void finish() {
    finished = true;
    close();
  }

  private StreamInterruptedException interrupted(Exception cause) {
    close();
    Throwable c = cause instanceof IOException ? classify.apply((IOException) cause) : cause;
    return new StreamInterruptedException(replicaId, received, receivedText.toString(), c);
  }

  @Override
  public void close() {
    if (closed.compareAndSet(false, true)) {
      try {
        response.close();
      } finally {
        onClose.run();
      }
    }
  }

  /** What the stream needs to know about a chunk type. */
  public interface ChunkAdapter<T> {
    /** The text the chunk adds to the first choice ("" if none). */
    String textOf(T chunk);

    /** Whether the chunk carries a finish reason. */
    boolean isFinal(T chunk);

    /** An error message if the chunk is an in-stream error object, else null. */
    @Nullable String errorOf(T chunk);
  }
}
