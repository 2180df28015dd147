package io.github.llmrouter.api;

/** A replica answered 2xx with a body that is not the expected JSON or SSE. */
public final class MalformedResponseException extends LlmException {
  public MalformedResponseException(String replicaId, String what, Throwable cause) {
    super("replica " + replicaId + " sent a malformed " + what, replicaId, cause);
  }

  @Override
  public boolean isRetryable() {
    return true;
  }
}
