package io.github.llmrouter.internal.transport;

import io.github.llmrouter.api.LlmException;
import org.jspecify.annotations.Nullable;

/**
 * How a stream that reached its caller ended, told exactly once, on the thread that ended it: the
 * replica finished it, the replica broke it, or the caller let go of it first.
 *
 * @param <T> the chunk type
 */
public interface StreamEnd<T> {
  /**
   * The replica finished the stream.
   *
   * @param last the last chunk (the one that carries the usage, if the server sent it), or null
   */
  void completed(@Nullable T last);

  /**
   * The replica broke the stream after its first chunk: the connection was cut or reset, an event
   * was malformed or an error, or the replica went silent past the idle timeout.
   *
   * @param failure the replica's failure, classified as for any attempt
   */
  void broke(LlmException failure);

  /**
   * The caller closed the stream before its end, or the call's deadline ran out: nothing is known
   * of the replica.
   */
  void abandoned();
}
