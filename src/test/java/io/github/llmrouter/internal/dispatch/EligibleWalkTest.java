package io.github.llmrouter.internal.dispatch;

import static io.github.llmrouter.routing.Fleets.named;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.data.Offset.offset;

import io.github.llmrouter.api.ReplicaHttpException;
import io.github.llmrouter.dispatch.CircuitBreakerPolicy;
import io.github.llmrouter.load.LocalLoad;
import io.github.llmrouter.observe.CircuitBreakerEvent;
import io.github.llmrouter.internal.health.StatusTracker;
import io.github.llmrouter.replica.OutlierDetection;
import io.github.llmrouter.replica.ReplicaSet;
import io.github.llmrouter.routing.KeyExtractor;
import io.github.llmrouter.routing.PrefixHash;
import io.github.llmrouter.routing.Ranking;
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
  private static final KeyExtractor KEYS = KeyExtractor.prefix(KeyExtractor.DEFAULT_PREFIX_CHARS);
  private final ManualTicker ticker = new ManualTicker();
  private final EventRecorder events = new EventRecorder();

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
      EligibleWalk walk = new EligibleWalk(picker.rank(r, load), eligibility, r, KEYS);
      counts[walk.next(ticker.read())]++;
    }
    return counts;
  }

  private ReplicaBreakers noBreakers() {
    return new ReplicaBreakers(CircuitBreakerPolicy.disabled(), ticker, events);
  }

  /** {@code five} (r0..r4) where r4 joins four warm replicas now: its 30 s slow start begins. */
  private Eligibility aFifthReplicaJustJoined(ReplicaSet five) {
    StatusTracker tracker = new StatusTracker(OutlierDetection.defaults(), Duration.ofSeconds(30),
        ticker, events);
    tracker.update(named(4), "test");
    tracker.update(five, "test");
    return Eligibility.of(tracker, noBreakers(), Duration.ofSeconds(10), five);
  }

  @Test
  void aJoiningReplicasShareOfKeysRampsLinearlyFromTenPercentOverTheWindow() {
    ReplicaSet five = named(5);
    Eligibility eligibility = aFifthReplicaJustJoined(five);
    // What the newcomer owns when warm: the reference for its share.
    double owned = firstPicks(five, Eligibility.of(
        new StatusTracker(OutlierDetection.defaults(), Duration.ZERO, ticker, events),
        noBreakers(), Duration.ofSeconds(10), five))[4];

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
    ReplicaSet five = named(5);
    Eligibility eligibility = aFifthReplicaJustJoined(five);
    ReplicaPicker picker = PrefixHash.builder().build().newPicker(five);
    LocalLoad load = LocalLoad.of(five);
    ticker.advance(Duration.ofSeconds(10));
    int moved = 0;
    for (int i = 0; i < 2000; i++) {
      RoutingRequest r = key(i);
      EligibleWalk first = new EligibleWalk(picker.rank(r, load), eligibility, r, KEYS);
      EligibleWalk again = new EligibleWalk(picker.rank(r, load), eligibility, r, KEYS);
      int a = first.next(ticker.read());
      assertThat(again.next(ticker.read())).isEqualTo(a); // a key's answer is stable
      Ranking ring = picker.rank(r, load);
      int owner = ring.next();
      if (owner == 4 && a != 4) {
        moved++;
        assertThat(a).as("a declined key of the newcomer goes to its next ring replica")
            .isEqualTo(ring.next());
      } else {
        assertThat(a).as("every other key stays with its owner").isEqualTo(owner);
      }
    }
    assertThat(moved).isPositive();
  }

  @Test
  void aSlowStartAdmitsByThePolicysOwnKeySoACustomKeyGetsOneAnswerForAllItsRequests() {
    ReplicaSet five = named(5);
    Eligibility eligibility = aFifthReplicaJustJoined(five);
    LocalLoad load = LocalLoad.of(five);
    ticker.advance(Duration.ofSeconds(15)); // the newcomer takes half of its keys
    int answers = 0;
    for (int session = 0; session < 40; session++) {
      String id = "session-" + session;
      KeyExtractor bySession = KeyExtractor.of(r -> id); // every prompt of the session: one key
      ReplicaPicker picker = PrefixHash.builder().keyExtractor(bySession).build().newPicker(five);
      if (picker.rank(key(0), load).next() != 4) continue; // a key the newcomer owns
      answers++;
      java.util.Set<Integer> firstPicks = new java.util.HashSet<>();
      for (int i = 0; i < 50; i++) {
        RoutingRequest r = key(i); // different prompts
        firstPicks.add(new EligibleWalk(picker.rank(r, load), eligibility, r, bySession)
            .next(ticker.read()));
      }
      assertThat(firstPicks).as(id).hasSize(1);
    }
    assertThat(answers).as("sessions the newcomer owns").isPositive();
  }

  @Test
  void ejectedReplicasAreSkippedAndWhenNoneIsEligibleEveryReplicaIsTriedInRankOrder() {
    StatusTracker tracker = new StatusTracker(OutlierDetection.defaults(), Duration.ZERO, ticker,
        events);
    ReplicaBreakers breakers = new ReplicaBreakers(CircuitBreakerPolicy.disabled(), ticker, events);
    ReplicaSet set = named(3);
    tracker.update(set, "test");
    for (int i = 0; i < 3; i++) tracker.setHealthy("r" + i, false, "down");
    Eligibility eligibility = Eligibility.of(tracker, breakers, Duration.ofSeconds(10), set);
    ReplicaPicker picker = PrefixHash.builder().build().newPicker(set);
    RoutingRequest r = key(7);
    List<Integer> ranked = new ArrayList<>();
    var ranking = picker.rank(r, LocalLoad.of(set));
    for (int i; (i = ranking.next()) >= 0; ) ranked.add(i);

    EligibleWalk walk = new EligibleWalk(picker.rank(r, LocalLoad.of(set)), eligibility, r, KEYS);
    List<Integer> tried = new ArrayList<>();
    for (int i; (i = walk.next(ticker.read())) >= 0; ) {
      assertThat(walk.panicked()).isTrue();
      assertThat(walk.reason()).startsWith("panic");
      tried.add(i);
    }
    assertThat(tried).isEqualTo(ranked);

    tracker.setHealthy("r" + ranked.get(0), true, "up");
    EligibleWalk healthy = new EligibleWalk(picker.rank(r, LocalLoad.of(set)), eligibility, r, KEYS);
    assertThat(healthy.next(ticker.read())).isEqualTo(ranked.get(0));
    assertThat(healthy.panicked()).isFalse();
    assertThat(healthy.next(ticker.read())).as("no panic failover once one was eligible")
        .isEqualTo(-1);
  }

  @Test
  void anOpenBreakerIsSkippedAndHalfOpensAfterItsOpenDuration() {
    StatusTracker tracker = new StatusTracker(OutlierDetection.disabled(), Duration.ZERO, ticker,
        events);
    CircuitBreakerPolicy policy = CircuitBreakerPolicy.builder().slidingWindowSize(4)
        .minimumCalls(4).failureRateThreshold(50).openDuration(Duration.ofSeconds(10))
        .halfOpenCalls(1).build();
    ReplicaBreakers breakers = new ReplicaBreakers(policy, ticker, events);
    ReplicaSet set = named(2);
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
