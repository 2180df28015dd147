package io.github.llmrouter.internal.transport;

import static java.util.Objects.requireNonNull;

import java.io.IOException;
import okio.BufferedSource;
import org.jspecify.annotations.Nullable;

/**
 * A pull parser for Server-Sent Events (the WHATWG {@code text/event-stream} format), reading one
 * event at a time on the caller's thread.
 *
 * <p>Handles {@code data:} lines (several per event, joined with {@code \n}), an optional single
 * space after the colon, comment lines ({@code :keep-alive}), {@code event}/{@code id}/{@code
 * retry} and unknown fields (ignored), lines ending in LF, CRLF or a lone CR, and events that carry
 * no data (skipped). An event not terminated by a blank line before the end of the stream is
 * discarded, as the specification says. A line longer than {@value #MAX_LINE_BYTES} bytes fails the
 * read with an {@link IOException} rather than being buffered without end, and so does an event
 * whose data grows longer than that.
 *
 * <p>We parse SSE ourselves rather than through okhttp-sse's {@code EventSource}: that API pushes
 * events to a listener on OkHttp's threads, while our streams are pulled by the caller (an
 * {@code Iterator}), which gives natural back-pressure and keeps the idle timeout per read.
 */
final class SseReader {
  /** The longest line read: {@value} bytes (an LLM stream's events are a few hundred). */
  static final long MAX_LINE_BYTES = 8L << 20;

  private final BufferedSource source;
  private final StringBuilder data = new StringBuilder();
  private boolean hasData;
  private boolean skipLeadingLf;
  private @Nullable String eventType;
  private @Nullable String returnedEventType;

  /**
   * A reader of the events in {@code source}.
   *
   * @param source the response body
   */
  SseReader(BufferedSource source) {
    this.source = requireNonNull(source, "source");
  }

  /**
   * The data of the next event that has any, or null at the end of the stream.
   *
   * @throws IOException if reading fails (including a read timeout)
   */
  @Nullable String nextData() throws IOException {
    while (true) {
      String line = readLine();
      if (line == null) return null;
      if (line.isEmpty()) {
        if (hasData) {
          String result = data.toString();
          data.setLength(0);
          hasData = false;
          returnedEventType = eventType;
          eventType = null;
          return result;
        }
        eventType = null;
        continue;
      }
      if (line.charAt(0) == ':') continue; // comment / keep-alive
      int colon = line.indexOf(':');
      String field = colon < 0 ? line : line.substring(0, colon);
      String value = "";
      if (colon >= 0) {
        int start = colon + 1;
        if (start < line.length() && line.charAt(start) == ' ') start++;
        value = line.substring(start);
      }
      switch (field) {
        case "data":
          if (hasData) data.append('\n');
          data.append(value);
          hasData = true;
          if (data.length() > MAX_LINE_BYTES) {
            throw new IOException("stream event longer than " + MAX_LINE_BYTES + " bytes");
          }
          break;
        case "event":
          eventType = value;
          break;
        default:
          break; // id, retry and unknown fields do not matter to an OpenAI-style stream
      }
    }
  }

  /**
   * The type of the event {@link #nextData()} returned last.
   *
   * @return its {@code event:} field, or null (the default, "message")
   */
  @Nullable String eventType() {
    return returnedEventType;
  }

  private @Nullable String readLine() throws IOException {
    if (skipLeadingLf) {
      skipLeadingLf = false;
      if (source.request(1) && source.getBuffer().getByte(0) == '\n') source.skip(1);
    }
    long end = source.indexOf((byte) '\n', 0, MAX_LINE_BYTES + 1);
    long cr = source.indexOf((byte) '\r', 0, end == -1 ? MAX_LINE_BYTES + 1 : end);
    if (cr != -1) end = cr;
    if (end == -1) {
      if (source.getBuffer().size() > MAX_LINE_BYTES) {
        throw new IOException("stream line longer than " + MAX_LINE_BYTES + " bytes");
      }
      // End of stream: a trailing partial line belongs to an unterminated event, which is dropped.
      return null;
    }
    String line = source.readUtf8(end);
    byte terminator = source.readByte();
    if (terminator == '\r') {
      // CRLF: the LF may not have arrived yet; skip it lazily so a lone CR never blocks an event.
      if (source.getBuffer().size() > 0) {
        if (source.getBuffer().getByte(0) == '\n') source.skip(1);
      } else {
        skipLeadingLf = true;
      }
    }
    return line;
  }
}
