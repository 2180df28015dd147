package io.github.llmrouter.observe;

/**
 * Active health checking marked a replica healthy or unhealthy.
 *
 * @param replicaId the replica concerned
 * @param healthy its new state
 * @param reason why, e.g. {@code "3 failed checks, last: HTTP 503"}
 *
 * @since 0.2.0
 */
public record HealthChangedEvent(String replicaId, boolean healthy, String reason) {}
