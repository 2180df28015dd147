package io.github.llmrouter.internal.dispatch;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.llmrouter.internal.load.LocalLoad;
import io.github.llmrouter.internal.load.SubsetLoad;
import io.github.llmrouter.load.LoadView;
import io.github.llmrouter.replica.Replica;
import io.github.llmrouter.replica.ReplicaSet;
import io.github.llmrouter.routing.Fleets;
import io.github.llmrouter.routing.Ranking;
import io.github.llmrouter.routing.RoutedAttempt;
import io.github.llmrouter.routing.RoutingPolicy;
import io.github.llmrouter.routing.RoutingRequest;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** A model served by part of the fleet is ranked over that part, in fleet indices. */
class ModelRouteTest {
  private final ReplicaSet fleet = Fleets.named(5);
  private final LocalLoad load = LocalLoad.of(fleet);

  /** A policy that ranks its replicas by most in flight first and records what it is told. */
  private static final class Recording implements RoutingPolicy {
    final List<ReplicaSet> pickedOver = new ArrayList<>();
    final List<Integer> sent = new ArrayList<>();
    final List<Long> totals = new ArrayList<>();

    @Override
    public io.github.llmrouter.routing.ReplicaPicker newPicker(ReplicaSet replicas) {
      pickedOver.add(replicas);
      return (request, view) -> {
        totals.add(view.totalInFlight());
        return new Ranking() {
          int next;

          @Override
          public int next() {
            return next < replicas.size() ? next++ : -1;
          }

          @Override
          public String reason() {
            return "recorded";
          }

          @Override
          public RoutedAttempt sent(int index, long nanos, boolean streamed) {
            sent.add(index);
            return RoutedAttempt.IGNORED;
          }
        };
      };
    }
  }

  @Test
  void theModelsReplicasAloneAreRankedAndTheOutcomeGoesBackToTheirOwnIndex() {
    Recording policy = new Recording();
    ModelRoute route = ModelRoute.of(policy, fleet, load, new int[] {1, 3, 4});
    assertThat(policy.pickedOver).singleElement().satisfies(part ->
        assertThat(part.replicas()).extracting(Replica::id).containsExactly("r1", "r3", "r4"));
    load.counter(3).acquire();
    load.counter(0).acquire(); // another model's: not this model's load

    Ranking ranking = route.rank(RoutingRequest.of("m", "hello"));
    assertThat(ranking.next()).isEqualTo(1);
    assertThat(ranking.next()).isEqualTo(3);
    assertThat(ranking.next()).isEqualTo(4);
    assertThat(ranking.next()).isEqualTo(-1);
    assertThat(ranking.reason()).isEqualTo("recorded");
    ranking.sent(4, 0, false);
    assertThat(policy.sent).containsExactly(2);
    assertThat(policy.totals).as("the part's in-flight total").containsExactly(1L);
  }

  @Test
  void aPartsLoadIsTheFleetsReadThroughTheIndexMap() {
    load.counter(2).acquire();
    load.counter(2).acquire();
    load.counter(4).acquire();
    LoadView part = new SubsetLoad(load, new int[] {2, 4});
    assertThat(part.inFlight(0)).isEqualTo(2);
    assertThat(part.inFlight(1)).isEqualTo(1);
    assertThat(part.totalInFlight()).isEqualTo(3);
    assertThat(part.effectiveQueue(0)).isEqualTo(load.effectiveQueue(2));
    assertThat(part.reportedLoadPerWeight(0)).as("the policy adds the part up itself").isNaN();
  }

  @Test
  void onlyModelsServedByPartOfTheFleetGetARouteAtMostTheLimit() {
    Map<String, ServedModels.Listing> listings = new java.util.HashMap<>();
    for (int i = 0; i < 5; i++) {
      Replica r = fleet.get(i);
      Set<String> models = i < 2 ? Set.of("all", "a", "x" + i) : Set.of("all", "b");
      listings.put(r.id(), new ServedModels.Listing(r, models));
    }
    ServedModels served = ServedModels.of(fleet, listings, true, false, new java.util.HashSet<>());
    assertThat(served).isNotNull();
    Map<String, int[]> parts = served.partialClaims(64);
    assertThat(parts).containsOnlyKeys("a", "b", "x0", "x1");
    assertThat(parts.get("b")).containsExactly(2, 3, 4);
    assertThat(served.partialClaims(2)).containsOnlyKeys("a", "b");
  }
}
