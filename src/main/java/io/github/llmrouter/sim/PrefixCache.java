package io.github.llmrouter.sim;

import java.util.HashMap;

/**
 * A replica's prefix cache of KV blocks, counted in blocks.
 *
 * <p>Blocks are identified by chained keys (block i's key covers blocks 0..i), so a block is a hit
 * only if every earlier block of the prompt hits. Blocks used by running requests are pinned
 * (reference counted) and cannot be evicted; unpinned blocks stay cached and are evicted least
 * recently used first. Output tokens occupy private blocks that are never shared.
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
  private final HashMap<Long, Block> blocks = new HashMap<>();
  /** LRU list of unpinned blocks: head is evicted first. */
  private final Block lru = new Block(0);
  private int pinned;
  private int privateBlocks;

  PrefixCache(int capacityBlocks) {
    this.capacity = capacityBlocks;
    lru.prev = lru;
    lru.next = lru;
  }

  int capacity() {
    return capacity;
  }

  /** Blocks cached or reserved: pinned, evictable and private. */
  int used() {
    return blocks.size() + privateBlocks;
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
    return need <= (long) capacity - pinned - privateBlocks - matchedUnpinned;
  }

  /**
   * Pins the prompt's blocks, inserting the ones not cached (evicting least recently used unpinned
   * blocks to make room), and reserves {@code outputBlocks} private blocks.
   */
  void acquire(long[] chain, int outputBlocks) {
    for (long key : chain) {
      Block b = blocks.get(key);
      if (b == null) {
        b = new Block(key);
        makeRoom(1);
        blocks.put(key, b);
      } else if (b.refs == 0) {
        unlink(b);
      }
      if (b.refs++ == 0) pinned++;
    }
    makeRoom(outputBlocks);
    privateBlocks += outputBlocks;
  }

  /**
   * Unpins the prompt's blocks and frees the private ones. Blocks are released from the last to the
   * first, so that the prompt's head becomes most recently used and is evicted last: a later
   * request sharing only the head keeps its hits.
   */
  void release(long[] chain, int outputBlocks) {
    for (int i = chain.length - 1; i >= 0; i--) {
      Block b = blocks.get(chain[i]);
      if (--b.refs == 0) {
        pinned--;
        linkLast(b);
      }
    }
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
