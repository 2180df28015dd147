package io.github.llmrouter.sim;

import java.util.List;
import java.util.Locale;

/**
 * The outcome of one {@link Simulator#run}: the trace's hit-rate references and one {@link
 * PolicyResult} per policy, in policy order. Immutable.
 */
public final class SimulationReport {
  private final String settings;
  private final double idealHitRate;
  private final double fleetCapacityHitRate;
  private final List<PolicyResult> results;
  private final List<double[]> sortedTtfts;
  private final long elapsedMillis;

  SimulationReport(String settings, double idealHitRate, double fleetCapacityHitRate,
      List<PolicyResult> results, List<double[]> sortedTtfts, long elapsedMillis) {
    this.settings = settings;
    this.idealHitRate = idealHitRate;
    this.fleetCapacityHitRate = fleetCapacityHitRate;
    this.results = List.copyOf(results);
    this.sortedTtfts = List.copyOf(sortedTtfts);
    this.elapsedMillis = elapsedMillis;
  }

  /** A one-line description of the run's settings. */
  public String settings() {
    return settings;
  }

  /** The hit rate of one infinite cache shared by the whole fleet. */
  public double idealHitRate() {
    return idealHitRate;
  }

  /** The hit rate of one shared LRU cache as large as all replicas' caches together. */
  public double fleetCapacityHitRate() {
    return fleetCapacityHitRate;
  }

  public List<PolicyResult> results() {
    return results;
  }

  /** The result of the policy named {@code name}. */
  public PolicyResult result(String name) {
    for (PolicyResult r : results) if (r.policy().equals(name)) return r;
    throw new IllegalArgumentException("no policy named '" + name + "' in this report");
  }

  /** Wall-clock time the run took (not part of {@link #toTable()}, which is deterministic). */
  public long elapsedMillis() {
    return elapsedMillis;
  }

  /** Each policy's TTFTs, sorted, in policy order (for charts). */
  List<double[]> sortedTtfts() {
    return sortedTtfts;
  }

  /**
   * A fixed-width text table, one row per policy, the client's default policy marked {@code *};
   * identical for identical runs.
   */
  public String toTable() {
    int width = 14;
    for (PolicyResult r : results) width = Math.max(width, r.policy().length() + 2);
    StringBuilder s = new StringBuilder();
    s.append(settings).append('\n');
    s.append(String.format(Locale.ROOT, "hit-rate references: ideal %.1f%%, fleet-capacity %.1f%%%n",
        idealHitRate * 100, fleetCapacityHitRate * 100));
    s.append(String.format(Locale.ROOT, "%-" + width + "s %7s %6s %9s %8s %8s %8s %9s %10s %7s %8s %9s%n",
        "policy", "hit", "/ideal", "TTFT mean", "p50", "p99", "E2E p99", "queue", "out tok/s",
        "imbal", "SLO met", "goodput"));
    String defaultPolicy = null;
    for (PolicyResult r : results) {
      if (r.clientDefault()) defaultPolicy = r.policy();
      s.append(String.format(Locale.ROOT, "%-" + width + "s %6.1f%% %5.0f%% %8.3fs %7.3fs %7.2fs %7.1fs"
          + " %8.3fs %10.0f %7.2f %7.1f%% %7.2f/s%n",
          r.policy() + (r.clientDefault() ? " *" : ""), r.hitRate() * 100,
          r.hitRateOfIdeal() * 100, r.ttftMean(), r.ttftP50(), r.ttftP99(), r.e2eP99(),
          r.queueWaitMean(), r.throughput(), r.loadImbalance(), r.sloAttainment() * 100,
          r.goodput()));
    }
    if (defaultPolicy != null) {
      s.append("* = the policy LlmClient uses by default (").append(defaultPolicy).append(")\n");
    }
    if (results.stream().anyMatch(r -> r.hedgedShare() > 0)) {
      s.append("hedged requests:");
      for (PolicyResult r : results) {
        s.append(String.format(Locale.ROOT, " %s %.2f%%", r.policy(), r.hedgedShare() * 100));
      }
      s.append('\n');
    }
    return s.toString();
  }

  @Override
  public String toString() {
    return toTable();
  }
}
