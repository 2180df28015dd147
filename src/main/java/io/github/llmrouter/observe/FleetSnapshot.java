package io.github.llmrouter.observe;

import static java.util.Objects.requireNonNull;

import io.github.llmrouter.load.Saturation;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
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
   * The models the replicas serve, as the client routes by them (see {@link ReplicaLoad#models()}).
   *
   * @return the model names, sorted; empty if no replica declares or lists any
   * @since 0.3.0
   */
  public Set<String> models() {
    Set<String> all = new TreeSet<>();
    for (ReplicaLoad r : replicas) all.addAll(r.models());
    return all;
  }

  /**
   * The part of the fleet that serves {@code model}, with its own totals: the replicas that
   * declare or list it, or, if none does, those that declare and list nothing (they take any
   * model). Its {@link #replicasFor(double)} is the autoscaling signal of that model's replicas.
   * The scrape counters are the whole client's.
   *
   * @param model a model name; not null
   * @return a snapshot of those replicas, empty if none serves the model
   * @since 0.3.0
   */
  public FleetSnapshot forModel(String model) {
    requireNonNull(model, "model");
    boolean listed = false;
    for (ReplicaLoad r : replicas) listed |= r.models().contains(model);
    List<ReplicaLoad> part = new ArrayList<>();
    long total = 0;
    int reporting = 0;
    int saturatedPart = 0;
    for (ReplicaLoad r : replicas) {
      if (listed ? !r.models().contains(model) : !r.models().isEmpty()) continue;
      part.add(r);
      if (r.fresh() && r.effectiveQueue() >= 0) {
        total += r.effectiveQueue();
        reporting++;
      }
      if (r.saturated()) saturatedPart++;
    }
    return new FleetSnapshot(part, total, reporting == 0 ? 0 : (double) total / reporting,
        reporting, saturatedPart, queueThreshold, kvUsageThreshold, scrapeFailures,
        malformedMetricsLines);
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
   * @param models the models it serves as the client routes by them: those it declares, else
   *     those it last listed at {@code /v1/models}; empty if neither (it takes any model no
   *     replica declares or lists)
   */
  public record ReplicaLoad(String replicaId, int reportedWaiting, int effectiveQueue, int running,
      double kvUsage, @Nullable Duration reportAge, boolean fresh, int inFlight,
      long dispatchedSinceReport, long completedSinceReport, boolean saturated,
      long kvCapacityTokens, Set<String> models) {
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
     * @param models the models it serves as the client routes by them; copied
     */
    public ReplicaLoad {
      requireNonNull(replicaId, "replicaId");
      models = Set.copyOf(requireNonNull(models, "models"));
    }

    /**
     * Creates one replica's entry that serves no declared or listed model.
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
    public ReplicaLoad(String replicaId, int reportedWaiting, int effectiveQueue, int running,
        double kvUsage, @Nullable Duration reportAge, boolean fresh, int inFlight,
        long dispatchedSinceReport, long completedSinceReport, boolean saturated,
        long kvCapacityTokens) {
      this(replicaId, reportedWaiting, effectiveQueue, running, kvUsage, reportAge, fresh,
          inFlight, dispatchedSinceReport, completedSinceReport, saturated, kvCapacityTokens,
          Set.of());
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
          inFlight, dispatchedSinceReport, completedSinceReport, saturated, -1, Set.of());
    }
  }
}
