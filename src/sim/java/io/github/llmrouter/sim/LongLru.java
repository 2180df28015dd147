package io.github.llmrouter.sim;

/**
 * A set of {@code long} keys in the order they were last touched, each with a {@code long} stamp,
 * optionally bounded: adding past the capacity drops the least recently touched key. It is the
 * LRU of the modelled peers' block indexes (llm-d's per-server LRU, Dynamo's expiring index, whose
 * keys all live equally long, so touch order is expiry order) and of the fleet-capacity hit-rate
 * reference. Not thread-safe.
 */
final class LongLru {
  private static final class Node {
    final long key;
    long stamp;
    Node prev;
    Node next;

    Node(long key) {
      this.key = key;
    }
  }

  /** Told of each key the capacity bound drops. */
  interface Eviction {
    void evicted(long key);
  }

  private final LongMap<Node> nodes = new LongMap<>();
  private final Node head = new Node(0);
  private final long capacity;
  private final Eviction eviction;

  /** Unbounded. */
  LongLru() {
    this(Long.MAX_VALUE, key -> { });
  }

  LongLru(long capacity, Eviction eviction) {
    this.capacity = capacity;
    this.eviction = eviction;
    head.prev = head;
    head.next = head;
  }

  int size() {
    return nodes.size();
  }

  boolean contains(long key) {
    return nodes.containsKey(key);
  }

  /**
   * Makes {@code key} the most recently touched, with {@code stamp}; returns whether it is new.
   * Past the capacity, the least recently touched key is dropped and reported.
   */
  boolean touch(long key, long stamp) {
    Node n = nodes.get(key);
    boolean added = n == null;
    if (added) {
      n = new Node(key);
      nodes.put(key, n);
    } else {
      unlink(n);
    }
    n.stamp = stamp;
    n.prev = head.prev;
    n.next = head;
    head.prev.next = n;
    head.prev = n;
    if (added && nodes.size() > capacity) eviction.evicted(removeEldest());
    return added;
  }

  /** Whether there is no key. */
  boolean isEmpty() {
    return head.next == head;
  }

  /** The least recently touched key's stamp (call when not empty). */
  long eldestStamp() {
    return head.next.stamp;
  }

  /** Removes the least recently touched key and returns it (call when not empty). */
  long removeEldest() {
    Node n = head.next;
    unlink(n);
    nodes.remove(n.key);
    return n.key;
  }

  private static void unlink(Node n) {
    n.prev.next = n.next;
    n.next.prev = n.prev;
  }
}
