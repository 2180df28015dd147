package io.github.llmrouter.api;

import org.jspecify.annotations.Nullable;

/**
 * The root of every exception the client throws on the request path. Unchecked.
 *
 * <p>Messages name replicas and statuses, never API keys, headers or prompt text.
 *
 * <ul>
 *   <li>{@link NoReplicaAvailableException}: the fleet has no replica to try;
 *   <li>{@link ReplicaHttpException}: a replica answered with an error status;
 *   <li>{@link ReplicaUnreachableException}: connecting or talking to a replica failed;
 *   <li>{@link MalformedResponseException}: a replica's answer could not be parsed;
 *   <li>{@link LlmTimeoutException}: a timeout or the call's deadline expired;
 *   <li>{@link StreamInterruptedException}: a stream broke after data reached the caller;
 *   <li>{@link RetriesExhaustedException}: every attempt failed; each attempt's cause attached.
 * </ul>
 */
public class LlmException extends RuntimeException {
  /** The replica the failure concerns, or null. */
  private final @Nullable String replicaId;

  /**
   * Creates an exception that concerns no particular replica.
   *
   * @param message what failed; must not contain secrets or prompt text
   */
  public LlmException(String message) {
    this(message, null, null);
  }

  /**
   * Creates an exception.
   *
   * @param message what failed; must not contain secrets or prompt text
   * @param replicaId the replica the failure concerns, or null
   * @param cause the underlying failure, or null
   */
  public LlmException(String message, @Nullable String replicaId, @Nullable Throwable cause) {
    super(message, cause);
    this.replicaId = replicaId;
  }

  /** {@return the id of the replica the failure concerns, or null if it concerns none} */
  public @Nullable String replicaId() {
    return replicaId;
  }

  /**
   * Whether trying again on another replica may succeed: true for connection failures, timeouts
   * before any response, malformed answers and HTTP 408/429/500/502/503/504 (by default).
   *
   * @return true if the dispatcher may retry the call on another replica
   */
  public boolean isRetryable() {
    return false;
  }
}
