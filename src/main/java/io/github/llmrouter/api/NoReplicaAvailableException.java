package io.github.llmrouter.api;

/**
 * No attempt could be made: the fleet had no replica before the call's deadline, too many calls
 * were already waiting for one, or every replica asked with {@code Retry-After} not to be called
 * again before the deadline.
 *
 * @since 0.2.0
 */
public final class NoReplicaAvailableException extends LlmException {
  /**
   * A call that made no attempt.
   *
   * @param message why
   */
  public NoReplicaAvailableException(String message) {
    super(message);
  }
}
