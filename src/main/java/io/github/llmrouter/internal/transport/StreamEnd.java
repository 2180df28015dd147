package io.github.llmrouter.internal.transport;

import io.github.llmrouter.api.LlmException;

/**
 * How a stream that reached its caller ended, told exactly once, on the thread that ended it: the
 * replica finished it, the replica broke it, or the caller let go of it first.
 */
public interface StreamEnd {
  /**
   * The replica finished the stream.
   *
   * @param reported what the stream reported of itself: the usage of its last event that carried
   *     one (if the server sent it), and the model
   */
  void completed(Reported reported);

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
