package io.github.llmrouter.observe;

/**
 * A replica joined or left the fleet, or changed (for example its weight), as published by the
 * client's replica resolver.
 *
 * @param replicaId the replica concerned
 * @param change what happened to it
 * @param reason where the change came from, e.g. {@code "DnsResolver: my-llm.default.svc."}
 * @param fleetSize the number of replicas after the change
 *
 * @since 0.2.0
 */
public record MembershipEvent(String replicaId, Change change, String reason, int fleetSize) {
  /** What happened to a replica's membership. */
  public enum Change {
    /** The replica joined the fleet. */
    ADDED,
    /** The replica left the fleet. */
    REMOVED,
    /** The replica stayed but its description (URL, weight, headers, models) changed. */
    UPDATED
  }
}
