package io.github.llmrouter.routing;

import io.github.llmrouter.internal.util.Hashing;
import io.github.llmrouter.load.LoadView;

/** Shared pieces of the built-in rankings. */
final class Rankings {
  private Rankings() {}

  /**
   * The unseen replica with the smallest queue per unit of weight, where a replica's queue is its
   * effective queue if known and this client's in-flight count otherwise; ties go to the fewest in
   * flight per unit of weight, then the lowest index at or after {@code start}. Without reports,
   * this is the least in-flight load per unit of weight.
   */
  static int leastQueued(LoadView load, double[] inverseWeights, SeenSet seen, int start,
      long now) {
    int n = inverseWeights.length;
    int best = -1;
    double bestQueue = Double.MAX_VALUE;
    double bestInFlight = Double.MAX_VALUE;
    for (int k = 0; k < n; k++) {
      int i = start + k;
      if (i >= n) i -= n;
      if (seen.contains(i)) continue;
      int inFlight = load.inFlight(i);
      int q = load.effectiveQueue(i, now);
      double queue = (q >= 0 ? q : inFlight) * inverseWeights[i];
      double f = inFlight * inverseWeights[i];
      if (queue < bestQueue || (queue == bestQueue && f < bestInFlight)) {
        bestQueue = queue;
        bestInFlight = f;
        best = i;
      }
    }
    return best;
  }

  /** 1 / weight per replica: multiplications instead of divisions in every scan. */
  static double[] inverse(double[] weights) {
    double[] inv = new double[weights.length];
    for (int i = 0; i < inv.length; i++) inv[i] = 1.0 / weights[i];
    return inv;
  }

  static double[] weights(io.github.llmrouter.replica.ReplicaSet replicas) {
    double[] w = new double[replicas.size()];
    for (int i = 0; i < w.length; i++) w[i] = replicas.get(i).weight();
    return w;
  }

  /** SplitMix64 step: a thread-safe, seedable source of well-mixed 64-bit values. */
  static long splitMix(java.util.concurrent.atomic.AtomicLong state) {
    return Hashing.mix64(state.addAndGet(0x9E3779B97F4A7C15L));
  }
}
