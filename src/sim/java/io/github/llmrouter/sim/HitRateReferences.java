package io.github.llmrouter.sim;

/** The two hit-rate references of a trace: one infinite shared cache, one shared finite LRU. */
final class HitRateReferences {
  private HitRateReferences() {}

  /** Hit rate with one infinite cache shared by the fleet: the most any routing can achieve. */
  static double ideal(Trace trace, long[][] chains) {
    LongMap<Boolean> seen = new LongMap<>();
    long hits = 0;
    long total = 0;
    for (int i = 0; i < chains.length; i++) {
      TraceRequest r = trace.requests().get(i);
      long[] chain = chains[i];
      int m = 0;
      while (m < chain.length && seen.containsKey(chain[m])) m++;
      hits += cached(r, m, trace.blockTokens());
      total += r.inputTokens();
      for (long k : chain) seen.put(k, Boolean.TRUE);
    }
    return total == 0 ? 0 : (double) hits / total;
  }

  /**
   * Hit rate with one LRU cache of {@code capacityBlocks} shared by the fleet, without pinning or
   * queueing: the realistic ceiling for a finite fleet, where every request could see every
   * replica's cache.
   */
  static double fleetCapacity(Trace trace, long[][] chains, long capacityBlocks) {
    LongLru lru = new LongLru(capacityBlocks, key -> { });
    long hits = 0;
    long total = 0;
    for (int i = 0; i < chains.length; i++) {
      TraceRequest r = trace.requests().get(i);
      long[] chain = chains[i];
      int m = 0;
      while (m < chain.length && lru.contains(chain[m])) m++;
      hits += cached(r, m, trace.blockTokens());
      total += r.inputTokens();
      // Touch from the last block to the first, so that the shared head is evicted last.
      for (int k = chain.length - 1; k >= 0; k--) lru.touch(chain[k], 0);
    }
    return total == 0 ? 0 : (double) hits / total;
  }

  static long cached(TraceRequest r, int matchedBlocks, int blockTokens) {
    return Math.min((long) matchedBlocks * blockTokens, r.inputTokens() - 1L);
  }
}
