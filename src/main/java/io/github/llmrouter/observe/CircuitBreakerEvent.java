package io.github.llmrouter.observe;

/**
 * A replica's circuit breaker changed state. States are Resilience4j's: {@code CLOSED} (calls
 * flow), {@code OPEN} (calls skip the replica), {@code HALF_OPEN} (a few probe calls decide).
 *
 * @param replicaId the replica whose breaker it is
 * @param from the state before
 * @param to the state after
 * @param reason why, e.g. {@code "failure rate 60.0% >= 50.0%"}
 *
 * @since 0.2.0
 */
public record CircuitBreakerEvent(String replicaId, String from, String to, String reason) {}
