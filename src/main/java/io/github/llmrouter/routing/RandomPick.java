package io.github.llmrouter.routing;

import io.github.llmrouter.replica.ReplicaSet;
import java.util.concurrent.atomic.AtomicLong;

/** Each request to a uniformly random replica. Ignores weights and load. */
final class RandomPick implements RoutingPolicy {
  private final long seed;

  RandomPick(long seed) {
    this.seed = seed;
  }

  @Override
  public ReplicaPicker newPicker(ReplicaSet replicas) {
    AtomicLong state = new AtomicLong(seed);
    int n = replicas.size();
    return (request, load) -> new RoundRobin.SequentialRanking(
        (int) Math.floorMod(Rankings.splitMix(state), (long) n), n, "random");
  }

  @Override
  public String name() {
    return "Random";
  }
}
