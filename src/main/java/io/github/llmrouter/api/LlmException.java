package io.github.llmrouter.api;

import org.jspecify.annotations.Nullable;

/**
 * The root of every exception the client throws on the request path. Unchecked. Nothing else
 * escapes a call (but a {@code NullPointerException} for a null argument).
 *
 * <p>Messages name replicas and statuses, and carry a server's own error message; never API keys,
 * header values or prompt text. Servers and proxies may echo a request in their error text: every
 * value the client sent as a secret (the API key, each replica header value of at least six
 * characters) is replaced by {@code <redacted>} in what a server sends back, as sent and also
 * JSON-escaped, URL-encoded, HTML-escaped or broken by whitespace, before it is put in any
 * message, server message, body excerpt, cause, event or log line.
 *
 * <p>What a call throws, by one rule:
 *
 * <ul>
 *   <li>{@link RetriesExhaustedException}: <b>the router gave up</b>. Every attempt failed in a
 *       way another attempt might have fixed (a 5xx or another retryable status, a connection
 *       failure, a replica that timed out before answering, a malformed answer) and no further
 *       attempt was allowed: the attempt limit, the retry budget, no replica left, or a next
 *       attempt that could not start before the deadline. Thrown even after one attempt; {@code
 *       attempts()} lists each attempt's replica, duration and failure (status or cause).
 *   <li>{@link ReplicaHttpException}: a replica judged the request with a status that is not
 *       retryable (400, 401, 404, 422, ...). Trying elsewhere would not help; earlier failed
 *       attempts are attached as suppressed exceptions.
 *   <li>{@link LlmTimeoutException}: the call ran out of time: its deadline ({@code callTimeout})
 *       expired, or a stream went idle after its first chunk ({@code streamIdleTimeout}).
 *   <li>{@link StreamInterruptedException}: a stream broke after its first chunk; never replayed.
 *   <li>{@link NoReplicaAvailableException}: no attempt could be made (an empty fleet, or every
 *       replica paused by {@code Retry-After} past the deadline).
 *   <li>{@link FleetSaturatedException}: admission control refused the call.
 *   <li>a plain {@code LlmException}: the client is closed, the thread was interrupted, or the
 *       request could not be written.
 * </ul>
 *
 * <p>What one attempt can fail with, as listed by {@link RetriesExhaustedException#attempts()}:
 * {@link ReplicaHttpException} (an error status), {@link ReplicaUnreachableException} (connecting
 * or talking to a replica failed), {@link MalformedResponseException} (an answer that is not the
 * expected JSON or SSE, or lacks what its endpoint must return) and {@link LlmTimeoutException}
 * (a replica that timed out before answering).
 *
 * @since 0.2.0
 */
public class LlmException extends RuntimeException {
  /** The replica the failure concerns, or null. */
  private final @Nullable String replicaId;

  /**
   * A failure that concerns no replica, without a cause.
   *
   * @param message what went wrong, naming no secret
   */
  public LlmException(String message) {
    this(message, null, null);
  }

  /**
   * A failure.
   *
   * @param message what went wrong, naming no secret
   * @param replicaId the replica it concerns, or null
   * @param cause what caused it, or null
   */
  public LlmException(String message, @Nullable String replicaId, @Nullable Throwable cause) {
    super(message, cause);
    this.replicaId = replicaId;
  }

  /** {@return the replica the failure concerns, or null if it concerns none} */
  public @Nullable String replicaId() {
    return replicaId;
  }

  /**
   * {@return whether trying again on another replica may succeed: true for connection failures,
   * timeouts before any response, malformed answers and HTTP 408/429/500/502/503/504 (by
   * default)}
   */
  public boolean isRetryable() {
    return false;
  }
}
