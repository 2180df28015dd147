package io.github.llmrouter.api;

import java.time.Duration;
import org.jspecify.annotations.Nullable;

/**
 * A replica answered with an error status: a non-2xx HTTP status, or an error event as the first
 * event of a stream (with the status the event carries, 500 if none).
 *
 * <p>The message carries the server's own explanation when it gave one (the {@code error.message}
 * of an OpenAI-style error body, or the first line of a text body; at most {@value
 * #MAX_SERVER_MESSAGE_CHARS} characters, control characters replaced), and a hint for the statuses
 * that usually mean a configuration mistake: 401 and 403 (the API key), 404 (the model name or the
 * base URL's path). For example: {@code replica 10.0.0.7:8000 answered HTTP 404: The model
 * `llama-3` does not exist. (check the model name and the replica's base URL path)}.
 *
 * <p>The server message and the body excerpt come without the secrets the client sent (see {@link
 * LlmException}): an echoed API key or header value reads {@code <redacted>}.
 *
 * @since 0.2.0
 */
public final class ReplicaHttpException extends LlmException {
  /** The longest body excerpt kept: {@value} characters. */
  public static final int MAX_EXCERPT_CHARS = 512;
  /** The longest server message put in {@link #getMessage()}: {@value} characters. */
  public static final int MAX_SERVER_MESSAGE_CHARS = 200;

  /** The HTTP status. */
  private final int status;
  /** The server's explanation, cleaned, or null. */
  private final @Nullable String serverMessage;
  /** The start of the body. */
  private final String bodyExcerpt;
  /** Whether the status is worth another attempt. */
  private final boolean retryable;
  /** The server's {@code Retry-After}, or null. */
  private final @Nullable Duration retryAfter;

  /**
   * An error answer without a server message.
   *
   * @param replicaId the replica that answered
   * @param status the HTTP status
   * @param bodyExcerpt the start of the body (cut at {@value #MAX_EXCERPT_CHARS} characters)
   * @param retryable whether the status is worth another attempt
   * @param retryAfter the server's {@code Retry-After}, if it sent a valid one
   */
  public ReplicaHttpException(String replicaId, int status, String bodyExcerpt, boolean retryable,
      @Nullable Duration retryAfter) {
    this(replicaId, status, null, bodyExcerpt, retryable, retryAfter);
  }

  /**
   * An error answer.
   *
   * @param replicaId the replica that answered
   * @param status the HTTP status (of the response, or reported by an error event)
   * @param serverMessage the server's explanation, or null (shortened to {@value
   *     #MAX_SERVER_MESSAGE_CHARS} characters and put in the message)
   * @param bodyExcerpt the start of the body (cut at {@value #MAX_EXCERPT_CHARS} characters)
   * @param retryable whether the status is worth another attempt
   * @param retryAfter the server's {@code Retry-After}, if it sent a valid one
   */
  public ReplicaHttpException(String replicaId, int status, @Nullable String serverMessage,
      String bodyExcerpt, boolean retryable, @Nullable Duration retryAfter) {
    super(message(replicaId, status, clean(serverMessage)), replicaId, null);
    this.status = status;
    this.serverMessage = clean(serverMessage);
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
   * The server's explanation, as shown in the message.
   *
   * @return at most {@value #MAX_SERVER_MESSAGE_CHARS} characters on one line, or null if the
   *     server gave none
   */
  public @Nullable String serverMessage() {
    return serverMessage;
  }

  /**
   * The start of the response body, as received.
   *
   * @return at most {@value #MAX_EXCERPT_CHARS} characters
   */
  public String bodyExcerpt() {
    return bodyExcerpt;
  }

  /** {@return the server's {@code Retry-After}, if it sent a valid one, else null} */
  public @Nullable Duration retryAfter() {
    return retryAfter;
  }

  @Override
  public boolean isRetryable() {
    return retryable;
  }

  private static String message(String replicaId, int status, @Nullable String serverMessage) {
    StringBuilder s = new StringBuilder("replica ").append(replicaId).append(" answered HTTP ")
        .append(status);
    if (serverMessage != null) s.append(": ").append(serverMessage);
    String hint = hint(status);
    if (hint != null) s.append(" (").append(hint).append(')');
    return s.toString();
  }

  private static @Nullable String hint(int status) {
    switch (status) {
      case 401:
      case 403:
        return "check LlmClientBuilder.apiKey, or the replica's Authorization header";
      case 404:
        return "check the model name and the replica's base URL path";
      default:
        return null;
    }
  }

  /** One line, control characters replaced by spaces, cut at the limit; null if blank. */
  private static @Nullable String clean(@Nullable String message) {
    if (message == null) return null;
    StringBuilder s = new StringBuilder(Math.min(message.length(), MAX_SERVER_MESSAGE_CHARS));
    for (int i = 0; i < message.length() && s.length() < MAX_SERVER_MESSAGE_CHARS; i++) {
      char c = message.charAt(i);
      s.append(Character.isISOControl(c) ? ' ' : c);
    }
    String cleaned = s.toString().strip();
    if (cleaned.isEmpty()) return null;
    return message.length() > MAX_SERVER_MESSAGE_CHARS ? cleaned + "..." : cleaned;
  }
}
