package io.github.llmrouter.api;

import java.io.InputStream;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * A replica's successful answer to a {@link RawRequest}: its 2xx status, headers and body. An error
 * status never comes back as a response: after the router's retries it is a {@link
 * ReplicaHttpException} (status, the server's message and a body excerpt, without secrets), so
 * that every failure takes the one path described on {@link LlmException}.
 *
 * <p>An answer that is not a stream arrives whole: its body is held in memory and the connection
 * is already released. A stream (the request asked for {@code "stream": true}) is handed out once
 * its first event has arrived, so failures before it were failed over; its {@link #body()} then
 * reads the live event stream, byte for byte as the replica sends it, and the replica's in-flight
 * count is held until the body is read to its end or the response is closed. Close it (use
 * try-with-resources) to let go of a stream early; closing is idempotent and may come from any
 * thread.
 *
 * <p>Reading the body is for one consumer; the other methods are thread-safe.
 *
 * @since 0.3.0
 */
public interface RawResponse extends AutoCloseable {
  /** {@return the id of the replica that answered} */
  String replicaId();

  /** {@return the HTTP status, 2xx} */
  int status();

  /**
   * {@return the response headers by lower-case name, values in the order received;
   * unmodifiable}
   */
  Map<String, List<String>> headers();

  /**
   * {@return the first value of header {@code name} (any case), or null}
   *
   * @param name the header's name
   */
  @Nullable String header(String name);

  /** {@return whether the body is an event stream read as it arrives} */
  boolean streaming();

  /**
   * The body. For a whole answer, a new stream over the bytes held at each call; for an event
   * stream, the one live stream (each call returns the same stream), which fails with an {@code
   * IOException} if the replica breaks it or goes silent past the stream idle timeout.
   *
   * @return the body's bytes as a stream; never null
   */
  InputStream body();

  /**
   * The whole body: for an event stream, read to its end (blocking) from where the reader of
   * {@link #body()} left it.
   *
   * @return the bytes; never null
   * @throws StreamInterruptedException if an event stream breaks before its end
   * @throws LlmTimeoutException if an event stream goes silent past the idle timeout
   */
  byte[] bodyBytes();

  /** Releases the connection; a stream not read to its end is let go. Idempotent. */
  @Override
  void close();
}
