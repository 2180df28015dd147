package io.github.llmrouter.sim;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayDeque;
import java.util.HashSet;
import java.util.Set;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class PrefixCacheTest {
  @Test
  void behavesLikeAnLruSetUnderRandomTraffic() {
    // Reference: a set with an explicit recency queue; prompts of one block each, no pinning left.
    int capacity = 50;
    PrefixCache cache = new PrefixCache(capacity);
    ArrayDeque<Long> recency = new ArrayDeque<>();
    Set<Long> present = new HashSet<>();
    SplittableRandom random = new SplittableRandom(42);
    for (int i = 0; i < 20_000; i++) {
      long[] chain = Simulator.chain(new long[] {random.nextInt(120)});
      long key = chain[0];
      assertThat(cache.match(chain)).isEqualTo(present.contains(key) ? 1 : 0);
      int matched = cache.match(chain);
      cache.acquire(chain, matched, 0);
      cache.register(chain, matched, chain.length);
      cache.release(chain, chain.length, 0);
      recency.remove(key);
      recency.addLast(key);
      present.add(key);
      if (present.size() > capacity) present.remove(recency.pollFirst());
      assertThat(cache.used()).isEqualTo(present.size());
    }
  }
}
