package io.github.llmrouter.api;

/**
 * Admission control gave up on a request: every replica reported itself saturated and either the
 * client-side admission queue was full or the request waited there longer than allowed. Not
 * retried by the client: the fleet is overloaded, and the caller decides (shed, degrade, retry
 * later).
 *
 * @since 0.2.0
 */
public final class FleetSaturatedException extends LlmException {
  /**
   * Admission refused.
   *
   * @param message why
   */
  public FleetSaturatedException(String message) {
    super(message);
  }
}
