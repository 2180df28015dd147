package io.github.llmrouter.api;

/** No replica could be tried: the fleet is empty, or every replica was already tried. */
public final class NoReplicaAvailableException extends LlmException {
  /**
   * Creates the exception; the client throws it, applications construct it in tests of their own
   * error handling.
   *
   * @param message why no replica could be tried
   */
  public NoReplicaAvailableException(String message) {
    super(message);
  }
}
