package io.github.llmrouter.api;

import java.time.Duration;
import org.jspecify.annotations.Nullable;

/** A replica answered with a non-2xx HTTP status. */
public final class ReplicaHttpException extends LlmException {
  /** The longest body excerpt kept: {@value} characters. */
  public static final int MAX_EXCERPT_CHARS = 512;

  private final int status;
  private final String bodyExcerpt;
  private final boolean retryable;
  private final @Nullable Duration retryAfter;

  public ReplicaHttpException(String replicaId, int status, String bodyExcerpt, boolean retryable,
      @Nullable Duration retryAfter) {
    super("replica " + replicaId + " answered HTTP " + status, replicaId, null);
    this.status = status;
    this.bodyExcerpt = bodyExcerpt.length() <= MAX_EXCERPT_CHARS ? bodyExcerpt
        : bodyExcerpt.substring(0, MAX_EXCERPT_CHARS);
    this.retryable = retryable;
    this.retryAfter = retryAfter;
  }

  /** The HTTP status code. */
  public int status() {
    return status;
  }

  /**
   * The start of the response body (at most {@value #MAX_EXCERPT_CHARS} characters); kept out of
   * {@link #getMessage()} because servers sometimes echo the request in their errors.
   */
  public String bodyExcerpt() {
    return bodyExcerpt;
  }

  /** The server's {@code Retry-After}, if it sent a valid one. */
  public @Nullable Duration retryAfter() {
    return retryAfter;
  }

  @Override
  public boolean isRetryable() {
    return retryable;
  }
}
