package io.github.llmrouter.dispatch;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.data.Offset.offset;

import io.github.llmrouter.api.ReplicaHttpException;
import io.github.llmrouter.load.LocalLoad;
import io.github.llmrouter.observe.CircuitBreakerEvent;
import io.github.llmrouter.replica.HealthTracker;
import io.github.llmrouter.replica.OutlierDetection;
import io.github.llmrouter.replica.Replica;
import io.github.llmrouter.replica.ReplicaSet;
import io.github.llmrouter.routing.PrefixHash;
import io.github.llmrouter.routing.ReplicaPicker;
import io.github.llmrouter.routing.RoutingRequest;
import io.github.llmrouter.testing.EventRecorder;
import io.github.llmrouter.testing.ManualTicker;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The dispatcher's walk over a policy's ranking: skipping ineligible replicas, deferring
 * slow-starting ones for most keys, panic, and circuit breakers; no HTTP, logical time.
 */
class EligibleWalkTest {
  private final ManualTicker ticker = new ManualTicker();
  private final EventRecorder events = new EventRecorder();

  private static ReplicaSet fleet(int n) {
    List<Replica> replicas = new ArrayList<>();
    for (int i = 0; i < n; i++) replicas.add(Replica.builder("http://10.0.0." + i + ":8000").id("r" + i).build());
    return ReplicaSet.of(replicas);
  }

  private static RoutingRequest key(int i) {
    return RoutingRequest.of("m", "conversation " + i + " opening message");
  }

  /** The first pick of 20,000 distinct keys, counted per replica. */
  private int[] firstPicks(ReplicaSet set, Eligibility eligibility) {
    ReplicaPicker picker = PrefixHash.builder().build().newPicker(set);
    LocalLoad load = LocalLoad.of(set);
    int[] counts = new int[set.size()];
    for (int i = 0; i < 20_000; i++) {
      RoutingRequest r = key(i);
      EligibleWalk walk = new EligibleWalk(picker.rank(r, load), eligibility, r);
      counts[walk.next(ticker.read())]++;
    }
    return counts;
  }

  @Test
  void aJoiningReplicasShareOfKeysRampsLinearlyFromTenPercentOverTheWindow() {
    HealthTracker tracker = new HealthTracker(OutlierDetection.defaults(), Duration.ofSeconds(30),
        ticker, events);
    ReplicaBreakers breakers = new ReplicaBreakers(CircuitBreakerPolicy.disabled(), ticker, events);
    ReplicaSet four = fleet(4);
    tracker.update(four, "test");
    ReplicaSet five = fleet(5);
    tracker.update(five, "test");
    Eligibility eligibility = Eligibility.of(tracker, breakers, Duration.ofSeconds(10), five);
    // What the newcomer owns when warm: the reference for its share.
    double owned = firstPicks(five, Eligibility.of(
        new HealthTracker(OutlierDetection.defaults(), Duration.ZERO, ticker, events), breakers,
        Duration.ofSeconds(10), five))[4];

    double[] expected = {0.1, 0.25, 0.5, 0.75, 1.0};
    double[] at = {0, 7.5, 15, 22.5, 30};
    double previous = 0;
    for (int k = 0; k < at.length; k++) {
      if (k > 0) ticker.advance(Duration.ofMillis((long) ((at[k] - at[k - 1]) * 1000)));
      double share = firstPicks(five, eligibility)[4] / owned;
      assertThat(share).as("share at %s s", at[k]).isCloseTo(expected[k], offset(0.05));
      assertThat(share).isGreaterThanOrEqualTo(previous);
      previous = share;
    }
  }

  @Test
  void keysASlowStartDeclinesGoToTheirNextRingReplicaAndStayThere() {
    HealthTracker tracker = new HealthTracker(OutlierDetection.defaults(), Duration.ofSeconds(30),
        ticker, events);
    ReplicaBreakers breakers = new ReplicaBreakers(CircuitBreakerPolicy.disabled(), ticker, events);
    tracker.update(fleet(4), "test");
    ReplicaSet five = fleet(5);
    tracker.update(five, "test");
    Eligibility eligibility = Eligibility.of(tracker, breakers, Duration.ofSeconds(10), five);
    ReplicaPicker picker = PrefixHash.builder().build().newPicker(five);
    LocalLoad load = LocalLoad.of(five);
    ticker.advance(Duration.ofSeconds(10));
    int moved = 0;
    for (int i = 0; i < 2000; i++) {
      RoutingRequest r = key(i);
      EligibleWalk first = new EligibleWalk(picker.rank(r, load), eligibility, r);
      EligibleWalk again = new EligibleWalk(picker.rank(r, load), eligibility, r);
      int a = first.next(ticker.read());
      assertThat(again.next(ticker.read())).isEqualTo(a); // a key's answer is stable
      if (a != 4 && picker.rank(r, load).next() == 4) moved++;
    }
    assertThat(moved).isPositive();
  }

  @Test
  void ejectedReplicasAreSkippedAndWhenNoneIsEligibleEveryReplicaIsTriedInRankOrder() {
    HealthTracker tracker = new HealthTracker(OutlierDetection.defaults(), Duration.ZERO, ticker,
        events);
    ReplicaBreakers breakers = new ReplicaBreakers(CircuitBreakerPolicy.disabled(), ticker, events);
    ReplicaSet set = fleet(3);
    tracker.update(set, "test");
    for (int i = 0; i < 3; i++) tracker.setHealthy("r" + i, false, "down");
    Eligibility eligibility = Eligibility.of(tracker, breakers, Duration.ofSeconds(10), set);
    ReplicaPicker picker = PrefixHash.builder().build().newPicker(set);
    RoutingRequest r = key(7);
    List<Integer> ranked = new ArrayList<>();
    var ranking = picker.rank(r, LocalLoad.of(set));
    for (int i; (i = ranking.next()) >= 0; ) ranked.add(i);

    EligibleWalk walk = new EligibleWalk(picker.rank(r, LocalLoad.of(set)), eligibility, r);
    List<Integer> tried = new ArrayList<>();
    for (int i; (i = walk.next(ticker.read())) >= 0; ) {
      assertThat(walk.panicked()).isTrue();
      assertThat(walk.reason()).startsWith("panic");
      tried.add(i);
    }
    assertThat(tried).isEqualTo(ranked);

    tracker.setHealthy("r" + ranked.get(0), true, "up");
    EligibleWalk healthy = new EligibleWalk(picker.rank(r, LocalLoad.of(set)), eligibility, r);
    assertThat(healthy.next(ticker.read())).isEqualTo(ranked.get(0));
    assertThat(healthy.panicked()).isFalse();
    assertThat(healthy.next(ticker.read())).as("no panic failover once one was eligible")
        .isEqualTo(-1);
  }

  @Test
  void anOpenBreakerIsSkippedAndHalfOpensAfterItsOpenDuration() {
    HealthTracker tracker = new HealthTracker(OutlierDetection.disabled(), Duration.ZERO, ticker,
        events);
    CircuitBreakerPolicy policy = CircuitBreakerPolicy.builder().slidingWindowSize(4)
        .minimumCalls(4).failureRateThreshold(50).openDuration(Duration.ofSeconds(10))
        .halfOpenCalls(1).build();
    ReplicaBreakers breakers = new ReplicaBreakers(policy, ticker, events);
    ReplicaSet set = fleet(2);
    tracker.update(set, "test");
    Eligibility eligibility = Eligibility.of(tracker, breakers, Duration.ofSeconds(10), set);
    ReplicaHttpException http503 = new ReplicaHttpException("r0", 503, "", true, null);
    for (int i = 0; i < 4; i++) {
      assertThat(eligibility.admit(0, ticker.read(), () -> 0)).isEqualTo(Eligibility.ADMIT);
      eligibility.record(0, true, ticker.read(), 1_000, http503);
    }
    assertThat(events.breakers).extracting(CircuitBreakerEvent::to).containsExactly("OPEN");
    assertThat(events.breakers.get(0).reason()).isEqualTo("failure rate 100.0% >= 50.0%");
    assertThat(eligibility.admit(0, ticker.read(), () -> 0)).isEqualTo(Eligibility.SKIP);
    assertThat(eligibility.admit(1, ticker.read(), () -> 0)).isEqualTo(Eligibility.ADMIT);
    eligibility.record(1, true, ticker.read(), 1_000, null);

    ticker.advance(Duration.ofSeconds(10));
    assertThat(eligibility.admit(0, ticker.read(), () -> 0)).as("open for exactly 10 s")
        .isEqualTo(Eligibility.SKIP);
    ticker.advance(Duration.ofMillis(1));
    assertThat(eligibility.admit(0, ticker.read(), () -> 0)).isEqualTo(Eligibility.ADMIT);
    assertThat(events.breakers).extracting(CircuitBreakerEvent::to)
        .containsExactly("OPEN", "HALF_OPEN");
    assertThat(eligibility.admit(0, ticker.read(), () -> 0)).as("one probe at a time")
        .isEqualTo(Eligibility.SKIP);
    eligibility.record(0, true, ticker.read(), 1_000, null);
    assertThat(events.breakers).extracting(CircuitBreakerEvent::to)
        .containsExactly("OPEN", "HALF_OPEN", "CLOSED");
  }

  @Test
  void fourHundredsAndTheCallersDeadlineAreNotTheReplicasFault() {
    assertThat(Eligibility.isReplicaFault(new ReplicaHttpException("r", 503, "", true, null))).isTrue();
    assertThat(Eligibility.isReplicaFault(new ReplicaHttpException("r", 429, "", true, null))).isFalse();
    assertThat(Eligibility.isReplicaFault(new ReplicaHttpException("r", 400, "", false, null))).isFalse();
    assertThat(Eligibility.isReplicaFault(new io.github.llmrouter.api.LlmTimeoutException(
        "first byte", "r", null, true))).isTrue();
    assertThat(Eligibility.isReplicaFault(new io.github.llmrouter.api.LlmTimeoutException(
        "deadline", "r", null, false))).isFalse();
    assertThat(Eligibility.isReplicaFault(new io.github.llmrouter.api.ReplicaUnreachableException(
        "r", new java.net.ConnectException("refused")))).isTrue();
  }
}
