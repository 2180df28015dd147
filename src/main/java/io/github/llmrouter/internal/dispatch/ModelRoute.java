package io.github.llmrouter.internal.dispatch;

import io.github.llmrouter.internal.load.LocalLoad;
import io.github.llmrouter.internal.load.SubsetLoad;
import io.github.llmrouter.replica.Replica;
import io.github.llmrouter.replica.ReplicaSet;
import io.github.llmrouter.routing.Ranking;
import io.github.llmrouter.routing.ReplicaPicker;
import io.github.llmrouter.routing.RoutedAttempt;
import io.github.llmrouter.routing.RoutingPolicy;
import io.github.llmrouter.routing.RoutingRequest;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The routing of one model served by part of the fleet: a picker of the policy over that model's
 * replicas alone (its own ring, key space and load bound) and their load, whose rankings give
 * fleet indices. A request for the model ranks only its replicas instead of skipping the others
 * in a ranking of the whole fleet. Immutable; made with its {@link RoutingTable}.
 */
final class ModelRoute {
  private final ReplicaPicker picker;
  private final SubsetLoad load;
  /** For each replica of the model, its fleet index. */
  private final int[] toFleet;
  /** For each fleet index, the replica's index among the model's, or -1. */
  private final int[] fromFleet;

  private ModelRoute(ReplicaPicker picker, SubsetLoad load, int[] toFleet, int[] fromFleet) {
    this.picker = picker;
    this.load = load;
    this.toFleet = toFleet;
    this.fromFleet = fromFleet;
  }

  /**
   * The route over the replicas at {@code indices} of {@code replicas}.
   *
   * @param indices fleet indices, ascending, at least one
   */
  static ModelRoute of(RoutingPolicy policy, ReplicaSet replicas, LocalLoad fleetLoad,
      int[] indices) {
    List<Replica> part = new ArrayList<>(indices.length);
    int[] fromFleet = new int[replicas.size()];
    Arrays.fill(fromFleet, -1);
    for (int k = 0; k < indices.length; k++) {
      part.add(replicas.get(indices[k]));
      fromFleet[indices[k]] = k;
    }
    return new ModelRoute(policy.newPicker(ReplicaSet.of(part)),
        new SubsetLoad(fleetLoad, indices), indices, fromFleet);
  }

  /** {@return the model's replicas ranked for {@code request}, as fleet indices} */
  Ranking rank(RoutingRequest request) {
    return new FleetIndexed(picker.rank(request, load));
  }

  /** A ranking over the model's replicas seen through fleet indices. */
  private final class FleetIndexed implements Ranking {
    private final Ranking ranking;

    FleetIndexed(Ranking ranking) {
      this.ranking = ranking;
    }

    @Override
    public int next() {
      int i = ranking.next();
      return i < 0 ? i : toFleet[i];
    }

    @Override
    public String reason() {
      return ranking.reason();
    }

    @Override
    public RoutedAttempt sent(int index, long nanos, boolean streamed) {
      return ranking.sent(fromFleet[index], nanos, streamed);
    }

    @Override
    public long predictedCachedTokens() {
      return ranking.predictedCachedTokens();
    }

    @Override
    public double estimatedWaitSeconds() {
      return ranking.estimatedWaitSeconds();
    }

    @Override
    public String versusRunnerUp() {
      return ranking.versusRunnerUp();
    }
  }
}
