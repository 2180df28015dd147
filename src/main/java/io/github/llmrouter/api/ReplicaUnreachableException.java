package io.github.llmrouter.api;

/**
 * Connecting to a replica, or reading its response before any data reached the caller, failed:
 * refused or reset connections, unknown hosts, TLS failures, a response cut short.
 *
 * @since 0.2.0
 */
public final class ReplicaUnreachableException extends LlmException {
  /**
   * Talking to a replica failed.
   *
   * @param replicaId the replica
   * @param cause the I/O failure
   */
  public ReplicaUnreachableException(String replicaId, Throwable cause) {
    super("replica " + replicaId + " unreachable: " + cause.getClass().getSimpleName()
        + (cause.getMessage() == null ? "" : " (" + cause.getMessage() + ")"), replicaId, cause);
  }

  @Override
  public boolean isRetryable() {
    return true;
  }
}
