package io.github.llmrouter.observe;

import java.time.Duration;
import org.jspecify.annotations.Nullable;

/**
 * A replica was chosen for one attempt of a call. One {@link AttemptEndedEvent} of the same
 * {@code callId} and {@code attempt} follows.
 *
 * @param callId as in {@link CallStartedEvent#callId()}
 * @param operation {@code chat}, {@code chat.stream}, {@code completion}, {@code
 *     completion.stream} or {@code embeddings}
 * @param model the requested model
 * @param attempt 1 for the first attempt, 2 for the first retry, …
 * @param replicaId the chosen replica
 * @param serverAddress the replica's host
 * @param serverPort the replica's port
 * @param failover whether this attempt follows a failed one on another replica
 * @param reason why the policy chose it, e.g. "key owner on the ring, within load bound"
 * @param replicaInFlight this client's requests in flight on the replica before this one
 * @param totalInFlight this client's requests in flight on the whole fleet before this one
 * @param predictedCachedTokens the prompt tokens the policy expected the replica to serve from its
 *     prefix cache, or -1 if the policy makes no such prediction (or the pick was not the policy's:
 *     slow start, panic)
 * @param estimatedWait how long the policy expected the request to wait there before its prefill
 *     starts, or null if it makes no such estimate
 * @param versusRunnerUp why the replica beat the policy's runner-up, with the figures compared, or
 *     "" if the policy does not compare replicas or no listener {@linkplain
 *     RoutingListener#needsRoutingExplanation() needs it}
 *
 * @since 0.2.0
 */
public record RoutedEvent(long callId, String operation, String model, int attempt,
    String replicaId, String serverAddress, int serverPort, boolean failover, String reason,
    int replicaInFlight, long totalInFlight, long predictedCachedTokens,
    @Nullable Duration estimatedWait, String versusRunnerUp) {
  /**
   * An event without the policy's predictions.
   *
   * @param callId as in {@link CallStartedEvent#callId()}
   * @param operation the call's operation, such as {@code chat}
   * @param model the requested model
   * @param attempt 1 for the first attempt, 2 for the first retry, …
   * @param replicaId the chosen replica
   * @param serverAddress the replica's host
   * @param serverPort the replica's port
   * @param failover whether this attempt follows a failed one on another replica
   * @param reason why the policy chose it
   * @param replicaInFlight this client's requests in flight on the replica before this one
   * @param totalInFlight this client's requests in flight on the whole fleet before this one
   */
  public RoutedEvent(long callId, String operation, String model, int attempt, String replicaId,
      String serverAddress, int serverPort, boolean failover, String reason, int replicaInFlight,
      long totalInFlight) {
    this(callId, operation, model, attempt, replicaId, serverAddress, serverPort, failover, reason,
        replicaInFlight, totalInFlight, -1, null, "");
  }
}
