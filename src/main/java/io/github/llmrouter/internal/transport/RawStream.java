package io.github.llmrouter.internal.transport;

import static java.util.Objects.requireNonNull;

import io.github.llmrouter.api.LlmException;
import io.github.llmrouter.api.LlmTimeoutException;
import io.github.llmrouter.api.MalformedResponseException;
import io.github.llmrouter.api.RawResponse;
import io.github.llmrouter.api.StreamInterruptedException;
import io.github.llmrouter.replica.Replica;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import okhttp3.Call;
import okhttp3.Response;
import okio.BufferedSource;
import okio.ByteString;
import org.jspecify.annotations.Nullable;
import tools.jackson.core.JacksonException;

/**
 * A raw answer that is an event stream, handed to its caller once its first event has arrived:
 * the body reads the replica's bytes as they come. As they pass, the {@code data:} lines that
 * carry a usage are read for it, so that the attempt's end reports the usage the way a typed
 * stream's last chunk does. The end is told once: completed once the replica has said the answer
 * is complete and the reader stops or reaches the end; broken by a read that failed, or by an end
 * the replica did not announce (a deadline says nothing of the replica); abandoned by a close
 * before the answer was complete.
 */
final class RawStream implements RawResponse {
  /** A {@code data:} line longer than this is not kept for its usage (a usage line is short). */
  private static final int MAX_KEPT_LINE = 64 * 1024;
  private static final ByteString USAGE = ByteString.encodeUtf8("\"usage\"");
  private static final ByteString DATA = ByteString.encodeUtf8("data:");
  private static final ByteString DONE = ByteString.encodeUtf8("data: [DONE]");
  private static final ByteString DONE_NO_SPACE = ByteString.encodeUtf8("data:[DONE]");
  private static final ByteString COMPLETED = ByteString.encodeUtf8("event: response.completed");
  /** A finish reason with a value (not {@code null}). */
  private static final ByteString FINISH_REASON = ByteString.encodeUtf8("\"finish_reason\":\"");
  private static final ByteString FINISH_REASON_SPACED = ByteString.encodeUtf8("\"finish_reason\": \"");

  private final HttpTransport transport;
  private final Replica replica;
  private final Call call;
  private final Response response;
  private final StreamEnd<Object> end;
  private final Body body;
  private final AtomicBoolean ended = new AtomicBoolean();
  private volatile Reported reported = Reported.NOTHING;

  private RawStream(HttpTransport transport, Replica replica, Call call, Response response,
      StreamEnd<Object> end) {
    this.transport = transport;
    this.replica = replica;
    this.call = call;
    this.response = response;
    this.end = end;
    this.body = new Body(response.body().source());
  }

  /**
   * Waits for the first event (under the response's read timeout: the time-to-first-byte bound)
   * without consuming it, then switches the read timeout to {@code idleTimeout}. Throws, without
   * telling {@code end}, if the stream fails or its first event is an error: the dispatcher may
   * retry.
   */
  static RawStream open(HttpTransport transport, Replica replica, Call call, Response response,
      Duration idleTimeout, StreamEnd<Object> end) {
    String contentType = response.header("Content-Type");
    if (contentType != null && contentType.startsWith("application/json")) {
      throw new MalformedResponseException(replica.id(), "stream (got application/json, expected "
          + "text/event-stream)", new IOException("not an event stream"));
    }
    BufferedSource source = response.body().source();
    SseReader first = new SseReader(source.peek());
    String data;
    try {
      data = first.nextData();
      if (data == null) throw new IOException("stream ended before its first event");
    } catch (IOException e) {
      throw transport.classify(replica, call, e);
    }
    LlmException error = SseStream.errorIn(transport, replica, call, first.eventType(), data);
    if (error != null) throw error;
    source.timeout().timeout(idleTimeout.toNanos(), TimeUnit.NANOSECONDS);
    return new RawStream(transport, replica, call, response, end);
  }

  @Override
  public String replicaId() {
    return replica.id();
  }

  @Override
  public int status() {
    return response.code();
  }

  @Override
  public Map<String, List<String>> headers() {
    return RetryAfter.restored(response.headers()).toMultimap();
  }

  @Override
  public @Nullable String header(String name) {
    return RetryAfter.restored(response.headers()).get(requireNonNull(name, "name"));
  }

  @Override
  public boolean streaming() {
    return true;
  }

  @Override
  public InputStream body() {
    return body;
  }

  @Override
  public byte[] bodyBytes() {
    try {
      return body.readAllBytes();
    } catch (IOException e) {
      Throwable cause = e.getCause() instanceof LlmException ? e.getCause() : e;
      if (cause instanceof LlmTimeoutException t) throw t;
      throw new StreamInterruptedException(replica.id(), List.of(), "", cause);
    }
  }

  @Override
  public void close() {
    end(null);
  }

  /**
   * Ends the stream once: broken by {@code failure} if not null, else completed if the replica
   * said the answer is complete, else abandoned.
   */
  private void end(@Nullable LlmException failure) {
    if (!ended.compareAndSet(false, true)) return;
    try {
      response.close();
    } finally {
      if (failure != null) end.broke(failure);
      else if (body.finished) end.completed(reported);
      else end.abandoned();
    }
  }

  @Override
  public String toString() {
    return "RawResponse{replica=" + replica.id() + ", status=" + response.code() + ", stream}";
  }

  /** The body as the caller reads it, watching for its end and for usage lines. */
  private final class Body extends InputStream {
    private final InputStream in;
    /** The current line, while it may be a usage line. */
    private final ByteArrayOutputStream line = new ByteArrayOutputStream(256);
    private boolean dropLine;
    /**
     * The replica said the answer is complete ({@code data: [DONE]}, a chunk with a finish
     * reason, or the Responses API's {@code response.completed} event): a reader that stops
     * there has read the whole answer.
     */
    volatile boolean finished;

    Body(BufferedSource source) {
      this.in = source.inputStream();
    }

    @Override
    public int read() throws IOException {
      byte[] one = new byte[1];
      int n = read(one, 0, 1);
      return n < 0 ? -1 : one[0] & 0xff;
    }

    @Override
    public int read(byte[] b, int off, int len) throws IOException {
      if (ended.get()) return -1;
      int n;
      try {
        n = in.read(b, off, len);
      } catch (IOException e) {
        if (ended.get()) return -1; // closed by the caller while reading
        LlmException failure = transport.classify(replica, call, e);
        // The call's own deadline says nothing of the replica.
        boolean deadline = failure instanceof LlmTimeoutException && !failure.isRetryable();
        end(deadline ? null : failure);
        throw new IOException(failure.getMessage(), failure);
      }
      if (n < 0) {
        // An end the replica did not announce ([DONE], a finish reason, response.completed) is
        // a connection cut mid-answer, as for a typed stream; the reader sees its end either way.
        end(finished ? null : transport.classify(replica, call,
            new IOException("stream ended without [DONE]")));
        return -1;
      }
      scan(b, off, n);
      return n;
    }

    @Override
    public int available() throws IOException {
      return ended.get() ? 0 : in.available();
    }

    @Override
    public void close() {
      RawStream.this.close();
    }

    /** Keeps each line while it may carry a usage; reads it for one at its end. */
    private void scan(byte[] b, int off, int n) {
      for (int i = off; i < off + n; i++) {
        byte c = b[i];
        if (c == '\n' || c == '\r') {
          if (!dropLine && line.size() > 0) endOfLine(ByteString.of(line.toByteArray()));
          line.reset();
          dropLine = false;
        } else if (!dropLine) {
          if (line.size() >= MAX_KEPT_LINE) {
            dropLine = true;
            line.reset();
          } else {
            line.write(c);
          }
        }
      }
    }

    /**
     * Reads a line for what it says of the stream: that the answer is complete, or its usage
     * (a {@code data:} line that mentions one is parsed; no other is).
     */
    private void endOfLine(ByteString l) {
      if (l.startsWith(DONE) || l.startsWith(DONE_NO_SPACE) || l.startsWith(COMPLETED)) {
        finished = true;
        return;
      }
      if (l.size() < 6 || !l.startsWith(DATA)) return;
      if (!finished && (l.indexOf(FINISH_REASON) >= 0 || l.indexOf(FINISH_REASON_SPACED) >= 0)) {
        finished = true;
      }
      if (l.indexOf(USAGE) < 0) return;
      int start = l.getByte(5) == ' ' ? 6 : 5;
      try {
        Reported r = Reported.scan(l.substring(start).toByteArray());
        if (r.usage() != null) reported = r;
      } catch (JacksonException notJson) {
        // not an event this reader understands; the caller's parser will say
      }
    }
  }
}
