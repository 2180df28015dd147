package io.github.llmrouter.routing;

import io.github.llmrouter.internal.util.Hashing;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * One client's approximate memory of which replicas recently received which prompt blocks: a
 * bounded, set-associative table from chained block hash to the replicas (as bits of up to 64
 * slots) that received it, the time it was last sent anywhere, and how often the block that
 * follows it has changed (which tells a shared system prompt from a conversation).
 *
 * <p><b>Memory.</b> {@code capacity} entries of {@value #BYTES_PER_ENTRY} bytes, allocated once;
 * an entry is a set of {@value #WAYS} and a new block replaces the least recently sent one of its
 * set, so the table forgets the blocks least recently sent as a replica's LRU cache does.
 *
 * <p><b>Concurrency.</b> Lock-free and wait-free: reads and writes are single array accesses
 * (opaque, so never torn; a key is published after its fields), and concurrent writers to one set
 * may lose an update, which makes a prediction slightly worse and never breaks one. It is an approximation by design: a replica's
 * real cache also sees other clients' requests and evicts on its own schedule; callers weigh what
 * it says by what replicas report back.
 */
final class PrefixIndex {
  /** Entries per set: {@value}. */
  static final int WAYS = 8;
  /** Bytes per entry: key, holder bits, stamp and successor record: {@value}. */
  static final int BYTES_PER_ENTRY = 8 + 8 + 4 + 4;
  /** The most slots (replicas) an entry records: {@value}. */
  static final int SLOTS = 64;
  /** Changes of the block that follows a block after which it counts as shared: {@value}. */
  static final int SHARED_SUCCESSORS = 4;

  private static final VarHandle LONGS = MethodHandles.arrayElementVarHandle(long[].class);

  /**
   * Three longs per entry, so that one entry is one cache line at most and the table one array
   * (no per-array overhead, one humongous region run in G1): the key; the holder bits; when the
   * entry was last sent anywhere in {@link #tick ticks} (upper 32 bits), then the last
   * successor's fingerprint (24 bits) and the successor changes seen (lower 8 bits).
   */
  private final long[] table;
  private final int setMask;

  /** An index of {@link #capacityFor capacityFor(capacity)} entries. */
  PrefixIndex(int capacity) {
    int entries = capacityFor(capacity);
    this.table = new long[3 * entries];
    this.setMask = entries / WAYS - 1;
  }

  /** {@code capacity} rounded up to a power of two, at least 64. */
  static int capacityFor(int capacity) {
    int c = Math.max(64, capacity);
    return Integer.highestOneBit(c - 1) << 1;
  }

  /** Entries the index holds at most. */
  int capacity() {
    return table.length / 3;
  }

  /** Bytes the index's table takes: {@link #capacity()} × {@value #BYTES_PER_ENTRY}. */
  long bytes() {
    return (long) capacity() * BYTES_PER_ENTRY;
  }

  /** Index times: nanoseconds in units of about a millisecond, wrapping after 50 days. */
  static int tick(long nanos) {
    return (int) (nanos >>> 20);
  }

  /** Ticks from {@code stamp} to {@code now}, correct across one wrap. */
  static int age(int stamp, int now) {
    return now - stamp;
  }

  private static long keyOf(long hash) {
    return hash == 0 ? 1 : hash; // 0 marks an empty entry
  }

  /** The table offset of the first entry of {@code key}'s set. */
  private int setOf(long key) {
    return ((int) (key ^ (key >>> 32)) & setMask) * (3 * WAYS);
  }

  /** The table offset of {@code key}'s entry, or -1. */
  private int find(long key) {
    int base = setOf(key);
    for (int e = base; e < base + 3 * WAYS; e += 3) {
      if ((long) LONGS.getAcquire(table, e) == key) return e;
    }
    return -1;
  }

  private long holdersAt(int e) {
    return (long) LONGS.getOpaque(table, e + 1);
  }

  private long metaAt(int e) {
    return (long) LONGS.getOpaque(table, e + 2);
  }

  private static int stampOf(long meta) {
    return (int) (meta >>> 32);
  }

  private static int successorsOf(long meta) {
    return (int) meta;
  }

  private static long meta(int stamp, int successors) {
    return (long) stamp << 32 | (successors & 0xFFFFFFFFL);
  }

  /**
   * The slots holding block {@code hash} whose copy is still valid: sent to them less than their
   * horizon ago, and since they were last reset; 0 if none.
   */
  long holders(long hash, int now, Slots slots) {
    int e = find(keyOf(hash));
    if (e < 0) return 0;
    long bits = holdersAt(e);
    if (bits == 0) return 0;
    int stamp = stampOf(metaAt(e));
    return bits & slots.validAt(stamp, age(stamp, now));
  }

  /** How many ticks before {@code now} block {@code hash} was last sent anywhere; -1 if unknown. */
  int ageOf(long hash, int now) {
    int e = find(keyOf(hash));
    return e < 0 ? -1 : Math.max(0, age(stampOf(metaAt(e)), now));
  }

  /**
   * Whether the block recorded after block {@code hash} has changed at least {@value
   * #SHARED_SUCCESSORS} times (or a block recorded after it is shared): the head of many prompts,
   * such as a shared system prompt.
   */
  boolean isShared(long hash) {
    int e = find(keyOf(hash));
    return e >= 0 && (successorsOf(metaAt(e)) & 0xFF) >= SHARED_SUCCESSORS;
  }

  /**
   * Records that the first {@code n} blocks of {@code hashes} were sent to {@code slot} at {@code
   * now}: each block's entry gains the slot and the time, and notes the block that followed it. A
   * block found shared makes the blocks before it shared too (they are its prefix), so that the
   * shared blocks of a prompt always come first.
   */
  void record(long[] hashes, int n, int slot, int now, Slots slots) {
    long bit = 1L << slot;
    boolean sharedBelow = false;
    for (int i = n - 1; i >= 0; i--) {
      long key = keyOf(hashes[i]);
      int next = i + 1 < n ? fingerprint(hashes[i + 1]) : 0;
      int base = setOf(key);
      int e = -1;
      int oldest = -1;
      int oldestAge = -1;
      for (int w = base; w < base + 3 * WAYS; w += 3) {
        long k = (long) LONGS.getAcquire(table, w);
        if (k == key) {
          e = w;
          break;
        }
        int a = k == 0 ? Integer.MAX_VALUE : age(stampOf(metaAt(w)), now);
        if (a > oldestAge) {
          oldestAge = a;
          oldest = w;
        }
      }
      if (e >= 0) {
        long m = metaAt(e);
        int stamp = stampOf(m);
        // Holders whose copy has lapsed would be revived by the new stamp: drop them first.
        long kept = holdersAt(e) & slots.validAt(stamp, age(stamp, now));
        LONGS.setOpaque(table, e + 1, kept | bit);
        int s = successorsOf(m);
        int updated = s;
        if (next != 0 && (s & 0xFFFFFF00) != next) {
          int count = Math.min(0xFF, (s & 0xFF) + ((s & 0xFFFFFF00) == 0 ? 0 : 1));
          updated = next | count;
        }
        if (sharedBelow && (updated & 0xFF) < SHARED_SUCCESSORS) {
          updated = (updated & 0xFFFFFF00) | SHARED_SUCCESSORS;
        }
        LONGS.setOpaque(table, e + 2, meta(now, updated));
        sharedBelow = (updated & 0xFF) >= SHARED_SUCCESSORS;
      } else {
        // A new block replaces the set's least recently sent one.
        LONGS.setOpaque(table, oldest, 0L);
        LONGS.setOpaque(table, oldest + 1, bit);
        LONGS.setOpaque(table, oldest + 2,
            meta(now, next | (sharedBelow ? SHARED_SUCCESSORS : 0)));
        LONGS.setRelease(table, oldest, key); // readers that see the key see its fields
      }
    }
  }

  /** A non-zero 24-bit fingerprint of a block hash, in the upper bits of an int. */
  private static int fingerprint(long hash) {
    int f = (int) (Hashing.mix64(hash) >>> 40) << 8;
    return f == 0 ? 0x100 : f;
  }

  /**
   * The deepest block of {@code hashes[0, n)} each slot holds, assuming (as chained hashes make
   * near certain) that a slot holding a block holds the blocks before it: {@code depth[slot]} is
   * set to the number of leading blocks held, for the slots holding at least the first block, and
   * left alone for the others. Costs a binary search per distinct depth: a handful of look-ups.
   *
   * @return the slots holding at least the first block
   */
  long depths(long[] hashes, int n, int now, Slots slots, int[] depth) {
    if (n == 0) return 0;
    long first = holders(hashes[0], now, slots);
    if (first == 0) return 0;
    long last = n == 1 ? first : holders(hashes[n - 1], now, slots) & first;
    setDepth(last, n, depth);
    if (first != last) split(hashes, 0, n - 1, first, last, now, slots, depth);
    return first;
  }

  /**
   * Slots in {@code atLo} hold block {@code lo}, those in {@code atHi} (a subset) block {@code hi};
   * finds where each slot in {@code atLo} but not in {@code atHi} stops.
   */
  private void split(long[] hashes, int lo, int hi, long atLo, long atHi, int now, Slots slots,
      int[] depth) {
    while (hi - lo > 1) {
      int mid = (lo + hi) >>> 1;
      long atMid = (holders(hashes[mid], now, slots) & atLo) | atHi;
      if (atMid != atHi) split(hashes, mid, hi, atMid, atHi, now, slots, depth);
      if (atMid == atLo) return; // nobody stops before mid
      hi = mid;
      atHi = atMid;
    }
    setDepth(atLo & ~atHi, lo + 1, depth);
  }

  private static void setDepth(long bits, int value, int[] depth) {
    while (bits != 0) {
      depth[Long.numberOfTrailingZeros(bits)] = value;
      bits &= bits - 1;
    }
  }

  /**
   * Which slots' copies are valid, per slot: how long a copy lasts (its horizon) and when the slot
   * was last reset (a replica restarted, or the slot was given to another replica).
   */
  interface Slots {
    /** The slots whose copy of an entry stamped {@code stamp}, {@code age} ticks old, is valid. */
    long validAt(int stamp, int age);
  }
}
