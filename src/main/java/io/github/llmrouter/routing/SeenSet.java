package io.github.llmrouter.routing;

import org.jspecify.annotations.Nullable;

/**
 * The replicas a ranking has already returned. Indices below 64 live in one long, so rankings of
 * fleets up to 64 replicas allocate nothing for it; larger fleets allocate a bit array on first use.
 */
final class SeenSet {
  private long low;
  private long @Nullable [] high;

  boolean contains(int index) {
    if (index < 64) return (low & (1L << index)) != 0;
    return high != null && (high[(index >>> 6) - 1] & (1L << index)) != 0;
  }

  void clear() {
    low = 0;
    if (high != null) java.util.Arrays.fill(high, 0L);
  }

  void add(int index, int size) {
    if (index < 64) {
      low |= 1L << index;
    } else {
      if (high == null) high = new long[(size + 63 >>> 6) - 1];
      high[(index >>> 6) - 1] |= 1L << index;
    }
  }
}
