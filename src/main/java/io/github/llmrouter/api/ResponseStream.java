package io.github.llmrouter.api;

import java.util.Iterator;
import java.util.Spliterator;
import java.util.Spliterators;
import java.util.stream.Stream;
import java.util.stream.StreamSupport;

/**
 * A streamed response: chunks in arrival order, read on the caller's thread. Close it (or exhaust
 * it) to release the connection; use it with try-with-resources:
 *
 * <pre>{@code
 * try (ResponseStream<ChatChunk> stream = client.chatStream(request)) {
 *   for (ChatChunk chunk : stream) System.out.print(chunk.text());
 * }
 * }</pre>
 *
 * <p>The first chunk has already arrived when the client hands out a stream, so failures before
 * it were retried on other replicas (an error event as the first event is a {@link
 * ReplicaHttpException} with its status, retried only where the status is retryable). After it,
 * nothing is replayed: a typed chat or completion stream that breaks is continued on another
 * replica where that is safe ({@link #resumptions()}, {@code
 * LlmClientBuilder.maxStreamResumptions}), and its reader sees one answer; otherwise {@code
 * hasNext()}/{@code next()} throw:
 *
 * <ul>
 *   <li>{@link LlmTimeoutException} when nothing arrives for longer than the stream idle timeout,
 *       or the call's deadline expires: {@code catch (LlmTimeoutException e)} catches every
 *       timeout;
 *   <li>{@link StreamInterruptedException} when the stream breaks otherwise (a reset, an error
 *       event, a malformed event).
 * </ul>
 *
 * <p>Both carry what reached the caller ({@code receivedChunks()}, {@code receivedText()}). Not
 * thread-safe: one consumer reads it.
 *
 * @param <T> the chunk type
 *
 * @since 0.2.0
 */
public interface ResponseStream<T> extends Iterable<T>, AutoCloseable {
  /**
   * The chunks; may be called once.
   *
   * @return an iterator over the chunks in arrival order; its {@code hasNext()} blocks for the next
   *     one
   * @throws IllegalStateException if called a second time
   */
  @Override
  Iterator<T> iterator();

  /** {@return the id of the replica serving this stream} */
  String replicaId();

  /**
   * {@return how many times the stream was continued on another replica after it broke (see
   * {@code LlmClientBuilder.maxStreamResumptions}); 0 for a stream that never broke}
   *
   * @since 0.3.0
   */
  default int resumptions() {
    return 0;
  }

  /** Stops reading and releases the connection. Idempotent. */
  @Override
  void close();

  /**
   * The chunks as a sequential {@link Stream}; closing that stream closes this one, so use it in
   * try-with-resources too.
   *
   * @return a sequential, ordered stream of the chunks
   */
  default Stream<T> stream() {
    return StreamSupport.stream(
            Spliterators.spliteratorUnknownSize(iterator(), Spliterator.ORDERED | Spliterator.NONNULL),
            false)
        .onClose(this::close);
  }
}
