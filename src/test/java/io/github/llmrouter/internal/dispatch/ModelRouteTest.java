package io.github.llmrouter.internal.dispatch;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.llmrouter.internal.load.LocalLoad;
import io.github.llmrouter.internal.load.SubsetLoad;
import io.github.llmrouter.load.LoadReport;
import io.github.llmrouter.load.LoadView;
import io.github.llmrouter.internal.transport.ModelList;
import io.github.llmrouter.replica.Replica;
import io.github.llmrouter.replica.ReplicaSet;
import io.github.llmrouter.routing.Fleets;
import io.github.llmrouter.routing.Ranking;
import io.github.llmrouter.routing.RoutedAttempt;
import io.github.llmrouter.routing.RoutingPolicy;
import io.github.llmrouter.routing.RoutingRequest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
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
    ModelRoute route =
        ModelRoute.of(policy, fleet, load, "m", new ServedModels.Part(new int[] {1, 3, 4}, null, false),
            new AdapterAffinity(fleet));
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
  void everyReadingOfAPartsReplicaIsThatReplicasInTheFleetView() {
    AtomicLong nanos = new AtomicLong(1_000);
    LocalLoad fleetLoad = LocalLoad.of(fleet, nanos::get, Duration.ofSeconds(5));
    fleetLoad.publish(3, new LoadReport(7, 5, 6, 0.25, 3.0, 2.0, 1_000,
        LoadReport.Source.SCRAPE, 4096), false);
    fleetLoad.publish(1, new LoadReport(1, 2, 1, 0.5, Double.NaN, Double.NaN, 1_000,
        LoadReport.Source.SCRAPE, 1024), false);
    nanos.set(1_200);
    fleetLoad.publish(3, new LoadReport(7, 5, 6, 0.25, 7.0, 4.0, 1_000,
        LoadReport.Source.SCRAPE, 4096), false); // two requests admitted, 2 s each
    nanos.set(1_500);
    LoadView part = new SubsetLoad(fleetLoad, new int[] {3, 1});
    long now = part.now();
    assertThat(now).isEqualTo(1_500);
    for (int k = 0; k < 2; k++) {
      int i = k == 0 ? 3 : 1;
      assertThat(part.effectiveQueue(k)).isEqualTo(fleetLoad.effectiveQueue(i)).isPositive();
      assertThat(part.effectiveQueue(k, now)).isEqualTo(fleetLoad.effectiveQueue(i, now));
      assertThat(part.running(k, now)).isEqualTo(fleetLoad.running(i, now)).isPositive();
      assertThat(part.kvUsage(k)).isEqualTo(fleetLoad.kvUsage(i)).isPositive();
      assertThat(part.kvUsage(k, now)).isEqualTo(fleetLoad.kvUsage(i, now));
      assertThat(part.kvCapacityTokens(k)).isEqualTo(fleetLoad.kvCapacityTokens(i))
          .isPositive();
      assertThat(part.kvCapacityTokens(k, now)).isEqualTo(fleetLoad.kvCapacityTokens(i, now));
      assertThat(part.awaitingFirstToken(k, now))
          .isEqualTo(fleetLoad.awaitingFirstToken(i, now)).isPositive();
      assertThat(part.reportAgeNanos(k, now)).isEqualTo(500);
      assertThat(part.reportedLoad(k, now)).isEqualTo(fleetLoad.reportedLoad(i, now))
          .isPositive();
      assertThat(part.concurrency(k, now)).isEqualTo(fleetLoad.concurrency(i, now));
    }
    assertThat(part.queueWait(0, now)).isEqualTo(fleetLoad.queueWait(3, now)).isPositive();
    assertThat(part.running(0, now)).isNotEqualTo(part.running(1, now));
    assertThat(part.nanoTime()).isEqualTo(fleetLoad.nanoTime());
  }

  @Test
  void onlyModelsServedByPartOfTheFleetGetARouteAtMostTheLimit() {
    Map<String, ServedModels.Listing> listings = new java.util.HashMap<>();
    for (int i = 0; i < 5; i++) {
      Replica r = fleet.get(i);
      Set<String> models = i < 2 ? Set.of("all", "a", "x" + i) : Set.of("all", "b");
      listings.put(r.id(), new ServedModels.Listing(r, ModelList.of(models)));
    }
    ServedModels served = ServedModels.of(fleet, listings, true, false, new java.util.HashSet<>());
    assertThat(served).isNotNull();
    Map<String, ServedModels.Part> parts = served.parts(64);
    assertThat(parts).containsOnlyKeys("a", "b", "x0", "x1");
    assertThat(parts.get("b").replicas()).containsExactly(2, 3, 4);
    assertThat(parts.get("b").loaded()).as("loaded wherever served").isNull();
    assertThat(served.parts(2)).containsOnlyKeys("a", "b");
  }

  @Test
  void aModelLoadedOnSomeOfItsReplicasRanksThoseFirst() {
    Map<String, ServedModels.Listing> listings = new java.util.HashMap<>();
    for (int i = 0; i < 5; i++) {
      Replica r = fleet.get(i);
      // 0 and 1 load models on demand: 0 has "a" loaded, 1 has "b"; 2..4 serve "a" only.
      ModelList list = i == 0 ? new ModelList(Set.of("a", "b"), Set.of("b"))
          : i == 1 ? new ModelList(Set.of("a", "b"), Set.of("a"))
          : ModelList.of(Set.of("a"));
      listings.put(r.id(), new ServedModels.Listing(r, list));
    }
    ServedModels served = ServedModels.of(fleet, listings, true, false, new java.util.HashSet<>());
    assertThat(served).isNotNull();
    assertThat(served.loadsOnDemand(1, "a")).isTrue();
    assertThat(served.loadsOnDemand(0, "a")).isFalse();
    Map<String, ServedModels.Part> parts = served.parts(64);
    assertThat(parts.get("a").replicas()).containsExactly(0, 1, 2, 3, 4);
    assertThat(parts.get("a").loaded()).containsExactly(0, 2, 3, 4);
    assertThat(parts.get("b").loaded()).as("loaded on 1 only of 0 and 1").containsExactly(1);

    Recording policy = new Recording();
    ModelRoute route = ModelRoute.of(policy, fleet, load, "a", parts.get("a"),
        new AdapterAffinity(fleet));
    Ranking ranking = route.rank(RoutingRequest.of("a", "hello"));
    assertThat(ranking.next()).isEqualTo(0);
    assertThat(ranking.next()).isEqualTo(2);
    assertThat(ranking.next()).isEqualTo(3);
    assertThat(ranking.next()).isEqualTo(4);
    assertThat(policy.pickedOver).hasSize(2);
    assertThat(ranking.next()).as("then the one that would load it").isEqualTo(1);
    assertThat(ranking.next()).isEqualTo(-1);
    ranking.sent(1, 0, false);
    ranking.sent(3, 0, false);
    assertThat(policy.sent).as("each tier's own index").containsExactly(0, 2);
  }
}
