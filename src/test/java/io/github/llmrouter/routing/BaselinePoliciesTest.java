package io.github.llmrouter.routing;

import static io.github.llmrouter.routing.Fleets.drain;
import static io.github.llmrouter.routing.Fleets.fleet;
import static io.github.llmrouter.routing.Fleets.weighted;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.github.llmrouter.routing.Fleets.ArrayLoad;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

/** The baselines PrefixHash is compared with: round robin, random, least loaded. */
class BaselinePoliciesTest {
  private static final RoutingRequest REQUEST = RoutingRequest.of("m", "hello");

  @Nested
  class RoundRobinPolicy {
    @Test
    void eachRequestStartsAtTheNextReplicaAndFailsOverInOrder() {
      ReplicaPicker picker = RoutingPolicy.roundRobin().newPicker(fleet(5));
      ArrayLoad load = new ArrayLoad(9, 0, 0, 0, 0); // ignored
      for (int request = 0; request < 12; request++) {
        Ranking ranking = picker.rank(REQUEST, load);
        int start = request % 5;
        assertThat(ranking.next()).isEqualTo(start);
        assertThat(ranking.reason()).isEqualTo("round robin");
        assertThat(ranking.next()).isEqualTo((start + 1) % 5);
        assertThat(ranking.reason()).startsWith("failover");
        assertThat(drain(ranking, 10))
            .containsExactly((start + 2) % 5, (start + 3) % 5, (start + 4) % 5);
        assertThat(ranking.next()).isEqualTo(-1);
      }
    }
  }

  @Nested
  class RandomPolicy {
    @Test
    void picksAreUniformAndRepeatableForASeed() {
      int n = 8;
      ReplicaPicker a = RoutingPolicy.random(99).newPicker(fleet(n));
      ReplicaPicker b = RoutingPolicy.random(99).newPicker(fleet(n));
      int[] counts = new int[n];
      for (int k = 0; k < 10_000; k++) {
        int pick = a.rank(REQUEST, new ArrayLoad(n)).next();
        assertThat(b.rank(REQUEST, new ArrayLoad(n)).next()).as("same seed, same picks").isEqualTo(pick);
        counts[pick]++;
      }
      // 1250 expected, binomial standard deviation 33: ±10% is almost 4 standard deviations.
      for (int c : counts) assertThat(c).isCloseTo(1250, within(125));
      assertThat(RoutingPolicy.random(100).newPicker(fleet(n)).rank(REQUEST, new ArrayLoad(n)).next())
          .as("another seed, another sequence (for this seed)").isNotEqualTo(
              RoutingPolicy.random(99).newPicker(fleet(n)).rank(REQUEST, new ArrayLoad(n)).next());
    }

    @Test
    void failoverContinuesInSnapshotOrderAndEnds() {
      Ranking ranking = RoutingPolicy.random(5).newPicker(fleet(6)).rank(REQUEST, new ArrayLoad(6));
      int first = ranking.next();
      assertThat(ranking.reason()).isEqualTo("random");
      List<Integer> expected = new ArrayList<>();
      for (int k = 1; k < 6; k++) expected.add((first + k) % 6);
      assertThat(drain(ranking, 10)).isEqualTo(expected);
      assertThat(ranking.next()).isEqualTo(-1);
    }
  }

  @Nested
  class LeastLoadedPolicy {
    @Test
    void fullScanPicksTheLeastLoadedThenTheLeastLoadedOfTheRest() {
      ReplicaPicker picker = LeastLoaded.fullScan().newPicker(fleet(5));
      ArrayLoad load = new ArrayLoad(4, 2, 7, 0, 3);
      Ranking ranking = picker.rank(REQUEST, load);
      assertThat(ranking.next()).isEqualTo(3);
      assertThat(ranking.reason()).isEqualTo("least loaded (full scan)");
      load.inFlight[3] = 9; // load is read again at failover time
      assertThat(ranking.next()).isEqualTo(1);
      assertThat(ranking.reason()).startsWith("failover");
      load.inFlight[2] = 1;
      assertThat(drain(ranking, 10)).containsExactly(2, 4, 0);
      assertThat(ranking.next()).isEqualTo(-1);
    }

    @Test
    void fullScanHonoursWeights() {
      // Per unit of weight: 2/1, 3/2 = 1.5, 1/0.5 = 2.
      ReplicaPicker picker = LeastLoaded.fullScan().newPicker(weighted(1, 2, 0.5));
      assertThat(drain(picker.rank(REQUEST, new ArrayLoad(2, 3, 1)), 5).get(0)).isEqualTo(1);
    }

    @Test
    void fullScanSpreadsTiesOverReplicas() {
      ReplicaPicker picker = LeastLoaded.fullScan().newPicker(fleet(4));
      int[] counts = new int[4];
      for (int k = 0; k < 4000; k++) counts[picker.rank(REQUEST, new ArrayLoad(4)).next()]++;
      for (int c : counts) assertThat(c).isGreaterThan(700);
    }

    @Test
    void powerOfTwoChoicesTakesTheLessLoadedOfTwoUniformSamples() {
      int n = 8;
      ReplicaPicker picker = LeastLoaded.powerOfTwoChoices(3).newPicker(fleet(n));
      ArrayLoad load = new ArrayLoad(70, 10, 60, 0, 50, 20, 40, 30); // ranks by load: 3,1,5,7,6,4,2,0
      int[] byLoadRank = {7, 1, 6, 0, 5, 2, 4, 3}; // replica -> its rank (0 = least loaded)
      int[] counts = new int[n];
      int picks = 28_000;
      for (int k = 0; k < picks; k++) {
        Ranking ranking = picker.rank(REQUEST, load);
        int pick = ranking.next();
        assertThat(pick).as("the most loaded never wins a pair").isNotEqualTo(0);
        assertThat(ranking.reason()).isEqualTo("less loaded of two random choices");
        counts[pick]++;
      }
      // Replica of load rank r wins every pair with a more loaded replica: 2(n-1-r)/(n(n-1)).
      for (int i = 0; i < n; i++) {
        double expected = 2.0 * (n - 1 - byLoadRank[i]) / (n * (n - 1));
        assertThat((double) counts[i] / picks).as("replica %d", i).isCloseTo(expected, within(0.012));
      }
    }

    @Test
    void powerOfTwoChoicesHonoursWeights() {
      // Two replicas: both are always sampled; 3 in flight on weight 2 beats 2 on weight 1.
      ReplicaPicker picker = LeastLoaded.powerOfTwoChoices(4).newPicker(weighted(1, 2));
      for (int k = 0; k < 100; k++) {
        assertThat(picker.rank(REQUEST, new ArrayLoad(2, 3)).next()).isEqualTo(1);
      }
    }

    @Test
    void powerOfTwoChoicesFailsOverToTheLeastLoadedOfTheRestWithoutRepeating() {
      ReplicaPicker picker = LeastLoaded.powerOfTwoChoices(5).newPicker(fleet(6));
      for (int k = 0; k < 200; k++) {
        ArrayLoad load = new ArrayLoad(5, 1, 4, 2, 3, 0);
        Ranking ranking = picker.rank(REQUEST, load);
        int first = ranking.next();
        List<Integer> rest = drain(ranking, 10);
        List<Integer> expected = new ArrayList<>(List.of(5, 1, 3, 4, 2, 0));
        expected.remove(Integer.valueOf(first));
        assertThat(rest).isEqualTo(expected);
        assertThat(ranking.reason()).isEqualTo("failover: least loaded of the rest");
        assertThat(ranking.next()).isEqualTo(-1);
      }
    }

    @Test
    void aSingleReplicaIsPickedOnce() {
      for (LeastLoaded policy : List.of(LeastLoaded.fullScan(), LeastLoaded.powerOfTwoChoices(1))) {
        Ranking ranking = policy.newPicker(fleet(1)).rank(REQUEST, new ArrayLoad(3));
        assertThat(ranking.next()).isZero();
        assertThat(ranking.next()).isEqualTo(-1);
      }
    }

    @Test
    void beyond128ReplicasEveryReplicaIsVisitedExactlyOnce() {
      int n = 200;
      ArrayLoad load = new ArrayLoad(n);
      for (int i = 0; i < n; i++) load.inFlight[i] = (i * 37) % 200; // a permutation of 0..199
      Ranking ranking = LeastLoaded.fullScan().newPicker(fleet(n)).rank(REQUEST, load);
      List<Integer> order = drain(ranking, 400);
      assertThat(order).hasSize(n).doesNotHaveDuplicates();
      for (int k = 0; k < n; k++) assertThat(load.inFlight[order.get(k)]).isEqualTo(k);
    }
  }
}
