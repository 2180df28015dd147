package io.github.llmrouter.internal.transport;

import static java.util.Objects.requireNonNull;

import io.github.llmrouter.api.ApiObject;
import io.github.llmrouter.api.LlmException;
import io.github.llmrouter.api.LlmTimeoutException;
import io.github.llmrouter.api.MalformedResponseException;
import io.github.llmrouter.api.ReplicaHttpException;
import io.github.llmrouter.api.ResponseStream;
import io.github.llmrouter.api.StreamChunk;
import io.github.llmrouter.api.StreamInterruptedException;
import io.github.llmrouter.replica.Replica;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;
import okhttp3.Call;
import okhttp3.Response;
import org.jspecify.annotations.Nullable;
import tools.jackson.core.JacksonException;

/**
 * An OpenAI-style SSE response ({@code data: {json}} events ending with {@code data: [DONE]}) as a
 * pull-based {@link ResponseStream}. Read by one consumer; {@link #close} may come from any thread.
 *
 * <p>An error event (an {@code event: error} event, or an event whose JSON holds an {@code error}
 * field or {@code "object": "error"}) becomes a {@link ReplicaHttpException} with the status the
 * event carries (500 if none): thrown by {@link #open} when it is the first event (retryable where
 * the status is), the cause of a {@link StreamInterruptedException} after that.
 */
final class SseStream<T extends ApiObject & StreamChunk> implements ResponseStream<T> {
  private static final String DONE = "[DONE]";

  private final HttpTransport transport;
  private final Replica replica;
  private final String replicaId;
  private final Call call;
  private final SseReader reader;
  private final Class<T> type;
  private final StreamCore core;
  private final List<T> received = new ArrayList<>();
  private final StringBuilder receivedText = new StringBuilder();
  private Duration idleTimeout = Duration.ZERO;
  private @Nullable T next;
  private boolean iterated;

  private SseStream(HttpTransport transport, Replica replica, Call call, Response response,
      Class<T> type, StreamEnd end) {
    this.transport = transport;
    this.replica = replica;
    this.replicaId = replica.id();
    this.call = call;
    this.reader = new SseReader(response.body().source());
    this.type = type;
    this.core = new StreamCore(response, end, e -> transport.classify(replica, call, e));
  }

  /**
   * Reads up to the first chunk (under the response's read timeout: the time-to-first-byte bound)
   * and then switches the connection's read timeout to {@code idleTimeout}. Throws, without
   * telling {@code end}, if anything fails before the first chunk: the dispatcher may retry. From
   * the first chunk on, {@code end} is told once how the stream ended. {@code transport}
   * classifies failures.
   */
  static <T extends ApiObject & StreamChunk> SseStream<T> open(HttpTransport transport,
      Replica replica, Call call, Response response, Class<T> type, Duration idleTimeout,
      StreamEnd end) {
    StreamCore.requireEventStream(replica, response);
    SseStream<T> stream = new SseStream<>(transport, replica, call, response, type, end);
    try {
      if (!stream.advance()) throw new IOException("stream ended without [DONE]");
    } catch (IOException e) {
      throw transport.classify(replica, call, e);
    }
    StreamCore.idleFromNowOn(response, idleTimeout);
    stream.idleTimeout = idleTimeout;
    return stream;
  }

  @Override
  public String replicaId() {
    return replicaId;
  }

  @Override
  public Iterator<T> iterator() {
    if (iterated) throw new IllegalStateException("a ResponseStream can be iterated once");
    iterated = true;
    return new Iterator<>() {
      @Override
      public boolean hasNext() {
        if (next != null) return true;
        if (core.ended()) return false;
        LlmException cut = null;
        try {
          if (!advance()) cut = core.bodyEnded();
        } catch (IOException e) {
          throw interrupted(core.readFailed(e));
        } catch (LlmException e) {
          throw interrupted(core.failed(e));
        }
        // Thrown outside the try: the break's cause is the cut itself, not a wrapped break.
        if (cut != null) throw interrupted(cut);
        return next != null;
      }

      @Override
      public T next() {
        if (!hasNext()) throw new NoSuchElementException();
        T chunk = requireNonNull(next); // hasNext() read it
        next = null;
        return chunk;
      }
    };
  }

  /**
   * Reads the next chunk into {@link #next}; at {@code [DONE]}, ends the stream completed. Returns
   * false, reading nothing, if the body has ended.
   */
  private boolean advance() throws IOException {
    String data = reader.nextData();
    if (data == null) return false;
    if ("error".equals(reader.eventType())) throw errorEvent(data, Map.of());
    if (data.equals(DONE)) {
      core.completeSaid();
      core.end(null);
      return true;
    }
    T chunk;
    try {
      chunk = Json.MAPPER.readValue(data, type);
    } catch (JacksonException e) {
      throw new MalformedResponseException(replicaId, "stream event",
          transport.serverText.scrubbed(replica, call.request(), e));
    }
    if (chunk == null) {
      throw new MalformedResponseException(replicaId, "stream event (null)",
          new IOException("the event's data is JSON null"));
    }
    if (ErrorBodies.isError(chunk.extra())) throw errorEvent(data, chunk.extra());
    if (chunk.finishReason() != null) core.completeSaid();
    core.reported(chunk.usage(), chunk.model());
    received.add(chunk);
    receivedText.append(chunk.text());
    next = chunk;
    return true;
  }

  /**
   * The exception the event ({@code eventType}, {@code data}) stands for if it is an error event,
   * else null: for a raw stream's first event, read without binding it.
   */
  static @Nullable ReplicaHttpException errorIn(HttpTransport transport, Replica replica,
      Call call, @Nullable String eventType, String data) {
    if ("error".equals(eventType)) return errorEvent(transport, replica, call, data, Map.of());
    if (!data.startsWith("{") || !data.contains("error")) return null;
    Map<String, Object> fields = fieldsOf(data);
    return fields == null || !ErrorBodies.isError(fields) ? null
        : errorEvent(transport, replica, call, data, fields);
  }

  private ReplicaHttpException errorEvent(String data, Map<String, Object> fields) {
    return errorEvent(transport, replica, call, data, fields);
  }

  /**
   * The exception an error event stands for, with the status its {@code fields} report (read from
   * {@code data} when the fields are not known yet; 500 if it reports none).
   */
  private static ReplicaHttpException errorEvent(HttpTransport transport, Replica replica,
      Call call, String data, Map<String, Object> fields) {
    Map<String, Object> known = fields.isEmpty() ? fieldsOf(data) : fields;
    int status = known == null ? 500 : ErrorBodies.status(known);
    return transport.serverText.httpError(replica, call.request(), status, data, null);
  }

  /** The fields of {@code data} if it is a JSON object, else null (a plain-text event). */
  private static @Nullable Map<String, Object> fieldsOf(String data) {
    try {
      Object fields = Json.MAPPER.readValue(data, Object.class);
      if (fields instanceof Map) {
        @SuppressWarnings("unchecked")
        Map<String, Object> map = (Map<String, Object>) fields;
        return map;
      }
    } catch (JacksonException notJson) {
      // a plain-text error event
    }
    return null;
  }

  /**
   * The exception ending the stream after its first chunk: a timeout stays an {@link
   * LlmTimeoutException} (so one catch covers every timeout), anything else is a {@link
   * StreamInterruptedException}; both carry what was received.
   */
  private LlmException interrupted(LlmException cause) {
    if (cause instanceof LlmTimeoutException) {
      String what = Verdict.of(cause).deadline() ? "ran out of the call deadline"
          : "received nothing for " + idleTimeout.toMillis() + " ms (streamIdleTimeout)";
      return new LlmTimeoutException("stream from replica " + replicaId + " " + what + " after "
          + received.size() + " chunks", replicaId, cause, received, receivedText.toString());
    }
    return new StreamInterruptedException(replicaId, received, receivedText.toString(), cause);
  }

  /** Closing before the end lets go of the stream: the replica is not blamed. */
  @Override
  public void close() {
    core.end(null);
  }
}
