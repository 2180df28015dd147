package io.github.llmrouter.observe;

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
 */
public record RoutedEvent(String operation, String model, int attempt, String replicaId,
    String reason, int replicaInFlight, long totalInFlight) {}
