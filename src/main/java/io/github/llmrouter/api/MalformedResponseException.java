package io.github.llmrouter.api;

/** A replica answered 2xx with a body that is not the expected JSON or SSE. */
public final class MalformedResponseException extends LlmException {
  /**
   * Creates the exception; the client throws it, applications construct it in tests of their own
   * error handling.
   *
   * @param replicaId the replica; not null
   * @param what what was malformed ("JSON body", "SSE event"), for the message
   * @param cause the parse failure
   */
  public MalformedResponseException(String replicaId, String what, Throwable cause) {
    super("replica " + replicaId + " sent a malformed " + what, replicaId, cause);
  }

  @Override
  public boolean isRetryable() {
    return true;
  }
}
