package io.github.llmrouter.routing;

import io.github.llmrouter.replica.ReplicaSet;
import java.util.concurrent.atomic.AtomicLong;

/** Each request to the next replica in turn. Ignores weights and load. */
final class RoundRobin implements RoutingPolicy {
  @Override
  public ReplicaPicker newPicker(ReplicaSet replicas) {
    AtomicLong counter = new AtomicLong();
    int n = replicas.size();
    return (request, load) -> new SequentialRanking(
        (int) Math.floorMod(counter.getAndIncrement(), (long) n), n, "round robin");
  }

  @Override
  public String name() {
    return "RoundRobin";
  }

  /** Starts at one index and continues in snapshot order. */
  static final class SequentialRanking implements Ranking {
    private final int start;
    private final int size;
    private final String firstReason;
    private int returned;

    SequentialRanking(int start, int size, String firstReason) {
      this.start = start;
      this.size = size;
      this.firstReason = firstReason;
    }

    @Override
    public int next() {
      if (returned == size) return -1;
      int i = start + returned++;
      return i >= size ? i - size : i;
    }

    @Override
    public String reason() {
      return returned <= 1 ? firstReason : "failover: next replica in order";
    }
  }
}
