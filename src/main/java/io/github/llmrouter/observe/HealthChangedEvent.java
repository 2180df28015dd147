package io.github.llmrouter.observe;

/**
 * A replica was marked healthy or unhealthy: by active health checking, or because it refuses
 * connections, stopped answering its load scrapes and health checks (the stall watchdog), or was
 * reached again.
 *
 * @param replicaId the replica concerned
 * @param healthy its new state
 * @param reason why, e.g. {@code "3 failed checks, last: HTTP 503"}, {@code "refuses
 *     connections: …"}, {@code "stopped answering: nothing answered for 3120 ms, last: load
 *     scrape (InterruptedIOException)"} or {@code "reachable again"}
 *
 * @since 0.2.0
 */
public record HealthChangedEvent(String replicaId, boolean healthy, String reason) {}
