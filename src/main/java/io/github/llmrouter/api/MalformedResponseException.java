package io.github.llmrouter.api;

/**
 * A replica answered 2xx with a body that is not the expected JSON or SSE, or that lacks what its
 * endpoint must return ({@code null}, {@code {}}, a chat completion without {@code choices},
 * embeddings without {@code data}). A failure of the replica: retryable on another one.
 *
 * @since 0.2.0
 */
public final class MalformedResponseException extends LlmException {
  /**
   * A malformed answer.
   *
   * @param replicaId the replica that sent it
   * @param what what was malformed, for the message (e.g. {@code "JSON body (no choices)"})
   * @param cause the parse failure
   */
  public MalformedResponseException(String replicaId, String what, Throwable cause) {
    super("replica " + replicaId + " sent a malformed " + what, replicaId, cause);
  }

  /** Always true: another replica may answer well. */
  @Override
  public boolean isRetryable() {
    return true;
  }
}
