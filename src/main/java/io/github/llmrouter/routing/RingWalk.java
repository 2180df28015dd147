package io.github.llmrouter.routing;

/**
 * A walk clockwise round a {@link HashRing} from one start position, one position per {@link
 * #step()}, with the replicas passed over in the current call: each replica is examined at most
 * once per call however many points it owns. One ranking owns it; not thread-safe.
 */
final class RingWalk {
  private final HashRing ring;
  private final int start;
  private final int replicas;
  private int walked;
  private final SeenSet rejected = new SeenSet();

  RingWalk(HashRing ring, int start, int replicas) {
    this.ring = ring;
    this.start = start;
    this.replicas = replicas;
  }

  /** The start position. */
  int start() {
    return start;
  }

  /** Starts a call: the replicas rejected in the previous one may be examined again. */
  void newCall() {
    rejected.clear();
  }

  /** Whether positions remain: a walk goes round the ring once, across calls. */
  boolean hasNext() {
    return walked < ring.size();
  }

  /** The owner of the next position. */
  int step() {
    int position = start + walked;
    int size = ring.size();
    if (position >= size) position -= size;
    walked++;
    return ring.ownerAt(position);
  }

  /** Whether replica {@code i} was passed over in this call. */
  boolean isRejected(int i) {
    return rejected.contains(i);
  }

  /** Passes over replica {@code i} for the rest of this call. */
  void reject(int i) {
    rejected.add(i, replicas);
  }
}
