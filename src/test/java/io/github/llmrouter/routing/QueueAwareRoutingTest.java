package io.github.llmrouter.routing;

import static io.github.llmrouter.routing.Fleets.drain;
import static io.github.llmrouter.routing.Fleets.fleet;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.github.llmrouter.load.LoadView;
import io.github.llmrouter.load.Saturation;
import io.github.llmrouter.replica.ReplicaSet;
import java.util.Arrays;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

/** PrefixHash and LeastLoaded with reported queue depth and KV usage. */
class QueueAwareRoutingTest {
  private static final RoutingRequest REQUEST = RoutingRequest.of("m", "a shared system prompt");

  /**
   * In-flight counts plus reported effective queues (-1 unknown), running batches (-1 unknown)
   * and KV usage (NaN unknown).
   */
  static final class ReportedLoad implements LoadView {
    final int[] inFlight;
    final int[] queue;
    final int[] running;
    final double[] kv;
    final double[] wait;

    ReportedLoad(int n) {
      inFlight = new int[n];
      queue = new int[n];
      running = new int[n];
      kv = new double[n];
      wait = new double[n];
      Arrays.fill(wait, Double.NaN);
      Arrays.fill(queue, -1);
      Arrays.fill(running, -1);
      Arrays.fill(kv, Double.NaN);
    }

    @Override
    public int running(int index, long now) {
      return running[index];
    }

    @Override
    public double queueWait(int index, long now) {
      return wait[index];
    }

    @Override
    public int inFlight(int index) {
      return inFlight[index];
    }

    @Override
    public long totalInFlight() {
      return Arrays.stream(inFlight).sum();
    }

    @Override
    public int effectiveQueue(int index) {
      return queue[index];
    }

    @Override
    public double kvUsage(int index) {
      return kv[index];
    }
  }

  @Nested
  class PrefixHashSkips {
    final PrefixHashPicker picker =
        (PrefixHashPicker) PrefixHash.builder().build().newPicker(fleet(8));
    final int owner = picker.ownerOf(REQUEST);
    /** The owner's next ring neighbour: where failover goes, and where a skipped key lands. */
    final int neighbour = secondPick(picker);
    final ReportedLoad load = new ReportedLoad(8);

    private int secondPick(ReplicaPicker p) {
      Ranking plain = p.rank(REQUEST, new ReportedLoad(8));
      plain.next();
      return plain.next();
    }

    @Test
    void aReplicaWithALongReportedQueueIsSkippedAlthoughItOwnsTheKey() {
      int unloaded = picker.rank(REQUEST, load).next();
      assertThat(unloaded).isEqualTo(owner);
      load.queue[owner] = Saturation.DEFAULT_QUEUE_THRESHOLD;
      Ranking r = picker.rank(REQUEST, load);
      int first = r.next();
      assertThat(first).isEqualTo(neighbour);
      assertThat(r.reason()).contains("reported queue");
      // The next ring neighbour, exactly as failover would reach it without the report.
      load.queue[owner] = -1;
      Ranking plain = picker.rank(REQUEST, load);
      plain.next();
      assertThat(first).isEqualTo(plain.next());
    }

    @Test
    void aReplicaWhoseRequestsWaitLongerThanTheFleetsCountsItsQueueLonger() {
      Arrays.fill(load.queue, 0); // an idle replica elsewhere: the threshold is 4 exactly
      load.queue[owner] = 2;
      Arrays.fill(load.wait, 1.0);
      load.wait[owner] = 1.5; // mean 1.0625: 2 × 1.41 = 2.8, below 4
      assertThat(picker.rank(REQUEST, load).next()).isEqualTo(owner);
      load.wait[owner] = 3.0; // mean 1.25: 2 × 2.4 = 4.8, at the threshold
      Ranking r = picker.rank(REQUEST, load);
      assertThat(r.next()).isEqualTo(neighbour);
      assertThat(r.reason()).contains("reported queue");
      // The lengthening is capped at 4×, and an empty queue stays empty.
      load.queue[owner] = 1;
      load.wait[owner] = 100;
      assertThat(picker.rank(REQUEST, load).next()).isEqualTo(neighbour);
      load.queue[owner] = 0;
      assertThat(picker.rank(REQUEST, load).next()).isEqualTo(owner);
    }

    @Test
    void shortWaitsAndWaitsBelowTheMeanChangeNothing() {
      Arrays.fill(load.queue, 3);
      Arrays.fill(load.wait, 0.01);
      load.wait[owner] = 0.04; // 4× the others, but the mean is under 50 ms
      assertThat(picker.rank(REQUEST, load).next()).isEqualTo(owner);
      Arrays.fill(load.wait, 2.0);
      load.wait[owner] = 0.1;
      Arrays.fill(load.queue, 0);
      load.queue[owner] = Saturation.DEFAULT_QUEUE_THRESHOLD; // a quick replica is not let off
      assertThat(picker.rank(REQUEST, load).next()).isEqualTo(neighbour);
      load.wait[(owner + 1) % 8] = Double.NaN; // replicas without a wait are left out of the mean
      assertThat(picker.rank(REQUEST, load).next()).isEqualTo(neighbour);
    }

    @Test
    void aQueueJustBelowTheThresholdKeepsAffinity() {
      load.queue[owner] = Saturation.DEFAULT_QUEUE_THRESHOLD - 1;
      assertThat(picker.rank(REQUEST, load).next()).isEqualTo(owner);
    }

    @Test
    void aNearlyFullKvCacheIsSkipped() {
      load.kv[owner] = 0.95;
      assertThat(picker.rank(REQUEST, load).next()).isEqualTo(neighbour);
      load.kv[owner] = 0.949;
      assertThat(picker.rank(REQUEST, load).next()).isEqualTo(owner);
    }

    @Test
    void aNearlyFullKvCacheStopsMovingKeysOnceEveryCacheIsNearlyFull() {
      // Every cache nearly full and no queues: a full cache counts as a queue at the threshold
      // everywhere, so none is far behind and the ring order stands.
      Arrays.fill(load.queue, 0);
      Arrays.fill(load.kv, 0.97);
      Ranking r = picker.rank(REQUEST, load);
      assertThat(r.next()).isEqualTo(owner);
      assertThat(r.reason()).contains("not far behind the shortest queue");
      // One replica with room is enough to move the owner's requests off its full cache.
      int roomy = (owner + 5) % 8;
      load.kv[roomy] = 0.5;
      Ranking moved = picker.rank(REQUEST, load);
      assertThat(moved.next()).as("the one replica with room").isEqualTo(roomy);
      assertThat(moved.reason()).contains("KV cache nearly full");
    }

    @Test
    void anIdleReplicaAnywhereMakesTheQueueThresholdAbsolute() {
      Arrays.fill(load.queue, 5);
      load.queue[owner] = Saturation.DEFAULT_QUEUE_THRESHOLD;
      // Every queue at least 4: the owner's is the shortest, so it keeps its keys.
      assertThat(picker.rank(REQUEST, load).next()).isEqualTo(owner);
      int idle = (owner + 3) % 8;
      load.queue[idle] = 0;
      // An idle replica over its load bound is no alternative: it does not count.
      load.inFlight[idle] = 40;
      assertThat(picker.rank(REQUEST, load).next()).isEqualTo(owner);
      load.inFlight[idle] = 0;
      Ranking r = picker.rank(REQUEST, load);
      assertThat(r.next()).as("the only replica below the threshold").isEqualTo(idle);
      assertThat(r.reason()).contains("reported queue at threshold");
    }

    @Test
    void whenEveryReplicaHasAQueueTheOwnerKeepsItsKeysUntilFarBehindTheShortest() {
      // Shortest 1: the limit is 4 + 3 × 1 = 7.
      Arrays.fill(load.queue, 1);
      load.queue[owner] = 6;
      Ranking kept = picker.rank(REQUEST, load);
      assertThat(kept.next()).isEqualTo(owner);
      assertThat(kept.reason()).contains("every replica has a queue");
      load.queue[owner] = 7;
      assertThat(picker.rank(REQUEST, load).next()).isEqualTo(neighbour);
    }

    @Test
    void aSaturatedFleetKeepsAffinity() {
      // Every queue at the threshold: skipping the owner would only trade its cached prefix for
      // another long queue, so the ring order stands.
      Arrays.fill(load.queue, 10);
      Ranking r = picker.rank(REQUEST, load);
      assertThat(r.next()).isEqualTo(owner);
      assertThat(r.reason()).contains("not far behind the shortest queue");
      assertThat(drain(r, 20)).hasSize(7).doesNotContain(owner);
    }

    @Test
    void inASaturatedFleetAReplicaFarBehindTheShortestQueueIsSkipped() {
      Arrays.fill(load.queue, 10);
      int shortest = (owner + 1) % 8;
      load.queue[shortest] = 4;
      int limit = PrefixHash.SHORTEST_QUEUE_MULTIPLE * 4 + Saturation.DEFAULT_QUEUE_THRESHOLD;
      load.queue[owner] = limit - 1;
      assertThat(picker.rank(REQUEST, load).next()).isEqualTo(owner);
      load.queue[owner] = limit;
      Ranking r = picker.rank(REQUEST, load);
      int first = r.next();
      // The owner's next ring neighbour, as failover would reach it.
      Ranking plain = picker.rank(REQUEST, new ReportedLoad(8));
      plain.next();
      assertThat(first).isEqualTo(plain.next());
      assertThat(r.reason()).contains("not far behind");
    }

    @Test
    void aReplicaReportingItsWholeLoadIsBoundedByTheFleetsReportedLoadNotThisClientsShare() {
      Arrays.fill(load.queue, 0);
      Arrays.fill(load.running, 2);
      // This client alone has 40 requests on the owner: far over its in-flight share...
      load.inFlight[owner] = 40;
      // ...but the owner reports a batch no bigger than the others'.
      Ranking r = picker.rank(REQUEST, load);
      assertThat(r.next()).isEqualTo(owner);
      assertThat(r.reason()).isEqualTo("key owner on the ring, within load bound");
      // The bound is 2.0 × (fleet load + 1) / 8: with the owner running 5 the fleet runs 19, and
      // 5 <= 2.0 × 20 / 8 = 5; with 6 it runs 20, and 6 > 2.0 × 21 / 8 = 5.25.
      load.running[owner] = 5;
      assertThat(picker.rank(REQUEST, load).next()).isEqualTo(owner);
      load.running[owner] = 6;
      Ranking over = picker.rank(REQUEST, load);
      assertThat(over.next()).isEqualTo(neighbour);
      assertThat(over.reason()).contains("over load bound");
      PrefixHashPicker loose = (PrefixHashPicker) PrefixHash.builder().reportedLoadFactor(4)
          .build().newPicker(fleet(8));
      assertThat(loose.rank(REQUEST, load).next()).isEqualTo(owner);
      // Waiting requests count as load too: 3 waiting + 3 running is 6 again.
      load.running[owner] = 3;
      load.queue[owner] = 3;
      assertThat(picker.rank(REQUEST, load).next()).isEqualTo(neighbour);
    }

    @Test
    void withoutARunningCountOrWithReportedLoadOffTheInFlightShareBounds() {
      load.inFlight[owner] = 40;
      load.queue[owner] = 0; // a queue header alone says nothing of the running batch
      Ranking r = picker.rank(REQUEST, load);
      assertThat(r.next()).isEqualTo(neighbour);
      assertThat(r.reason()).contains("over load bound");
      Arrays.fill(load.queue, 0);
      Arrays.fill(load.running, 0);
      assertThat(picker.rank(REQUEST, load).next()).isEqualTo(owner);
      PrefixHashPicker inFlightOnly = (PrefixHashPicker) PrefixHash.builder()
          .reportedLoad(false).build().newPicker(fleet(8));
      assertThat(inFlightOnly.rank(REQUEST, load).next()).isEqualTo(neighbour);
    }

    @Test
    void theReportedBoundCountsOnlyTheReplicasThatReportTheirLoad() {
      // Half the fleet reports (queue 0, running 4: a load of 16 over half the weight); the
      // bound is 2.0 × 17 / 4 = 8.5 per reporting replica, not 2.0 × 17 / 8.
      for (int i = 0; i < 8; i++) {
        if (i % 2 == owner % 2) {
          load.queue[i] = 0;
          load.running[i] = 4;
        }
      }
      load.running[owner] = 8; // the fleet now reports 20: bound 2.0 × 21 / 4 = 10.5
      assertThat(picker.rank(REQUEST, load).next()).isEqualTo(owner);
      load.running[owner] = 11; // 23: bound 12, still within
      assertThat(picker.rank(REQUEST, load).next()).isEqualTo(owner);
      load.running[owner] = 13; // 25: bound 13
      assertThat(picker.rank(REQUEST, load).next()).isEqualTo(owner);
      load.running[owner] = 14; // 26: bound 13.5
      assertThat(picker.rank(REQUEST, load).next()).isEqualTo(neighbour);
    }

    @Test
    void inASaturatedFleetAReplicaWithoutAReportMustBeWithinTheInFlightBound() {
      Arrays.fill(load.queue, 10);
      load.queue[owner] = -1; // stale: judged by this client's in-flight requests
      load.inFlight[owner] = 40;
      Ranking r = picker.rank(REQUEST, load);
      int first = r.next();
      assertThat(first).isEqualTo(neighbour);
      assertThat(r.reason()).contains("not far behind");
      load.inFlight[owner] = 0;
      assertThat(picker.rank(REQUEST, load).next()).isEqualTo(owner);
    }

    @Test
    void onceEveryReplicaWithinBoundIsTakenTheRestFollowByLeastLoad() {
      // No reports: after the ring walk has returned what is within bound, the replicas over it
      // follow by fewest in flight.
      load.inFlight[owner] = 50;
      int other = (owner + 3) % 8;
      load.inFlight[other] = 30;
      Ranking r = picker.rank(REQUEST, load);
      var order = drain(r, 20);
      assertThat(order).hasSize(8);
      assertThat(order.subList(6, 8)).containsExactly(other, owner);
      assertThat(r.reason()).contains("least loaded");
    }

    @Test
    void reportedLoadOffIgnoresReports() {
      PrefixHashPicker blind = (PrefixHashPicker) PrefixHash.builder().reportedLoad(false)
          .build().newPicker(fleet(8));
      load.queue[owner] = 1000;
      load.kv[owner] = 1.0;
      assertThat(blind.rank(REQUEST, load).next()).isEqualTo(owner);
    }

    @Test
    void theReasonNamesWhyTheOwnerWasSkippedNotWhyLaterReplicasWere() {
      // The owner over its load bound (no report: judged by in-flight), its neighbour's KV cache
      // nearly full: the third on the ring is taken, for the owner's reason.
      int third = drain(picker.rank(REQUEST, new ReportedLoad(8)), 3).get(2);
      load.inFlight[owner] = 10;
      load.queue[neighbour] = 0;
      load.kv[neighbour] = 1.0;
      Ranking r = picker.rank(REQUEST, load);
      assertThat(r.next()).isEqualTo(third);
      assertThat(r.reason()).isEqualTo("key owner over load bound: next ring replica within bound");
    }

    @Test
    void withNoneLeftWithinBoundTheShortestReportedQueuePerWeightComesFirst() {
      // Two replicas taken while idle; then the other six are all over the in-flight bound
      // (running batches unreported) and report their queues.
      Ranking r = picker.rank(REQUEST, load);
      int first = r.next();
      int second = r.next();
      int[] rest = java.util.stream.IntStream.range(0, 8)
          .filter(i -> i != first && i != second).toArray();
      for (int k = 0; k < 6; k++) {
        load.inFlight[rest[k]] = 50 + k;
        load.queue[rest[k]] = 5;
      }
      // An empty reported queue counts as empty however many requests this client has there.
      load.queue[rest[5]] = 0;
      load.queue[rest[4]] = 1;
      assertThat(r.next()).isEqualTo(rest[5]);
      assertThat(r.reason()).isEqualTo("no replica within load bound: least loaded by effective queue");
      assertThat(r.next()).isEqualTo(rest[4]);
      // Equal queues: fewest in flight first.
      assertThat(drain(r, 8)).containsExactly(rest[0], rest[1], rest[2], rest[3]);
    }

    @Test
    void queuesAreComparedPerUnitOfWeight() {
      ReplicaSet weighted = Fleets.weighted(2, 1, 1, 1);
      PrefixHashPicker p = (PrefixHashPicker) PrefixHash.builder().build().newPicker(weighted);
      ReportedLoad four = new ReportedLoad(4);
      // A key whose first two picks leave the heavy replica, r0, and one light one.
      for (int k = 0; k < 100; k++) {
        Ranking r = p.rank(RoutingRequest.of("m", "key " + k), four);
        int first = r.next();
        int second = r.next();
        if (first == 0 || second == 0) continue;
        int light = java.util.stream.IntStream.range(1, 4)
            .filter(i -> i != first && i != second).findFirst().orElseThrow();
        four.inFlight[0] = 80;
        four.inFlight[light] = 40;
        // 4 queued on weight 2 is 2 per unit: shorter than 3 on weight 1.
        four.queue[0] = 4;
        four.queue[light] = 3;
        assertThat(r.next()).isZero();
        assertThat(r.next()).isEqualTo(light);
        return;
      }
      throw new AssertionError("no key found for the fixture");
    }

    @Test
    void thresholdsAreConfigurableAndValidated() {
      PrefixHashPicker strict = (PrefixHashPicker) PrefixHash.builder().queueThreshold(1)
          .kvUsageThreshold(0.5).build().newPicker(fleet(8));
      load.queue[owner] = 1;
      assertThat(strict.rank(REQUEST, load).next()).isEqualTo(neighbour);
      assertThatThrownBy(() -> PrefixHash.builder().queueThreshold(0).build())
          .hasMessageContaining("queueThreshold");
      assertThatThrownBy(() -> PrefixHash.builder().reportedLoadFactor(0.99).build())
          .hasMessageContaining("reportedLoadFactor");
      assertThatThrownBy(() -> PrefixHash.builder().reportedLoadFactor(Double.NaN).build())
          .hasMessageContaining("reportedLoadFactor");
      assertThatThrownBy(() -> PrefixHash.builder().kvUsageThreshold(0).build())
          .hasMessageContaining("kvUsageThreshold");
      assertThatThrownBy(() -> PrefixHash.builder().kvUsageThreshold(Double.NaN).build())
          .hasMessageContaining("kvUsageThreshold");
    }

    @Test
    void aSaturatedFleetCostsAFewPassesOverTheReplicasNotAWalkRoundTheRing() {
      int n = 200;
      PrefixHashPicker big = (PrefixHashPicker) PrefixHash.builder().build().newPicker(fleet(n));
      ReportedLoad busy = new ReportedLoad(n);
      int[] calls = new int[1];
      LoadView counting = new LoadView() {
        @Override
        public int inFlight(int index) {
          return 0;
        }

        @Override
        public long totalInFlight() {
          return 0;
        }

        @Override
        public int effectiveQueue(int index) {
          calls[0]++;
          return 50 + busy.inFlight[index];
        }

        @Override
        public double reportedLoadPerWeight(long now) {
          return 60; // kept as reports arrive, as LocalLoad does: no pass to add it up
        }
      };
      assertThat(big.rank(REQUEST, counting).next()).isBetween(0, n - 1);
      // A few during the first ring steps, then one pass that learns that none qualifies and
      // finds the shortest queue, then a short walk; the ring has 256 points per replica.
      assertThat(calls[0]).isLessThanOrEqualTo(n + 8);
    }
  }

  @Nested
  class LeastLoadedByQueue {
    @Test
    void ranksByEffectiveQueueWhenReportsExist() {
      ReportedLoad load = new ReportedLoad(4);
      Arrays.fill(load.queue, 8);
      load.queue[2] = 1;
      load.inFlight[2] = 5; // more of this client's requests, but the shortest real queue
      assertThat(LeastLoaded.fullScan().newPicker(fleet(4)).rank(REQUEST, load).next())
          .isEqualTo(2);
    }

    @Test
    void tiesOnTheQueueGoToTheFewestInFlight() {
      ReportedLoad load = new ReportedLoad(4);
      Arrays.fill(load.queue, 0);
      Arrays.fill(load.inFlight, 3);
      load.inFlight[1] = 0;
      assertThat(LeastLoaded.fullScan().newPicker(fleet(4)).rank(REQUEST, load).next())
          .isEqualTo(1);
      ReplicaPicker p2c = LeastLoaded.powerOfTwoChoices(3).newPicker(fleet(2));
      for (int k = 0; k < 20; k++) assertThat(p2c.rank(REQUEST, load).next()).isEqualTo(1);
    }
  }
}
