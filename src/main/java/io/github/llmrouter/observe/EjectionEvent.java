package io.github.llmrouter.observe;

import java.time.Duration;

/**
 * Passive outlier detection ejected a replica from routing, or its ejection ended.
 *
 * @param replicaId the replica concerned
 * @param ejected true when the replica was ejected, false when its ejection ended
 * @param duration how long the ejection lasts (zero when it ended)
 * @param ejections how many times the replica has been ejected, after decay (the multiplier of
 *     the base ejection time)
 * @param reason why, e.g. {@code "5 consecutive failures, last: HTTP 503"}
 *
 * @since 0.2.0
 */
public record EjectionEvent(String replicaId, boolean ejected, Duration duration, int ejections,
    String reason) {}
