package io.github.llmrouter.routing;

import io.github.llmrouter.load.LoadView;
import io.github.llmrouter.replica.ReplicaSet;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Each request to the replica with the fewest requests in flight per unit of weight.
 *
 * <p>When the load view has fresh reports, "load" is the replica's effective queue (its reported
 * waiting requests corrected by this client's dispatches since the report), ties broken by this
 * client's in-flight count; a replica without a fresh report counts its in-flight requests.
 *
 * <p>{@link #powerOfTwoChoices(long)} (the default) samples two distinct replicas at random and
 * takes the less loaded: nearly as balanced as a full scan, without herding every client onto the
 * same momentarily idle replica. {@link #fullScan()} examines every replica, ties broken by a
 * rotating start. Failover after the first pick goes to the least loaded replica not yet tried.
 *
 * @since 0.2.0
 */
public final class LeastLoaded implements RoutingPolicy {
  private final boolean fullScan;
  private final long seed;

  private LeastLoaded(boolean fullScan, long seed) {
    this.fullScan = fullScan;
    this.seed = seed;
  }

  /**
   * Power of two choices, sampling with the given seed (repeatable in simulations).
   *
   * @param seed the seed of the sampling
   * @return an immutable, thread-safe policy
   */
  public static LeastLoaded powerOfTwoChoices(long seed) {
    return new LeastLoaded(false, seed);
  }

  /** {@return power-of-two-choices, its random source seeded from the clock} */
  public static LeastLoaded powerOfTwoChoices() {
    return new LeastLoaded(false, System.nanoTime());
  }

  /** {@return a full scan of every replica for each request} */
  public static LeastLoaded fullScan() {
    return new LeastLoaded(true, 0);
  }

  @Override
  public ReplicaPicker newPicker(ReplicaSet replicas) {
    double[] weights = Rankings.weights(replicas);
    double[] inverse = Rankings.inverse(weights);
    AtomicLong state = new AtomicLong(seed);
    return (request, load) -> new LeastLoadedRanking(weights, inverse, load, state, fullScan);
  }

  @Override
  public String name() {
    return fullScan ? "LeastLoaded(full scan)" : "LeastLoaded";
  }

  private static final class LeastLoadedRanking implements Ranking {
    private final double[] weights;
    private final double[] inverse;
    private final LoadView load;
    private final AtomicLong random;
    private final boolean fullScan;
    private final SeenSet seen = new SeenSet();
    private int returned;

    LeastLoadedRanking(double[] weights, double[] inverse, LoadView load, AtomicLong random,
        boolean fullScan) {
      this.weights = weights;
      this.inverse = inverse;
      this.load = load;
      this.random = random;
      this.fullScan = fullScan;
    }

    @Override
    public int next() {
      int n = weights.length;
      if (returned == n) return -1;
      long r = Rankings.splitMix(random);
      int pick;
      if (returned == 0 && !fullScan && n > 1) {
        int a = (int) Math.floorMod(r, (long) n);
        int b = (int) Math.floorMod(r >>> 32, (long) (n - 1));
        if (b >= a) b++;
        pick = less(b, a) ? b : a;
      } else {
        pick = Rankings.leastQueued(load, inverse, seen, (int) Math.floorMod(r, (long) n),
            load.now());
      }
      seen.add(pick, n);
      returned++;
      return pick;
    }

    /** Whether replica x is less loaded than y: by queue, then by in-flight, per unit of weight. */
    private boolean less(int x, int y) {
      int fx = load.inFlight(x);
      int fy = load.inFlight(y);
      long now = load.now();
      int qx = load.effectiveQueue(x, now);
      int qy = load.effectiveQueue(y, now);
      double ax = (qx >= 0 ? qx : fx) / weights[x];
      double ay = (qy >= 0 ? qy : fy) / weights[y];
      return ax < ay || (ax == ay && fx / weights[x] < fy / weights[y]);
    }

    @Override
    public String reason() {
      if (returned > 1) return "failover: least loaded of the rest";
      return fullScan ? "least loaded (full scan)" : "less loaded of two random choices";
    }
  }
}
