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
import org.jspecify.annotations.Nullable;

/**
 * The routing of one model served by part of the fleet, or loaded on part of it, or of a LoRA
 * adapter: a picker of the policy over that model's replicas alone (its own ring, key space and
 * load bound) and their load, whose rankings give fleet indices; when only some of them have the
 * model loaded (an engine that loads models on demand), those are ranked first and the others
 * after, so that a call makes no replica swap models while one that has it loaded can take it;
 * an adapter's ranking is then ordered by {@link AdapterAffinity}. Immutable; made with its
 * {@link RoutingTable}.
 */
public final class ModelRoute {
  private final Tier first;
  private final @Nullable Tier then;
  /** The model's replicas, fleet indices. */
  private final int[] members;
  private final LocalLoad fleetLoad;
  /** For an adapter, where its calls went; else null. */
  private final @Nullable AdapterAffinity affinity;
  private final long adapterHash;

  private ModelRoute(Tier first, @Nullable Tier then, int[] members, LocalLoad fleetLoad,
      @Nullable AdapterAffinity affinity, String model) {
    this.first = first;
    this.then = then;
    this.members = members;
    this.fleetLoad = fleetLoad;
    this.affinity = affinity;
    this.adapterHash = affinity == null ? 0 : AdapterAffinity.hash(model);
  }

  /**
   * The route of {@code model} over the replicas of {@code part}; {@code affinity} orders its
   * calls if it is an adapter.
   */
  static ModelRoute of(RoutingPolicy policy, ReplicaSet replicas, LocalLoad fleetLoad,
      String model, ServedModels.Part part, AdapterAffinity affinity) {
    int[] loaded = part.loaded();
    AdapterAffinity adapter = part.adapter() ? affinity : null;
    if (loaded == null) {
      return over(policy, replicas, fleetLoad, model, part.replicas(), adapter);
    }
    int[] rest = Arrays.stream(part.replicas())
        .filter(i -> Arrays.binarySearch(loaded, i) < 0).toArray();
    return new ModelRoute(Tier.of(policy, replicas, fleetLoad, loaded),
        Tier.of(policy, replicas, fleetLoad, rest), part.replicas(), fleetLoad, adapter, model);
  }

  /**
   * The route of {@code model} over the replicas at {@code indices} (ascending, at least one) of
   * {@code replicas}, all with the model loaded.
   *
   * @param affinity where an adapter's calls went, if {@code model} is one; else null
   */
  public static ModelRoute over(RoutingPolicy policy, ReplicaSet replicas, LocalLoad fleetLoad,
      String model, int[] indices, @Nullable AdapterAffinity affinity) {
    return new ModelRoute(Tier.of(policy, replicas, fleetLoad, indices), null, indices.clone(),
        fleetLoad, affinity, model);
  }

  /** {@return the model's replicas ranked for {@code request}, as fleet indices} */
  public Ranking rank(RoutingRequest request) {
    Ranking byPolicy = new FleetIndexed(request);
    AdapterAffinity a = affinity;
    return a == null ? byPolicy : a.rank(adapterHash, byPolicy, members, fleetLoad);
  }

  /** Replicas ranked together: a picker over them, their load, and their fleet indices. */
  private static final class Tier {
    final ReplicaPicker picker;
    final SubsetLoad load;
    /** For each replica of the tier, its fleet index. */
    final int[] toFleet;
    /** For each fleet index, the replica's index in the tier, or -1. */
    final int[] fromFleet;

    private Tier(ReplicaPicker picker, SubsetLoad load, int[] toFleet, int[] fromFleet) {
      this.picker = picker;
      this.load = load;
      this.toFleet = toFleet;
      this.fromFleet = fromFleet;
    }

    /** The tier of the replicas at {@code indices} (ascending, at least one) of {@code replicas}. */
    static Tier of(RoutingPolicy policy, ReplicaSet replicas, LocalLoad fleetLoad,
        int[] indices) {
      List<Replica> part = new ArrayList<>(indices.length);
      int[] fromFleet = new int[replicas.size()];
      Arrays.fill(fromFleet, -1);
      for (int k = 0; k < indices.length; k++) {
        part.add(replicas.get(indices[k]));
        fromFleet[indices[k]] = k;
      }
      return new Tier(policy.newPicker(ReplicaSet.of(part)), new SubsetLoad(fleetLoad, indices),
          indices, fromFleet);
    }
  }

  /** The tiers' rankings in turn, seen through fleet indices; the second is made on demand. */
  private final class FleetIndexed implements Ranking {
    private final RoutingRequest request;
    private final Ranking firstRanking;
    private @Nullable Ranking thenRanking;
    /** The ranking that returned the last index. */
    private Ranking last;

    FleetIndexed(RoutingRequest request) {
      this.request = request;
      this.firstRanking = first.picker.rank(request, first.load);
      this.last = firstRanking;
    }

    @Override
    public int next() {
      int i = firstRanking.next();
      if (i >= 0) {
        last = firstRanking;
        return first.toFleet[i];
      }
      Tier t = then;
      if (t == null) return -1;
      Ranking r = thenRanking;
      if (r == null) thenRanking = r = t.picker.rank(request, t.load);
      i = r.next();
      if (i < 0) return -1;
      last = r;
      return t.toFleet[i];
    }

    @Override
    public String reason() {
      return last.reason();
    }

    @Override
    public RoutedAttempt sent(int index, long nanos, boolean streamed) {
      int k = first.fromFleet[index];
      if (k >= 0) return firstRanking.sent(k, nanos, streamed);
      Tier t = then;
      Ranking r = thenRanking;
      if (t == null || r == null || t.fromFleet[index] < 0) return RoutedAttempt.IGNORED;
      return r.sent(t.fromFleet[index], nanos, streamed);
    }

    @Override
    public long predictedCachedTokens() {
      return last.predictedCachedTokens();
    }

    @Override
    public double estimatedWaitSeconds() {
      return last.estimatedWaitSeconds();
    }

    @Override
    public String versusRunnerUp() {
      return last.versusRunnerUp();
    }
  }
}
