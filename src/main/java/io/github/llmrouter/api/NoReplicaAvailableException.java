package io.github.llmrouter.api;

/** No replica could be tried: the fleet is empty, or every replica was already tried. */
public final class NoReplicaAvailableException extends LlmException {
  public NoReplicaAvailableException(String message) {
    super(message);
  }
}
