package io.github.llmrouter.api;

import org.jspecify.annotations.Nullable;

/**
 * A timeout expired: connecting, waiting for the first byte, waiting between stream events, or the
 * whole call's deadline. A timeout before any response is retryable on another replica while the
 * deadline allows; the deadline itself is not.
 */
public final class LlmTimeoutException extends LlmException {
  private final boolean retryable;

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
