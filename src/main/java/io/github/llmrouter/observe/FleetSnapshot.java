package io.github.llmrouter.observe;

import static java.util.Objects.requireNonNull;

import io.github.llmrouter.load.Saturation;
import java.time.Duration;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * The load on the fleet as one client sees it at one moment, from the replicas' reports and its
 * own counters: per replica, and in total, with the signal a queue-based autoscaler needs.
 * Immutable.
 *
 * <pre>{@code
 * FleetSnapshot fleet = client.fleet();
 * int desired = fleet.replicasFor(2.0);   // replicas that would bring mean waiting down to 2
 * }</pre>
 *
 * @param replicas one entry per replica, in fleet order
 * @param totalWaiting the sum of the effective queues of the replicas with a fresh report
 * @param meanWaiting {@code totalWaiting} per reporting replica; 0 if none reports
 * @param reportingReplicas replicas with a fresh report
 * @param saturatedReplicas replicas at or above the queue or KV-usage threshold (see {@link
 *     Saturation})
 * @param queueThreshold the effective queue that counts as saturated
 * @param kvUsageThreshold the KV usage that counts as saturated
 * @param scrapeFailures metrics scrapes that failed since the client started
 * @param malformedMetricsLines metrics lines skipped as malformed since the client started
 *
 * @since 0.2.0
 */
public record FleetSnapshot(List<ReplicaLoad> replicas, long totalWaiting, double meanWaiting,
    int reportingReplicas, int saturatedReplicas, int queueThreshold, double kvUsageThreshold,
    long scrapeFailures, long malformedMetricsLines) {
  /**
   * Creates a snapshot; {@code replicas} is copied.
   *
   * @param replicas one entry per replica, in fleet order
   * @param totalWaiting the sum of the effective queues of the replicas with a fresh report
   * @param meanWaiting {@code totalWaiting} per reporting replica; 0 if none reports
   * @param reportingReplicas replicas with a fresh report
   * @param saturatedReplicas replicas at or above the queue or KV-usage threshold
   * @param queueThreshold the effective queue that counts as saturated
   * @param kvUsageThreshold the KV usage that counts as saturated
   * @param scrapeFailures metrics scrapes that failed since the client started
   * @param malformedMetricsLines metrics lines skipped as malformed since the client started
   */
  public FleetSnapshot {
    replicas = List.copyOf(requireNonNull(replicas, "replicas"));
  }

  /**
   * The replica count that would bring mean waiting down to {@code targetMeanWaiting}, as a
   * Kubernetes HPA computes it for an average-value metric: {@code ceil(replicas × meanWaiting /
   * target)}, at least 1. With no reports it is the current count.
   *
   * @param targetMeanWaiting waiting requests per replica to aim for, > 0
   * @return the desired replica count, at least 1
   * @throws IllegalArgumentException if {@code targetMeanWaiting} is not positive
   */
  public int replicasFor(double targetMeanWaiting) {
    if (!(targetMeanWaiting > 0)) {
      throw new IllegalArgumentException("targetMeanWaiting must be > 0, got " + targetMeanWaiting);
    }
    if (reportingReplicas == 0) return Math.max(1, replicas.size());
    double desired = Math.ceil(replicas.size() * meanWaiting / targetMeanWaiting - 1e-9);
    return (int) Math.max(1, Math.min(Integer.MAX_VALUE, desired));
  }

  /** {@return whether every replica is saturated (and there is at least one)} */
  public boolean saturated() {
    return !replicas.isEmpty() && saturatedReplicas == replicas.size();
  }

  /**
   * One replica's load.
   *
   * @param replicaId the replica's id
   * @param reportedWaiting waiting requests in its latest report, -1 if none or unknown
   * @param effectiveQueue its effective queue, -1 if unknown (no fresh report)
   * @param running running requests in its latest report, -1 if none or unknown
   * @param kvUsage KV-cache usage in its latest fresh report, NaN if unknown
   * @param reportAge the age of its latest report, null if it never reported
   * @param fresh whether that report is younger than the staleness limit
   * @param inFlight this client's requests in flight on it
   * @param dispatchedSinceReport this client's requests sent to it since the report
   * @param completedSinceReport this client's requests completed on it since the report
   * @param saturated whether it is at or above a threshold
   * @param kvCapacityTokens tokens its KV cache holds when full, from a fresh scrape; -1 if
   *     unknown (see {@link io.github.llmrouter.load.EngineDialect} for which engines report it)
   */
  public record ReplicaLoad(String replicaId, int reportedWaiting, int effectiveQueue, int running,
      double kvUsage, @Nullable Duration reportAge, boolean fresh, int inFlight,
      long dispatchedSinceReport, long completedSinceReport, boolean saturated,
      long kvCapacityTokens) {
    /**
     * Creates one replica's entry.
     *
     * @param replicaId the replica's id
     * @param reportedWaiting waiting requests in its latest report, -1 if none or unknown
     * @param effectiveQueue its effective queue, -1 if unknown (no fresh report)
     * @param running running requests in its latest report, -1 if none or unknown
     * @param kvUsage KV-cache usage in its latest fresh report, NaN if unknown
     * @param reportAge the age of its latest report, null if it never reported
     * @param fresh whether that report is younger than the staleness limit
     * @param inFlight this client's requests in flight on it
     * @param dispatchedSinceReport this client's requests sent to it since the report
     * @param completedSinceReport this client's requests completed on it since the report
     * @param saturated whether it is at or above a threshold
     * @param kvCapacityTokens its KV cache's capacity in tokens, -1 if unknown
     */
    public ReplicaLoad {
      requireNonNull(replicaId, "replicaId");
    }

    /**
     * Creates one replica's entry whose KV capacity is unknown.
     *
     * @param replicaId the replica's id
     * @param reportedWaiting waiting requests in its latest report, -1 if none or unknown
     * @param effectiveQueue its effective queue, -1 if unknown (no fresh report)
     * @param running running requests in its latest report, -1 if none or unknown
     * @param kvUsage KV-cache usage in its latest fresh report, NaN if unknown
     * @param reportAge the age of its latest report, null if it never reported
     * @param fresh whether that report is younger than the staleness limit
     * @param inFlight this client's requests in flight on it
     * @param dispatchedSinceReport this client's requests sent to it since the report
     * @param completedSinceReport this client's requests completed on it since the report
     * @param saturated whether it is at or above a threshold
     */
    public ReplicaLoad(String replicaId, int reportedWaiting, int effectiveQueue, int running,
        double kvUsage, @Nullable Duration reportAge, boolean fresh, int inFlight,
        long dispatchedSinceReport, long completedSinceReport, boolean saturated) {
      this(replicaId, reportedWaiting, effectiveQueue, running, kvUsage, reportAge, fresh,
          inFlight, dispatchedSinceReport, completedSinceReport, saturated, -1);
    }
  }
}
