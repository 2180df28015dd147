package io.github.llmrouter.internal.health;

import static io.github.llmrouter.routing.Fleets.named;
import static org.assertj.core.api.Assertions.assertThat;

import io.github.llmrouter.observe.EjectionEvent;
import io.github.llmrouter.observe.HealthChangedEvent;
import io.github.llmrouter.observe.MembershipEvent;
import io.github.llmrouter.replica.OutlierDetection;
import io.github.llmrouter.replica.Replica;
import io.github.llmrouter.replica.ReplicaSet;
import io.github.llmrouter.testing.EventRecorder;
import io.github.llmrouter.testing.ManualTicker;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Outlier ejection, its limits and decay, slow start and membership events, in logical time. */
class StatusTrackerTest {
  private final ManualTicker ticker = new ManualTicker();
  private final EventRecorder events = new EventRecorder();

  private StatusTracker tracker(OutlierDetection outliers) {
    return new StatusTracker(outliers, Duration.ofSeconds(30), Duration.ZERO, ticker, events);
  }

  /** Tells {@code t} about a fleet of {@code n} replicas {@code r0 ..}; returns their statuses. */
  private static ReplicaStatus[] fleetOf(StatusTracker t, int n) {
    ReplicaSet set = named(n);
    t.update(set, "test");
    return t.statusesOf(set);
  }

  private static void fail(StatusTracker t, ReplicaStatus h, int times) {
    for (int i = 0; i < times; i++) t.onFailure(h, "HTTP 503", false);
  }

  @Test
  void fiveConsecutiveFailuresEjectForThirtySecondsThenTheEjectionEnds() {
    StatusTracker t = tracker(OutlierDetection.defaults());
    ReplicaStatus r1 = fleetOf(t, 4)[1];

    fail(t, r1, 4);
    assertThat(r1.isEjected(ticker.read())).isFalse();
    fail(t, r1, 1);
    assertThat(r1.isEjected(ticker.read())).isTrue();
    assertThat(events.ejections).singleElement().satisfies(e -> {
      assertThat(e.replicaId()).isEqualTo("r1");
      assertThat(e.ejected()).isTrue();
      assertThat(e.duration()).isEqualTo(Duration.ofSeconds(30));
      assertThat(e.reason()).isEqualTo("5 consecutive failures, last: HTTP 503");
    });

    ticker.advance(Duration.ofSeconds(29));
    assertThat(r1.isEjected(ticker.read())).isTrue();
    ticker.advance(Duration.ofSeconds(1));
    assertThat(r1.isEjected(ticker.read())).isFalse();
    assertThat(events.ejections).hasSize(2);
    assertThat(events.ejections.get(1).ejected()).isFalse();
  }

  @Test
  void aSuccessResetsTheConsecutiveCount() {
    StatusTracker t = tracker(OutlierDetection.defaults());
    ReplicaStatus r0 = fleetOf(t, 4)[0];
    fail(t, r0, 4);
    t.onSuccess(r0);
    fail(t, r0, 4);
    assertThat(r0.isEjected(ticker.read())).isFalse();
    assertThat(r0.consecutiveFailures()).isEqualTo(4);
  }

  @Test
  void repeatedEjectionsLengthenUpToTheMaximumAndDecayWhenTheReplicaBehaves() {
    StatusTracker t = tracker(OutlierDetection.defaults());
    ReplicaStatus r2 = fleetOf(t, 4)[2];
    List<Duration> durations = new ArrayList<>();
    for (int i = 0; i < 12; i++) {
      fail(t, r2, 5);
      EjectionEvent e = events.ejections.get(events.ejections.size() - 1);
      durations.add(e.duration());
      ticker.advance(e.duration()); // comes back and fails again at once
      assertThat(r2.isEjected(ticker.read())).isFalse();
    }
    assertThat(durations.subList(0, 4)).containsExactly(Duration.ofSeconds(30),
        Duration.ofSeconds(60), Duration.ofSeconds(90), Duration.ofSeconds(120));
    assertThat(durations.get(11)).isEqualTo(Duration.ofSeconds(300));

    // Behaving for 5 base times (150 s) decays the count from 12 to 7: next ejection 8 × 30 s.
    ticker.advance(Duration.ofSeconds(150));
    fail(t, r2, 5);
    EjectionEvent last = events.ejections.get(events.ejections.size() - 1);
    assertThat(last.ejections()).isEqualTo(8);
    assertThat(last.duration()).isEqualTo(Duration.ofSeconds(240));
  }

  @Test
  void atMostTenPercentAreEjectedAndOneReplicaOfASmallFleet() {
    StatusTracker t = tracker(OutlierDetection.defaults());
    ReplicaStatus[] h = fleetOf(t, 20);
    for (ReplicaStatus r : h) fail(t, r, 5);
    long ejected = java.util.Arrays.stream(h).filter(r -> r.isEjected(ticker.read())).count();
    assertThat(ejected).isEqualTo(2); // 10% of 20

    StatusTracker small = new StatusTracker(OutlierDetection.defaults(), Duration.ZERO,
        Duration.ZERO, ticker,
        events);
    ReplicaStatus[] h4 = fleetOf(small, 4);
    for (ReplicaStatus r : h4) fail(small, r, 5);
    assertThat(java.util.Arrays.stream(h4).filter(r -> r.isEjected(ticker.read()))).hasSize(1);
  }

  @Test
  void theLastReplicaLeftIsNeverEjected() {
    StatusTracker t = tracker(OutlierDetection.builder().maxEjectionPercent(100).build());
    ReplicaStatus[] h = fleetOf(t, 2);
    fail(t, h[0], 5);
    fail(t, h[1], 50);
    assertThat(h[0].isEjected(ticker.read())).isTrue();
    assertThat(h[1].isEjected(ticker.read())).isFalse();

    ReplicaSet one = named(1);
    StatusTracker single = tracker(OutlierDetection.builder().maxEjectionPercent(100).build());
    single.update(one, "test");
    ReplicaStatus only = single.statusesOf(one)[0];
    fail(single, only, 100);
    assertThat(only.isEjected(ticker.read())).isFalse();
  }

  @Test
  void disabledDetectionNeverEjects() {
    StatusTracker t = tracker(OutlierDetection.disabled());
    ReplicaStatus r = fleetOf(t, 10)[0];
    fail(t, r, 100);
    assertThat(r.isEjected(ticker.read())).isFalse();
  }

  @Test
  void aReplicaThatJoinsRampsItsShareOverTheSlowStartWindow() {
    StatusTracker t = tracker(OutlierDetection.defaults());
    t.update(named(3), "test");
    ReplicaStatus[] h = fleetOf(t, 4);
    assertThat(h[0].slowStartShare(ticker.read())).isEqualTo(1.0); // initial members: no ramp
    assertThat(h[3].slowStartShare(ticker.read())).isEqualTo(StatusTracker.SLOW_START_MIN_SHARE);
    ticker.advance(Duration.ofSeconds(15));
    assertThat(h[3].slowStartShare(ticker.read())).isEqualTo(0.5);
    ticker.advance(Duration.ofSeconds(12));
    assertThat(h[3].slowStartShare(ticker.read())).isCloseTo(0.9, org.assertj.core.data.Offset.offset(1e-9));
    ticker.advance(Duration.ofSeconds(3));
    assertThat(h[3].slowStartShare(ticker.read())).isEqualTo(1.0);
  }

  @Test
  void aReplicaBackFromEjectionOrUnhealthyRampsFromWhenItCameBack() {
    StatusTracker t = tracker(OutlierDetection.defaults());
    ReplicaSet set = named(4);
    t.update(set, "test");
    ReplicaStatus r0 = t.statusesOf(set)[0];
    fail(t, r0, 5);
    ticker.advance(Duration.ofSeconds(45)); // ejection ended 15 s ago; nobody looked since
    assertThat(r0.isEjected(ticker.read())).isFalse();
    assertThat(r0.slowStartShare(ticker.read())).isEqualTo(0.5);

    ReplicaStatus r1 = t.statusesOf(set)[1];
    t.setHealthy("r1", false, "3 failed checks");
    assertThat(r1.isHealthy()).isFalse();
    t.setHealthy("r1", true, "2 passed checks");
    assertThat(r1.isHealthy()).isTrue();
    assertThat(r1.slowStartShare(ticker.read())).isEqualTo(StatusTracker.SLOW_START_MIN_SHARE);
    assertThat(events.health).extracting(e -> e.replicaId() + ":" + e.healthy())
        .containsExactly("r1:false", "r1:true");
  }

  @Test
  void membershipChangesAreReportedWithTheReplicaAndTheReason() {
    StatusTracker t = tracker(OutlierDetection.defaults());
    t.update(named(2), "dns");
    List<Replica> changed = new ArrayList<>(named(3).replicas());
    changed.remove(0);
    changed.set(0, changed.get(0).toBuilder().weight(2).build());
    t.update(ReplicaSet.of(changed), "dns");
    assertThat(events.membership).extracting(e -> e.replicaId() + " " + e.change() + " " + e.fleetSize())
        .containsExactly("r0 ADDED 2", "r1 ADDED 2", "r1 UPDATED 2", "r2 ADDED 2", "r0 REMOVED 2");
    assertThat(events.membership).allMatch(e -> e.reason().equals("dns"));
    assertThat(events.membership.get(0).change()).isEqualTo(MembershipEvent.Change.ADDED);
  }

  @Test
  void aReplicaThatLeavesAndReturnsStartsAfresh() {
    StatusTracker t = tracker(OutlierDetection.defaults());
    ReplicaSet set = named(4);
    t.update(set, "test");
    fail(t, t.statusesOf(set)[3], 5);
    t.update(named(3), "test");
    t.update(set, "test");
    assertThat(t.statusesOf(set)[3].isEjected(ticker.read())).isFalse();
  }

  /** An attempt in flight, as a test sees it: what each replicaLost call said. */
  private static final class Flight implements ReplicaStatus.InFlight {
    final boolean answering;
    final boolean delivered;
    final long start;
    final long usual;
    final List<String> why = new ArrayList<>();
    int lost;

    /** An attempt the watchdog does not judge by: waiting, or with its answer under way. */
    Flight(boolean answering) {
      this(answering, answering, 0, NOT_JUDGED);
    }

    Flight(boolean answering, boolean delivered, long start, long usual) {
      this.answering = answering;
      this.delivered = delivered;
      this.start = start;
      this.usual = usual;
    }

    /** A stream sent at {@code start}, without a first chunk, of a kind that usually waits so. */
    static Flight stream(long start, Duration usual) {
      return new Flight(false, false, start, usual.toNanos());
    }

    @Override
    public boolean answering() {
      return answering;
    }

    @Override
    public boolean delivered() {
      return delivered;
    }

    @Override
    public long startNanos() {
      return start;
    }

    @Override
    public long usualWaitNanos() {
      return usual;
    }

    @Override
    public void replicaLost(String what) {
      lost++;
      why.add(what);
    }
  }

  @Test
  void aRefusedConnectTakesTheReplicaOutAtOnceAndFailsOverOnlyItsUnansweredAttempts() {
    StatusTracker t = tracker(OutlierDetection.defaults());
    ReplicaStatus r1 = fleetOf(t, 4)[1];
    Flight waiting = new Flight(false);
    Flight answering = new Flight(true);
    r1.track(waiting);
    r1.track(answering);

    t.refused("r1", "load scrape: java.net.ConnectException: Connection refused");
    t.refused("r1", "again"); // already out: no second event, nothing lost twice

    assertThat(r1.isGone()).isTrue();
    assertThat(waiting.lost).isEqualTo(1);
    assertThat(answering.lost).as("an answer under way is left alone").isZero();
    assertThat(events.health).singleElement().satisfies(e -> {
      assertThat(e.healthy()).isFalse();
      assertThat(e.reason()).startsWith("refuses connections: load scrape");
    });
    assertThat(events.ejections).as("no ejection the first time").isEmpty();
  }

  @Test
  void aScrapeOrCheckThatReachesItAgainBringsItBackAtOnceThroughItsSlowStart() {
    StatusTracker t = tracker(OutlierDetection.defaults());
    ReplicaStatus r1 = fleetOf(t, 4)[1];
    t.refused("r1", "refused");
    ticker.advance(Duration.ofMinutes(5));
    t.reached("r1", 0);

    assertThat(r1.isGone()).isFalse();
    assertThat(r1.slowStartShare(ticker.read())).isEqualTo(StatusTracker.SLOW_START_MIN_SHARE);
    assertThat(events.health).extracting(e -> e.healthy() + " " + e.reason())
        .containsExactly("false refuses connections: refused", "true reachable again");
    t.reached("r1", 0); // nothing left to undo: no event
    assertThat(events.health).hasSize(2);
  }

  @Test
  void anEjectionForBeingUnreachableEndsWhenItIsReachedAndOneFor5xxDoesNot() {
    StatusTracker t = tracker(OutlierDetection.builder().maxEjectionPercent(50).build());
    ReplicaStatus[] fleet = fleetOf(t, 4);
    for (int i = 0; i < 5; i++) t.onFailure(fleet[1], "unreachable (ConnectException)", true);
    fail(t, fleet[2], 5);
    assertThat(fleet[1].isEjected(ticker.read())).isTrue();
    assertThat(fleet[2].isEjected(ticker.read())).isTrue();

    t.reached("r1", 0);
    t.reached("r2", 0);

    assertThat(fleet[1].isEjected(ticker.read())).isFalse();
    assertThat(fleet[2].isEjected(ticker.read())).as("5xx keeps its ejection time").isTrue();
    assertThat(events.ejections).filteredOn(e -> !e.ejected()).singleElement()
        .satisfies(e -> {
          assertThat(e.replicaId()).isEqualTo("r1");
          assertThat(e.reason()).isEqualTo("reachable again");
        });
  }

  @Test
  void refusingAgainAsLongAsTheBaseEjectionTimeAfterComingBackIsAFirstRefusalAgain() {
    StatusTracker t = tracker(OutlierDetection.defaults());
    ReplicaStatus r1 = fleetOf(t, 4)[1];
    ticker.advance(Duration.ofHours(1)); // far from the ticker's start
    t.refused("r1", "refused");
    t.reached("r1", 0);
    ticker.advance(Duration.ofSeconds(30));
    t.refused("r1", "refused");
    assertThat(r1.isEjected(ticker.read())).as("30 s after: not a flap").isFalse();
    t.reached("r1", 0);
    ticker.advance(Duration.ofSeconds(30).minusNanos(1));
    t.refused("r1", "refused");
    assertThat(r1.isEjected(ticker.read())).as("just under 30 s after: a flap").isTrue();
  }

  @Test
  void oneThatRefusesAgainSoonAfterComingBackIsEjectedForGrowingTimes() {
    StatusTracker t = tracker(OutlierDetection.defaults());
    ReplicaStatus r1 = fleetOf(t, 4)[1];
    List<Duration> ejected = new ArrayList<>();
    for (int flap = 0; flap < 3; flap++) {
      t.refused("r1", "refused");
      t.reached("r1", 0); // a scrape reaches it: back
      ticker.advance(Duration.ofSeconds(1));
      t.refused("r1", "refused"); // and gone again a second later: ejected
      assertThat(r1.isEjected(ticker.read())).isTrue();
      Duration d = events.ejections.get(events.ejections.size() - 1).duration();
      ejected.add(d);
      t.reached("r1", 0); // answering scrapes does not end this ejection
      assertThat(r1.isEjected(ticker.read())).as("flap %d", flap).isTrue();
      ticker.advance(d);
      assertThat(r1.isEjected(ticker.read())).isFalse();
    }
    assertThat(ejected).containsExactly(Duration.ofSeconds(30), Duration.ofSeconds(60),
        Duration.ofSeconds(90));
  }

  private StatusTracker watching(Duration stallTimeout) {
    return new StatusTracker(OutlierDetection.defaults(), Duration.ZERO, stallTimeout, ticker,
        events);
  }

  @Test
  void aReplicaLeftUnansweredForTheStallTimeoutIsTakenOutAndItsUnansweredAttemptsFailOver() {
    StatusTracker t = watching(Duration.ofSeconds(3));
    ReplicaStatus r1 = fleetOf(t, 4)[1];
    Flight waiting = new Flight(false);
    Flight answering = new Flight(true);
    r1.track(waiting);
    r1.track(answering);
    t.reached("r1", 1_000_000);

    ticker.advance(Duration.ofSeconds(3).minusNanos(1));
    t.timedOut("r1", "load scrape (InterruptedIOException)");
    assertThat(r1.isGone()).as("just under the bound").isFalse();
    assertThat(waiting.why).isEmpty();

    ticker.advance(Duration.ofNanos(1));
    t.timedOut("r1", "load scrape (InterruptedIOException)");
    t.timedOut("r1", "health check"); // already out: no second event
    assertThat(r1.isGone()).isTrue();
    assertThat(r1.awaitsReach()).isTrue();
    assertThat(waiting.why).containsExactly("stopped answering");
    assertThat(answering.why).as("an answer under way is left alone").isEmpty();
    assertThat(events.health).singleElement().satisfies(e -> {
      assertThat(e.replicaId()).isEqualTo("r1");
      assertThat(e.healthy()).isFalse();
      assertThat(e.reason()).isEqualTo("stopped answering: nothing answered for 3000 ms, last: "
          + "load scrape (InterruptedIOException)");
    });
    assertThat(events.ejections).isEmpty();
  }

  @Test
  void aReplicaNeverAnsweredSinceItJoinedCountsItsSilenceFromJoining() {
    StatusTracker t = watching(Duration.ofSeconds(3));
    ticker.advance(Duration.ofMinutes(10));
    ReplicaStatus r0 = fleetOf(t, 2)[0];
    ticker.advance(Duration.ofSeconds(2));
    t.timedOut("r0", "load scrape");
    assertThat(r0.isGone()).isFalse();
    ticker.advance(Duration.ofSeconds(1));
    t.timedOut("r0", "load scrape");
    assertThat(r0.isGone()).isTrue();
  }

  @Test
  void aReplicaThatAnswersSlowlyEarnsFourTimesItsSlowestRecentAnswerAsItsBound() {
    StatusTracker t = watching(Duration.ofSeconds(3));
    ReplicaStatus r1 = fleetOf(t, 4)[1];
    assertThat(t.stallBoundNanos("r1")).isEqualTo(Duration.ofSeconds(3).toNanos());
    t.reached("r1", Duration.ofSeconds(2).toNanos()); // a scrape answered between long batches
    assertThat(t.stallBoundNanos("r1")).isEqualTo(Duration.ofSeconds(8).toNanos());

    ticker.advance(Duration.ofSeconds(7));
    t.timedOut("r1", "load scrape");
    assertThat(r1.isGone()).as("7 s: within its learnt bound").isFalse();
    ticker.advance(Duration.ofSeconds(1));
    t.timedOut("r1", "load scrape");
    assertThat(r1.isGone()).isTrue();

    // Fast answers wear the learnt bound down to the stall timeout again.
    for (int i = 0; i < 200; i++) t.reached("r1", 1_000_000);
    assertThat(t.stallBoundNanos("r1")).isEqualTo(Duration.ofSeconds(3).toNanos());
    assertThat(t.stallBoundNanos("unknown")).isEqualTo(Duration.ofSeconds(3).toNanos());
  }

  @Test
  void aStallTimeoutOfZeroNeverTakesAReplicaOut() {
    StatusTracker t = watching(Duration.ZERO);
    ReplicaStatus r1 = fleetOf(t, 4)[1];
    ticker.advance(Duration.ofHours(1));
    t.timedOut("r1", "load scrape");
    assertThat(r1.isGone()).isFalse();
    assertThat(t.stallBoundNanos("r1")).isZero();
    assertThat(events.health).isEmpty();
  }

  @Test
  void aHungReplicaIsBackAtItsFirstAnswerAndOneThatHangsAgainSoonAfterIsEjected() {
    StatusTracker t = watching(Duration.ofSeconds(3));
    ReplicaStatus r1 = fleetOf(t, 4)[1];
    ticker.advance(Duration.ofSeconds(5));
    t.timedOut("r1", "load scrape");
    t.reached("r1", 1_000_000);
    assertThat(r1.isGone()).isFalse();
    assertThat(events.health).extracting(HealthChangedEvent::healthy).containsExactly(false, true);

    ticker.advance(Duration.ofSeconds(4));
    t.timedOut("r1", "load scrape");
    assertThat(r1.isGone()).isTrue();
    assertThat(r1.isEjected(ticker.read())).as("hung again 4 s after coming back").isTrue();
    assertThat(events.ejections).singleElement().satisfies(e ->
        assertThat(e.reason()).contains("stopped answering again 4000 ms after coming back"));
  }

  @Test
  void aReplicaThatRefusesWhileHungStaysOutForTheFirstReason() {
    StatusTracker t = watching(Duration.ofSeconds(3));
    ReplicaStatus r1 = fleetOf(t, 4)[1];
    ticker.advance(Duration.ofSeconds(5));
    t.timedOut("r1", "load scrape");
    Flight waiting = new Flight(false);
    r1.track(waiting);
    t.refused("r1", "connection refused");
    assertThat(events.health).singleElement();
    assertThat(waiting.why).containsExactly("stopped answering");
  }

  @Test
  void aStreamWaitingPastItsPatienceOnAReplicaThatDeliversNothingTakesItOut() {
    StatusTracker t = watching(Duration.ofSeconds(3));
    ReplicaStatus r1 = fleetOf(t, 4)[1];
    // Calls like it take 1 s at p99: patience 4 s, more than the 3 s stall timeout.
    Flight stream = Flight.stream(ticker.read(), Duration.ofSeconds(1));
    Flight headersOnly = new Flight(true, false, ticker.read(), ReplicaStatus.InFlight.NOT_JUDGED);
    Flight whole = new Flight(false);
    Flight streaming = new Flight(true, true, ticker.read(), Duration.ofSeconds(1).toNanos());
    for (Flight f : List.of(stream, headersOnly, whole, streaming)) r1.track(f);
    t.reached("r1", 1_000_000); // its front answers scrapes throughout

    ticker.advance(Duration.ofSeconds(4).minusNanos(1));
    t.sweep();
    assertThat(r1.isGone()).as("just under its patience").isFalse();

    ticker.advance(Duration.ofNanos(1));
    t.reached("r1", 1_000_000);
    t.sweep();
    t.sweep(); // already out: no second event
    assertThat(r1.isGone()).isTrue();
    assertThat(stream.why).containsExactly("stopped answering");
    assertThat(headersOnly.why).as("headers alone reached nobody").containsExactly(
        "stopped answering");
    assertThat(whole.why).containsExactly("stopped answering");
    assertThat(streaming.why).as("a stream its caller reads is left alone").isEmpty();
    assertThat(events.health).singleElement().satisfies(e -> {
      assertThat(e.replicaId()).isEqualTo("r1");
      assertThat(e.healthy()).isFalse();
      assertThat(e.reason()).isEqualTo("stopped answering: a call waited 4000 ms for its first "
          + "chunk and nothing was delivered for 4000 ms (patience 4000 ms)");
    });
  }

  @Test
  void anAttemptsPatienceIsAtLeastTheStallTimeout() {
    StatusTracker t = watching(Duration.ofSeconds(3));
    ReplicaStatus r0 = fleetOf(t, 2)[0];
    r0.track(Flight.stream(ticker.read(), Duration.ofMillis(20)));
    ticker.advance(Duration.ofMillis(2999));
    t.sweep();
    assertThat(r0.isGone()).isFalse();
    ticker.advance(Duration.ofMillis(1));
    t.sweep();
    assertThat(r0.isGone()).isTrue();
  }

  @Test
  void aReplicaThatDeliveredToAnotherAttemptMeanwhileIsNotJudged() {
    StatusTracker t = watching(Duration.ofSeconds(3));
    ReplicaStatus r0 = fleetOf(t, 2)[0];
    r0.track(Flight.stream(ticker.read(), Duration.ofMillis(20)));
    ticker.advance(Duration.ofSeconds(2));
    r0.delivered(ticker.read()); // another call's first chunk: the replica makes progress
    ticker.advance(Duration.ofMillis(2999));
    t.sweep();
    assertThat(r0.isGone()).as("quiet for less than the patience").isFalse();
    ticker.advance(Duration.ofMillis(1));
    t.sweep();
    assertThat(r0.isGone()).isTrue();
  }

  @Test
  void aLongPromptsPatienceCoversTheShortOnesQueuedBehindIt() {
    StatusTracker t = watching(Duration.ofSeconds(3));
    ReplicaStatus r0 = fleetOf(t, 2)[0];
    r0.track(Flight.stream(ticker.read(), Duration.ofSeconds(5))); // a long prefill: 20 s
    ticker.advance(Duration.ofSeconds(1));
    r0.track(Flight.stream(ticker.read(), Duration.ofMillis(20))); // 3 s, queued behind it
    ticker.advance(Duration.ofSeconds(10));
    t.sweep();
    assertThat(r0.isGone()).isFalse();
    ticker.advance(Duration.ofSeconds(8));
    t.sweep();
    assertThat(r0.isGone()).isFalse();
    ticker.advance(Duration.ofSeconds(1));
    t.sweep();
    assertThat(r0.isGone()).as("20 s with nothing delivered").isTrue();
  }

  @Test
  void aReplicaWithAWaitingCallOfAnUntimedKindIsNotJudged() {
    StatusTracker t = watching(Duration.ofSeconds(3));
    ReplicaStatus r0 = fleetOf(t, 2)[0];
    r0.track(Flight.stream(ticker.read(), Duration.ofMillis(20)));
    r0.track(new Flight(false, false, ticker.read(), ReplicaStatus.InFlight.UNKNOWN));
    ticker.advance(Duration.ofMinutes(5));
    t.sweep();
    assertThat(r0.isGone()).isFalse();
    assertThat(events.health).isEmpty();
  }

  @Test
  void wholeAnswersAloneNeverJudgeTheirReplica() {
    StatusTracker t = watching(Duration.ofSeconds(3));
    ReplicaStatus r0 = fleetOf(t, 2)[0];
    r0.track(new Flight(false));
    ticker.advance(Duration.ofMinutes(5));
    t.sweep();
    assertThat(r0.isGone()).isFalse();
  }

  @Test
  void theSweepDoesNothingWhileTheWatchdogIsOff() {
    StatusTracker t = watching(Duration.ZERO);
    ReplicaStatus r0 = fleetOf(t, 2)[0];
    r0.track(Flight.stream(ticker.read(), Duration.ofMillis(20)));
    ticker.advance(Duration.ofMinutes(5));
    t.sweep();
    assertThat(r0.isGone()).isFalse();
    assertThat(t.sweepIntervalNanos()).isZero();
    assertThat(watching(Duration.ofSeconds(3)).sweepIntervalNanos())
        .isEqualTo(Duration.ofMillis(250).toNanos());
    assertThat(watching(Duration.ofMillis(100)).sweepIntervalNanos())
        .isEqualTo(Duration.ofMillis(25).toNanos());
    assertThat(watching(Duration.ofMillis(1)).sweepIntervalNanos())
        .isEqualTo(Duration.ofMillis(10).toNanos());
  }

  @Test
  void deliveriesMoveTheReplicasLastDeliveryByMoreThanAMillisecondOnly() {
    StatusTracker t = watching(Duration.ofSeconds(3));
    ReplicaStatus r0 = fleetOf(t, 2)[0];
    long joined = r0.lastDelivered;
    r0.delivered(joined + 1_000_000);
    assertThat(r0.lastDelivered).isEqualTo(joined);
    r0.delivered(joined + 1_000_001);
    assertThat(r0.lastDelivered).isEqualTo(joined + 1_000_001);
  }

  @Test
  void withNothingToProbeItAHungOrRefusingReplicaIsEjectedForTheEjectionTimeInstead() {
    StatusTracker t = watching(Duration.ofSeconds(3));
    t.probed(false);
    ReplicaStatus[] fleet = fleetOf(t, 4);
    Flight stream = Flight.stream(ticker.read(), Duration.ofMillis(20));
    fleet[1].track(stream);
    ticker.advance(Duration.ofSeconds(3));
    t.sweep();
    t.sweep();
    assertThat(fleet[1].isGone()).as("nothing would bring it back").isFalse();
    assertThat(fleet[1].isEjected(ticker.read())).isTrue();
    assertThat(stream.why).containsExactly("stopped answering");
    assertThat(events.health).isEmpty();
    assertThat(events.ejections).singleElement().satisfies(e -> {
      assertThat(e.replicaId()).isEqualTo("r1");
      assertThat(e.duration()).isEqualTo(Duration.ofSeconds(30));
      assertThat(e.reason()).contains("stopped answering: a call waited 3000 ms");
    });

    ticker.advance(Duration.ofSeconds(30));
    assertThat(fleet[1].isEjected(ticker.read())).as("back when its time is up").isFalse();

    t.refused("r2", "java.net.ConnectException: Connection refused");
    assertThat(fleet[2].isGone()).isFalse();
    assertThat(fleet[2].isEjected(ticker.read())).isTrue();
  }
}
