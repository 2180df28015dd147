package io.github.llmrouter.internal.load;

import io.github.llmrouter.load.LoadReport;
import io.github.llmrouter.load.Saturation;
import io.github.llmrouter.observe.FleetSnapshot;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;

/** Takes a client's {@link FleetSnapshot} from its {@link LocalLoad}. Stateless. */
public final class FleetSnapshots {
  private FleetSnapshots() {}

  /**
   * The snapshot of {@code load} now: one pass over its replicas.
   *
   * @param load a client's load view
   * @param models what each replica serves, by replica id (absent: nothing declared or listed)
   * @param saturation when a replica counts as saturated
   * @param scrapeFailures metrics scrapes that failed so far
   * @param malformedMetricsLines metrics lines skipped as malformed so far
   * @return an immutable snapshot
   */
  public static FleetSnapshot of(LocalLoad load, Map<String, Set<String>> models,
      Saturation saturation, long scrapeFailures, long malformedMetricsLines) {
    long now = load.ticker().read();
    int n = load.replicas().size();
    List<FleetSnapshot.ReplicaLoad> list = new ArrayList<>(n);
    long total = 0;
    int reporting = 0;
    int saturated = 0;
    for (int i = 0; i < n; i++) {
      LoadReport last = load.lastReport(i);
      boolean fresh = load.hasFreshReport(i);
      int q = load.effectiveQueue(i);
      double kv = load.kvUsage(i);
      boolean sat = saturation.isSaturated(q, kv);
      if (fresh && q >= 0) {
        total += q;
        reporting++;
      }
      if (sat) saturated++;
      String id = load.replicas().get(i).id();
      list.add(new FleetSnapshot.ReplicaLoad(id,
          last == null ? -1 : last.waiting(), q, last == null ? -1 : last.running(), kv,
          last == null ? null : Duration.ofNanos(Math.max(0, now - last.receivedNanos())), fresh,
          load.inFlight(i), load.dispatchedSinceReport(i), load.completedSinceReport(i), sat,
          load.kvCapacityTokens(i), models.getOrDefault(id, Set.of())));
    }
    return new FleetSnapshot(list, total, reporting == 0 ? 0 : (double) total / reporting,
        reporting, saturated, saturation.queueThreshold(), saturation.kvUsageThreshold(),
        scrapeFailures, malformedMetricsLines);
  }
}
