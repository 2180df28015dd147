package io.github.llmrouter.sim;

import io.github.llmrouter.internal.load.LocalLoad;
import io.github.llmrouter.load.LoadReport;
import io.github.llmrouter.load.LoadView;
import io.github.llmrouter.replica.ReplicaSet;
import io.github.llmrouter.routing.PromptBlocks;
import io.github.llmrouter.routing.Ranking;
import io.github.llmrouter.routing.ReplicaPicker;
import io.github.llmrouter.routing.RoutingPolicy;
import java.util.function.IntFunction;

/**
 * What the modelled peer policies share: the raw scraped metrics and the clock of the simulated
 * client's {@link LocalLoad}, and a ranking that decides once and then fails over in a fixed order.
 */
final class PeerModels {
  private PeerModels() {}

  /**
   * The client's clock, nanoseconds: the simulator's virtual time when {@code load} is a {@link
   * LocalLoad} (it always is in the simulator), the system's monotonic clock otherwise.
   */
  static long nanos(LoadView load) {
    return load instanceof LocalLoad local ? local.ticker().read() : System.nanoTime();
  }

  /**
   * The waiting queue the replica last reported, as a scraper sees it (not corrected by this
   * client's dispatches since, as {@link LoadView#effectiveQueue} is); 0 if it never reported.
   */
  static int scrapedWaiting(LoadView load, int index) {
    if (load instanceof LocalLoad local) {
      LoadReport r = local.lastReport(index);
      return r == null ? 0 : Math.max(0, r.waiting());
    }
    return Math.max(0, load.effectiveQueue(index));
  }

  /** The KV-cache usage the replica last reported, in [0, 1]; 0 if it never reported. */
  static double scrapedKvUsage(LoadView load, int index) {
    if (load instanceof LocalLoad local) {
      LoadReport r = local.lastReport(index);
      return r == null || Double.isNaN(r.kvUsage()) ? 0 : r.kvUsage();
    }
    double u = load.kvUsage(index);
    return Double.isNaN(u) ? 0 : u;
  }

  /** A modelled peer as a {@link RoutingPolicy}: its name and a fresh picker per fleet size. */
  record Policy(String name, IntFunction<ReplicaPicker> pickers) implements RoutingPolicy {
    @Override
    public ReplicaPicker newPicker(ReplicaSet replicas) {
      return pickers.apply(replicas.size());
    }

    @Override
    public String toString() {
      return name;
    }
  }

  /**
   * A ranking whose first call to {@link #next()} makes the policy's decision ({@link #decide()}:
   * every replica, best first) and whose later calls fail over down that order.
   */
  abstract static class DecidedRanking implements Ranking {
    private int[] order;
    private int returned;
    private String reason = "";

    /** Every replica index once, best first; may update the policy's state for the pick. */
    abstract int[] decide();

    /** Why the first replica of {@link #decide()} was chosen. */
    abstract String firstReason();

    @Override
    public final int next() {
      if (order == null) {
        order = decide();
        reason = firstReason();
      } else {
        reason = "failover: next in the decision's order";
      }
      return returned < order.length ? order[returned++] : -1;
    }

    @Override
    public final String reason() {
      return reason;
    }
  }

  /** Replica indices sorted by {@code key} ascending, ties by index: a failover order. */
  static int[] ascending(double[] key) {
    int[] order = new int[key.length];
    for (int i = 0; i < order.length; i++) {
      // Insertion sort: fleets are small, and it is stable.
      int j = i;
      while (j > 0 && key[order[j - 1]] > key[i]) {
        order[j] = order[j - 1];
        j--;
      }
      order[j] = i;
    }
    return order;
  }

  /**
   * The number of leading blocks of {@code blocks}' whole blocks that {@code present} holds, for a
   * prefix-closed set (holding a block means holding every block before it): a binary search.
   */
  static int presentPrefix(PromptBlocks blocks, java.util.function.LongPredicate present) {
    int lo = 0;
    int hi = blocks.fullBlocks();
    while (lo < hi) {
      int mid = (lo + hi + 1) >>> 1;
      if (present.test(blocks.hash(mid - 1))) lo = mid; else hi = mid - 1;
    }
    return lo;
  }

  /** {@code order} with {@code first} moved to the front. */
  static int[] withFirst(int first, int[] order) {
    int[] out = new int[order.length];
    out[0] = first;
    int k = 1;
    for (int i : order) if (i != first) out[k++] = i;
    return out;
  }
}
