package io.github.llmrouter.api;

/**
 * Connecting to a replica, or reading its response before any data reached the caller, failed:
 * refused or reset connections, unknown hosts, TLS failures, a response cut short.
 */
public final class ReplicaUnreachableException extends LlmException {
  /**
   * Creates the exception; the client throws it, applications construct it in tests of their own
   * error handling.
   *
   * @param replicaId the replica; not null
   * @param cause the I/O failure; its class and message (never a secret) join this message
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
