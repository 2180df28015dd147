package io.github.llmrouter.api;

/**
 * Admission control gave up on a request: every replica reported itself saturated and either the
 * client-side admission queue was full or the request waited there longer than allowed. Not
 * retried by the client: the fleet is overloaded, and the caller decides (shed, degrade, retry
 * later).
 */
public final class FleetSaturatedException extends LlmException {
  /**
   * Creates the exception; the client throws it, applications construct it in tests of their own
   * error handling.
   *
   * @param message why admission gave up (queue full, or waited too long)
   */
  public FleetSaturatedException(String message) {
    super(message);
  }
}
