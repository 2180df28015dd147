package io.github.llmrouter.emulator;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The emulated KV cache of one replica: a bounded LRU of prompt blocks, each identified by a
 * chained hash (block i's hash covers blocks 0..i, as in vLLM's automatic prefix caching), so a
 * block is only ever reused behind the very same prefix.
 *
 * <p>Only full blocks are cached, as in vLLM: the tail of a prompt shorter than a block is always
 * prefilled. A plain lock guards the map; this is a test server, not the routing hot path.
 */
final class EmulatedPrefixCache {
  private final int blockChars;
  private final int capacity;
  private final LinkedHashMap<Long, Boolean> lru; // guarded by this

  EmulatedPrefixCache(int blockChars, int capacity) {
    this.blockChars = blockChars;
    this.capacity = capacity;
    this.lru = new LinkedHashMap<>(16, 0.75f, true) {
      @Override
      protected boolean removeEldestEntry(Map.Entry<Long, Boolean> eldest) {
        return size() > EmulatedPrefixCache.this.capacity;
      }
    };
  }

  /** The chained hashes of the full blocks of {@code prompt}; the model seeds the chain. */
  long[] blockHashes(String model, CharSequence prompt) {
    int n = prompt.length() / blockChars;
    long[] hashes = new long[n];
    long h = ContentHash.of(model, 0);
    for (int i = 0; i < n; i++) {
      h = ContentHash.of(prompt, i * blockChars, (i + 1) * blockChars, h);
      hashes[i] = h;
    }
    return hashes;
  }

  /** The number of leading blocks present; the hits are touched, as an engine's lookup does. */
  synchronized int cachedPrefixBlocks(long[] hashes) {
    int n = 0;
    while (n < hashes.length && lru.get(hashes[n]) != null) n++;
    return n;
  }

  /** Inserts or touches every block of a prefilled prompt, evicting least recently used ones. */
  synchronized void insert(long[] hashes) {
    if (capacity == 0) return;
    for (long h : hashes) lru.put(h, Boolean.TRUE);
  }

  synchronized int usedBlocks() {
    return lru.size();
  }

  int capacity() {
    return capacity;
  }

  int blockChars() {
    return blockChars;
  }
}
