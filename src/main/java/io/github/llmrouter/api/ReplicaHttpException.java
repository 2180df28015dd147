package io.github.llmrouter.api;

import java.time.Duration;
import org.jspecify.annotations.Nullable;

/** A replica answered with a non-2xx HTTP status. */
public final class ReplicaHttpException extends LlmException {
  /** The longest body excerpt kept: {@value} characters. */
  public static final int MAX_EXCERPT_CHARS = 512;

  /** The HTTP status code. */
  private final int status;
  /** The start of the body, at most {@value #MAX_EXCERPT_CHARS} characters. */
  private final String bodyExcerpt;
  /** Whether the retry policy counts the status as retryable. */
  private final boolean retryable;
  /** The server's {@code Retry-After}, or null. */
  private final @Nullable Duration retryAfter;

  /**
   * Creates the exception; the client throws it, applications construct it in tests of their own
   * error handling.
   *
   * @param replicaId the replica that answered; not null
   * @param status the HTTP status
   * @param bodyExcerpt the response body; cut to {@value #MAX_EXCERPT_CHARS} characters, not null
   * @param retryable whether another replica may succeed (the retry policy's verdict on the status)
   * @param retryAfter the server's {@code Retry-After}, or null
   */
  public ReplicaHttpException(String replicaId, int status, String bodyExcerpt, boolean retryable,
      @Nullable Duration retryAfter) {
    super("replica " + replicaId + " answered HTTP " + status, replicaId, null);
    this.status = status;
    this.bodyExcerpt = bodyExcerpt.length() <= MAX_EXCERPT_CHARS ? bodyExcerpt
        : bodyExcerpt.substring(0, MAX_EXCERPT_CHARS);
    this.retryable = retryable;
    this.retryAfter = retryAfter;
  }

  /** {@return the HTTP status code} */
  public int status() {
    return status;
  }

  /**
   * The start of the response body (at most {@value #MAX_EXCERPT_CHARS} characters); kept out of
   * {@link #getMessage()} because servers sometimes echo the request in their errors.
   *
   * @return the excerpt, possibly empty, never null
   */
  public String bodyExcerpt() {
    return bodyExcerpt;
  }

  /** {@return the server's {@code Retry-After}, or null if it sent no valid one} */
  public @Nullable Duration retryAfter() {
    return retryAfter;
  }

  @Override
  public boolean isRetryable() {
    return retryable;
  }
}
