package io.github.llmrouter.observe;

import java.time.Duration;
import org.jspecify.annotations.Nullable;

/**
 * A replica was chosen for one attempt of a call.
 *
 * @param operation {@code chat}, {@code chat.stream}, {@code completion}, {@code
 *     completion.stream} or {@code embeddings}
 * @param model the requested model
 * @param attempt 1 for the first attempt, 2 for the first retry, …
 * @param replicaId the chosen replica
 * @param reason why the policy chose it, e.g. "key owner on the ring, within load bound"
 * @param replicaInFlight this client's requests in flight on the replica before this one
 * @param totalInFlight this client's requests in flight on the whole fleet before this one
 * @param predictedCachedTokens the prompt tokens the policy expected the replica to serve from its
 *     prefix cache, or -1 if the policy makes no such prediction (or the pick was not the policy's:
 *     slow start, panic)
 * @param estimatedWait how long the policy expected the request to wait there before its prefill
 *     starts, or null if it makes no such estimate
 * @param versusRunnerUp why the replica beat the policy's runner-up, with the figures compared, or
 *     "" if the policy does not compare replicas
 */
public record RoutedEvent(String operation, String model, int attempt, String replicaId,
    String reason, int replicaInFlight, long totalInFlight, long predictedCachedTokens,
    @Nullable Duration estimatedWait, String versusRunnerUp) {
  /**
   * An event without the policy's predictions.
   *
   * @param operation the call's operation, such as {@code chat}
   * @param model the requested model
   * @param attempt 1 for the first attempt, 2 for the first retry, …
   * @param replicaId the chosen replica
   * @param reason why the policy chose it
   * @param replicaInFlight this client's requests in flight on the replica before this one
   * @param totalInFlight this client's requests in flight on the whole fleet before this one
   */
  public RoutedEvent(String operation, String model, int attempt, String replicaId, String reason,
      int replicaInFlight, long totalInFlight) {
    this(operation, model, attempt, replicaId, reason, replicaInFlight, totalInFlight, -1, null,
        "");
  }
}
