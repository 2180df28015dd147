package io.github.llmrouter.internal.transport;

import static java.util.Objects.requireNonNull;

import io.github.llmrouter.api.LlmException;
import io.github.llmrouter.api.LlmTimeoutException;
import io.github.llmrouter.api.RawResponse;
import io.github.llmrouter.api.StreamInterruptedException;
import io.github.llmrouter.replica.Replica;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.time.Duration;
import java.util.List;
import java.util.Map;
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

  private final Replica replica;
  private final Response response;
  private final StreamCore core;
  private final Body body;

  private RawStream(HttpTransport transport, Replica replica, Call call, Response response,
      StreamEnd end) {
    this.replica = replica;
    this.response = response;
    this.core = new StreamCore(response, end, e -> transport.classify(replica, call, e));
    this.body = new Body(response.body().source());
  }

  /**
   * Waits for the first event (under the response's read timeout: the time-to-first-byte bound)
   * without consuming it, then switches the read timeout to {@code idleTimeout}. Throws, without
   * telling {@code end}, if the stream fails or its first event is an error: the dispatcher may
   * retry.
   */
  static RawStream open(HttpTransport transport, Replica replica, Call call, Response response,
      Duration idleTimeout, StreamEnd end) {
    StreamCore.requireEventStream(replica, response);
    SseReader first = new SseReader(response.body().source().peek());
    String data;
    try {
      data = first.nextData();
      if (data == null) throw new IOException("stream ended before its first event");
    } catch (IOException e) {
      throw transport.classify(replica, call, e);
    }
    LlmException error = SseStream.errorIn(transport, replica, call, first.eventType(), data);
    if (error != null) throw error;
    StreamCore.idleFromNowOn(response, idleTimeout);
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
    core.end(null);
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
      if (core.ended()) return -1;
      int n;
      try {
        n = in.read(b, off, len);
      } catch (IOException e) {
        if (core.ended()) return -1; // closed by the caller while reading
        LlmException failure = core.readFailed(e);
        throw new IOException(failure.getMessage(), failure);
      }
      if (n < 0) {
        // The reader sees the end either way; the core tells a complete answer from a cut one.
        core.bodyEnded();
        return -1;
      }
      scan(b, off, n);
      return n;
    }

    @Override
    public int available() throws IOException {
      return core.ended() ? 0 : in.available();
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
        core.completeSaid();
        return;
      }
      if (l.size() < 6 || !l.startsWith(DATA)) return;
      if (!core.complete()
          && (l.indexOf(FINISH_REASON) >= 0 || l.indexOf(FINISH_REASON_SPACED) >= 0)) {
        core.completeSaid();
      }
      if (l.indexOf(USAGE) < 0) return;
      int start = l.getByte(5) == ' ' ? 6 : 5;
      try {
        Reported r = Reported.scan(l.substring(start).toByteArray());
        core.reported(r.usage(), r.model());
      } catch (JacksonException notJson) {
        // not an event this reader understands; the caller's parser will say
      }
    }
  }
}
