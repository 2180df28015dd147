package io.github.llmrouter.api;

import org.jspecify.annotations.Nullable;

/**
 * A timeout expired: connecting, waiting for the first byte, waiting between stream events, or the
 * whole call's deadline. A timeout before any response is retryable on another replica while the
 * deadline allows; the deadline itself is not.
 */
public final class LlmTimeoutException extends LlmException {
  /** Whether the timeout struck before any response, so that another replica may be tried. */
  private final boolean retryable;

  /**
   * Creates the exception; the client throws it, applications construct it in tests of their own
   * error handling.
   *
   * @param message which timeout expired
   * @param replicaId the replica concerned, or null for the call's deadline
   * @param cause the underlying failure, or null
   * @param retryable whether another replica may be tried
   */
  public LlmTimeoutException(String message, @Nullable String replicaId, @Nullable Throwable cause,
      boolean retryable) {
    super(message, replicaId, cause);
    this.retryable = retryable;
  }

  @Override
  public boolean isRetryable() {
    return retryable;
  }
}
