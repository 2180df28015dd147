package io.github.llmrouter.sim;

/**
 * A replica's prefix cache of KV blocks, counted in blocks.
 *
 * <p>Blocks are identified by chained keys (block i's key covers blocks 0..i), so a block is a hit
 * only if every earlier block of the prompt hits. Blocks used by running requests are pinned
 * (reference counted) and cannot be evicted; unpinned blocks stay cached and are evicted least
 * recently used first. Output tokens occupy private blocks that are never shared.
 *
 * <p>A request's new prompt blocks are {@link #acquire reserved} when it is admitted (room is made
 * for all of them then) but become visible to {@link #match} only when {@link #register
 * registered}, which the engine does as the chunk that computes them is scheduled, as vLLM V1
 * caches a block when the step computing it is scheduled rather than when its request is admitted.
 *
 * <p>When a request is admitted with more blocks than can be freed (only when the replica has
 * nothing else running, so that an oversized request still makes progress), the cache is
 * over-committed for the duration of that request.
 */
final class PrefixCache {
  private static final class Block {
    final long key;
    int refs;
    Block prev;
    Block next;

    Block(long key) {
      this.key = key;
    }
  }

  private final int capacity;
  /** Blocks by key: a few dozen lookups per request on the engine's hot path. */
  private final LongMap<Block> blocks;
  /** LRU list of unpinned blocks: head is evicted first. */
  private final Block lru = new Block(0);
  private int pinned;
  private int privateBlocks;
  /** Blocks set aside for admitted requests' prompt blocks not registered yet. */
  private int reserved;

  PrefixCache(int capacityBlocks) {
    this.capacity = capacityBlocks;
    this.blocks = new LongMap<>(capacityBlocks);
    lru.prev = lru;
    lru.next = lru;
  }

  int capacity() {
    return capacity;
  }

  /** Blocks cached or reserved: pinned, evictable, private and reserved for prompts. */
  int used() {
    return blocks.size() + privateBlocks + reserved;
  }

  /**
   * The fraction of blocks held by running requests (pinned prompt blocks and reserved output
   * blocks), as vLLM's {@code kv_cache_usage_perc} counts: cached blocks nobody uses are free.
   */
  double usage() {
    return capacity == 0 ? 0
        : Math.min(1.0, (double) (pinned + privateBlocks + reserved) / capacity);
  }

  int pinned() {
    return pinned;
  }

  boolean contains(long key) {
    return blocks.containsKey(key);
  }

  /** The number of leading blocks of {@code chain} present in the cache. */
  int match(long[] chain) {
    int m = 0;
    while (m < chain.length && blocks.containsKey(chain[m])) m++;
    return m;
  }

  /**
   * Whether a request whose first {@code matched} blocks hit can be admitted now without evicting
   * pinned blocks: its new prompt blocks and {@code outputBlocks} fit in what is free or evictable.
   */
  boolean fits(long[] chain, int matched, int outputBlocks) {
    int matchedUnpinned = 0;
    for (int i = 0; i < matched; i++) {
      if (blocks.get(chain[i]).refs == 0) matchedUnpinned++;
    }
    long need = (long) chain.length - matched + outputBlocks;
    return need <= (long) capacity - pinned - privateBlocks - reserved - matchedUnpinned;
  }

  /**
   * Admits a prompt whose first {@code matched} blocks are cached: pins those, and reserves room
   * (evicting least recently used unpinned blocks) for its other blocks, which {@link #register}
   * adds as they are computed, and for {@code outputBlocks} private blocks.
   */
  void acquire(long[] chain, int matched, int outputBlocks) {
    for (int i = 0; i < matched; i++) {
      Block b = blocks.get(chain[i]);
      if (b.refs == 0) unlink(b);
      if (b.refs++ == 0) pinned++;
    }
    int fresh = chain.length - matched;
    makeRoom(fresh + outputBlocks);
    reserved += fresh;
    privateBlocks += outputBlocks;
  }

  /**
   * Makes blocks {@code from} to {@code to - 1} of an admitted prompt visible to {@link #match},
   * pinned, using the room reserved for them. A block another request registered meanwhile is
   * shared instead, and its reserved room freed.
   */
  void register(long[] chain, int from, int to) {
    for (int i = from; i < to; i++) {
      reserved--;
      Block b = blocks.get(chain[i]);
      if (b == null) {
        b = new Block(chain[i]);
        blocks.put(chain[i], b);
      } else if (b.refs == 0) {
        unlink(b);
      }
      if (b.refs++ == 0) pinned++;
    }
  }

  /**
   * Unpins a prompt's first {@code registered} blocks (admitted with {@link #acquire}, registered
   * up to there), frees the room still reserved for the rest and its private blocks. Blocks are
   * released from the last to the first, so that the prompt's head becomes most recently used and
   * is evicted last: a later request sharing only the head keeps its hits.
   */
  void release(long[] chain, int registered, int outputBlocks) {
    for (int i = registered - 1; i >= 0; i--) {
      Block b = blocks.get(chain[i]);
      if (--b.refs == 0) {
        pinned--;
        linkLast(b);
      }
    }
    reserved -= chain.length - registered;
    privateBlocks -= outputBlocks;
  }

  private void makeRoom(int n) {
    while (used() + n > capacity && lru.next != lru) {
      Block victim = lru.next;
      unlink(victim);
      blocks.remove(victim.key);
    }
  }

  private void unlink(Block b) {
    b.prev.next = b.next;
    b.next.prev = b.prev;
    b.prev = null;
    b.next = null;
  }

  private void linkLast(Block b) {
    b.prev = lru.prev;
    b.next = lru;
    lru.prev.next = b;
    lru.prev = b;
  }
}
