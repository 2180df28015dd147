package io.github.llmrouter.internal.dispatch;

import static io.github.llmrouter.routing.Fleets.named;
import static java.util.Objects.requireNonNull;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.data.Offset.offset;

import io.github.llmrouter.api.ReplicaHttpException;
import io.github.llmrouter.dispatch.CircuitBreakerPolicy;
import io.github.llmrouter.internal.dispatch.Eligibility.Standing;
import io.github.llmrouter.internal.health.StatusTracker;
import io.github.llmrouter.internal.load.LocalLoad;
import io.github.llmrouter.observe.CircuitBreakerEvent;
import io.github.llmrouter.observe.RoutedEvent;
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
import java.util.OptionalLong;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

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
      Walk walk = new Walk(picker.rank(r, load), eligibility, r, KEYS);
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
        Duration.ZERO,
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
        new StatusTracker(OutlierDetection.defaults(), Duration.ZERO, Duration.ZERO, ticker,
            events),
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
      Walk first = new Walk(picker.rank(r, load), eligibility, r, KEYS);
      Walk again = new Walk(picker.rank(r, load), eligibility, r, KEYS);
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
        firstPicks.add(new Walk(picker.rank(r, load), eligibility, r, bySession)
            .next(ticker.read()));
      }
      assertThat(firstPicks).as(id).hasSize(1);
    }
    assertThat(answers).as("sessions the newcomer owns").isPositive();
  }

  @Test
  void ejectedReplicasAreSkippedAndWhenNoneIsEligibleEveryReplicaIsTriedInRankOrder() {
    StatusTracker tracker = new StatusTracker(OutlierDetection.defaults(), Duration.ZERO,
        Duration.ZERO, ticker,
        events);
    ReplicaBreakers breakers = new ReplicaBreakers(CircuitBreakerPolicy.disabled(), ticker, events);
    ReplicaSet set = named(6); // more than the four the walk makes room for at first
    tracker.update(set, "test");
    for (int i = 0; i < 6; i++) tracker.setHealthy("r" + i, false, "down");
    Eligibility eligibility = Eligibility.of(tracker, breakers, Duration.ofSeconds(10), set);
    ReplicaPicker picker = PrefixHash.builder().build().newPicker(set);
    RoutingRequest r = key(7);
    List<Integer> ranked = new ArrayList<>();
    var ranking = picker.rank(r, LocalLoad.of(set));
    for (int i; (i = ranking.next()) >= 0; ) ranked.add(i);

    Walk walk = new Walk(picker.rank(r, LocalLoad.of(set)), eligibility, r, KEYS);
    List<Integer> tried = new ArrayList<>();
    for (int i; (i = walk.next(ticker.read())) >= 0; ) {
      assertThat(walk.panicked()).isTrue();
      assertThat(walk.reason()).startsWith("panic");
      tried.add(i);
    }
    assertThat(tried).isEqualTo(ranked);

    tracker.setHealthy("r" + ranked.get(0), true, "up");
    Walk healthy = new Walk(picker.rank(r, LocalLoad.of(set)), eligibility, r, KEYS);
    assertThat(healthy.next(ticker.read())).isEqualTo(ranked.get(0));
    assertThat(healthy.panicked()).isFalse();
    assertThat(healthy.next(ticker.read())).as("no panic failover once one was eligible")
        .isEqualTo(-1);
  }

  @Test
  void anOpenBreakerIsSkippedAndHalfOpensAfterItsOpenDuration() {
    StatusTracker tracker = new StatusTracker(OutlierDetection.disabled(), Duration.ZERO,
        Duration.ZERO, ticker,
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
      assertThat(eligibility.admit(0, ticker.read(), () -> 0)).isEqualTo(Standing.ADMIT);
      eligibility.record(0, true, ticker.read(), 1_000, http503);
    }
    assertThat(events.breakers).extracting(CircuitBreakerEvent::to).containsExactly("OPEN");
    assertThat(events.breakers.get(0).reason()).isEqualTo("failure rate 100.0% >= 50.0%");
    assertThat(eligibility.admit(0, ticker.read(), () -> 0)).isEqualTo(Standing.SKIP);
    assertThat(eligibility.admit(1, ticker.read(), () -> 0)).isEqualTo(Standing.ADMIT);
    eligibility.record(1, true, ticker.read(), 1_000, null);

    ticker.advance(Duration.ofSeconds(10));
    assertThat(eligibility.admit(0, ticker.read(), () -> 0)).as("open for exactly 10 s")
        .isEqualTo(Standing.SKIP);
    ticker.advance(Duration.ofMillis(1));
    assertThat(eligibility.admit(0, ticker.read(), () -> 0)).isEqualTo(Standing.ADMIT);
    assertThat(events.breakers).extracting(CircuitBreakerEvent::to)
        .containsExactly("OPEN", "HALF_OPEN");
    assertThat(eligibility.admit(0, ticker.read(), () -> 0)).as("one probe at a time")
        .isEqualTo(Standing.SKIP);
    eligibility.record(0, true, ticker.read(), 1_000, null);
    assertThat(events.breakers).extracting(CircuitBreakerEvent::to)
        .containsExactly("OPEN", "HALF_OPEN", "CLOSED");
  }

  /** A ranking in a fixed order, with fixed predictions. */
  private static final class InOrder implements Ranking {
    private final int[] order;
    private int taken;
    double estimatedWaitSeconds = Double.NaN;

    InOrder(int... order) {
      this.order = order;
    }

    @Override
    public int next() {
      return taken < order.length ? order[taken++] : -1;
    }

    @Override
    public String reason() {
      return "in test order";
    }

    @Override
    public long predictedCachedTokens() {
      return 128;
    }

    @Override
    public double estimatedWaitSeconds() {
      return estimatedWaitSeconds;
    }

    @Override
    public String versusRunnerUp() {
      return "fewer queued than r1";
    }
  }

  /** A tracker of {@code set} whose slow start lasts 30 s; no replica warming yet. */
  private StatusTracker warmTracker(ReplicaSet set) {
    StatusTracker tracker = new StatusTracker(OutlierDetection.defaults(), Duration.ofSeconds(30),
        Duration.ZERO,
        ticker, events);
    tracker.update(set, "test");
    return tracker;
  }

  /** Replica {@code id} comes back healthy now: its slow start begins at a 10% share. */
  private static void restarts(StatusTracker tracker, String id) {
    tracker.setHealthy(id, false, "down");
    tracker.setHealthy(id, true, "up");
  }

  /** The first test request whose key falls at or above {@code share}: a slow start declines it. */
  private static RoutingRequest declinedBelow(double share, Eligibility eligibility) {
    for (int i = 0; i < 100; i++) {
      RoutingRequest r = key(i);
      if (new EligibleWalk(new InOrder(), eligibility, r, KEYS, null).get() >= share) return r;
    }
    throw new AssertionError("no key at or above " + share);
  }

  /** Breakers that open on one failure and, 10 s later, let one probe through. */
  private ReplicaBreakers openOnOneFailure() {
    return new ReplicaBreakers(CircuitBreakerPolicy.builder().slidingWindowSize(1).minimumCalls(1)
        .failureRateThreshold(100).openDuration(Duration.ofSeconds(10)).halfOpenCalls(1).build(),
        ticker, events);
  }

  /** Replica {@code index} fails an attempt it was admitted for: a breaker of one call opens. */
  private void failsOnce(Eligibility eligibility, int index, Duration retryAfter) {
    assertThat(eligibility.admit(index, ticker.read(), () -> 0)).isEqualTo(Standing.ADMIT);
    eligibility.record(index, true, ticker.read(), 1_000,
        new ReplicaHttpException("r" + index, 503, "", true, retryAfter));
  }

  @Test
  void aWarmingReplicaThatDeclinesTheKeyIsTriedOnlyAfterEveryWarmOne() {
    ReplicaSet three = named(3);
    StatusTracker tracker = warmTracker(three);
    restarts(tracker, "r1");
    Eligibility eligibility = Eligibility.of(tracker, noBreakers(), Duration.ZERO, three);
    RoutingRequest r = declinedBelow(StatusTracker.SLOW_START_MIN_SHARE, eligibility);
    Walk walk = new Walk(new InOrder(1, 0, 2), eligibility, r, KEYS);

    assertThat(walk.next(ticker.read())).isEqualTo(0);
    assertThat(walk.reason()).isEqualTo("in test order");
    assertThat(walk.fromRanking()).isTrue();
    assertThat(walk.next(ticker.read())).isEqualTo(2);
    assertThat(walk.next(ticker.read())).isEqualTo(1);
    assertThat(walk.reason()).isEqualTo("slow start: no fully warm replica left");
    assertThat(walk.fromRanking()).isFalse();
    assertThat(walk.panicked()).isFalse();
    assertThat(walk.permitted()).isTrue();
    assertThat(walk.next(ticker.read())).isEqualTo(-1);
    assertThat(walk.picks()).isEqualTo(3);
    assertThat(walk.pausedUntil()).isEmpty();
  }

  @Test
  void aWarmingReplicaTakesABreakerPermissionWhenItIsTried() {
    ReplicaSet two = named(2);
    StatusTracker tracker = warmTracker(two);
    restarts(tracker, "r1");
    Eligibility eligibility = Eligibility.of(tracker, openOnOneFailure(), Duration.ZERO, two);
    RoutingRequest r = declinedBelow(StatusTracker.SLOW_START_MIN_SHARE, eligibility);
    Walk walk = new Walk(new InOrder(1, 0), eligibility, r, KEYS);

    assertThat(walk.next(ticker.read())).isEqualTo(0);
    assertThat(walk.next(ticker.read())).isEqualTo(1);
    assertThat(walk.permitted()).isTrue();
    eligibility.record(1, walk.permitted(), ticker.read(), 1_000,
        new ReplicaHttpException("r1", 503, "", true, null));
    assertThat(events.breakers).extracting(CircuitBreakerEvent::replicaId, CircuitBreakerEvent::to)
        .containsExactly(org.assertj.core.api.Assertions.tuple("r1", "OPEN"));
  }

  @Test
  void aWarmingReplicaBehindAnOpenBreakerIsNotTriedOnceAnotherWasAdmitted() {
    ReplicaSet three = named(3);
    StatusTracker tracker = warmTracker(three);
    restarts(tracker, "r1");
    Eligibility eligibility = Eligibility.of(tracker, openOnOneFailure(), Duration.ZERO, three);
    failsOnce(eligibility, 1, null);
    RoutingRequest r = declinedBelow(StatusTracker.SLOW_START_MIN_SHARE, eligibility);
    Walk walk = new Walk(new InOrder(1, 0, 2), eligibility, r, KEYS);

    assertThat(walk.next(ticker.read())).isEqualTo(0);
    assertThat(walk.next(ticker.read())).isEqualTo(2);
    assertThat(walk.next(ticker.read())).isEqualTo(-1);
    assertThat(walk.picks()).isEqualTo(2);
  }

  @Test
  void inPanicAWarmingReplicaBehindAnOpenBreakerComesAfterTheIneligibleOnes() {
    ReplicaSet two = named(2);
    StatusTracker tracker = warmTracker(two);
    restarts(tracker, "r1");
    tracker.setHealthy("r0", false, "down");
    Eligibility eligibility = Eligibility.of(tracker, openOnOneFailure(), Duration.ZERO, two);
    failsOnce(eligibility, 1, null);
    RoutingRequest r = declinedBelow(StatusTracker.SLOW_START_MIN_SHARE, eligibility);
    Walk walk = new Walk(new InOrder(1, 0), eligibility, r, KEYS);

    assertThat(walk.next(ticker.read())).isEqualTo(0);
    assertThat(walk.panicked()).isTrue();
    assertThat(walk.permitted()).as("a panic pick holds no permission").isFalse();
    assertThat(walk.fromRanking()).isFalse();
    assertThat(walk.reason()).isEqualTo("panic: no eligible replica, trying all");
    assertThat(walk.next(ticker.read())).isEqualTo(1);
    assertThat(walk.panicked()).isTrue();
    assertThat(walk.next(ticker.read())).isEqualTo(-1);
    assertThat(walk.picks()).isEqualTo(2);
  }

  @Test
  void pausedReplicasAreTriedAsTheirPausesEndAndTheWalkSaysWhenTheNextOneEnds() {
    ReplicaSet three = named(3);
    Eligibility eligibility = Eligibility.of(warmTracker(three), noBreakers(),
        Duration.ofSeconds(30), three);
    long t0 = ticker.read();
    int[] pauseSeconds = {1, 5, 4};
    for (int i = 0; i < 3; i++) {
      eligibility.record(i, false, t0, 1_000, new ReplicaHttpException("r" + i, 429, "", true,
          Duration.ofSeconds(pauseSeconds[i])));
    }
    Walk allPaused = new Walk(new InOrder(0, 1, 2), eligibility, key(1), KEYS);
    assertThat(allPaused.next(t0)).as("not even in panic").isEqualTo(-1);
    assertThat(allPaused.pausedUntil()).as("r0's, the first to end")
        .hasValue(t0 + Duration.ofSeconds(1).toNanos());
    ticker.advance(Duration.ofSeconds(3)); // r0's pause is over
    Walk walk = new Walk(new InOrder(0, 1, 2), eligibility, key(1), KEYS);

    assertThat(walk.next(ticker.read())).isEqualTo(0);
    assertThat(walk.next(ticker.read())).isEqualTo(-1);
    assertThat(walk.pausedUntil()).as("r2's, the first to end")
        .hasValue(t0 + Duration.ofSeconds(4).toNanos());
    ticker.advance(Duration.ofSeconds(1));
    assertThat(walk.next(ticker.read())).isEqualTo(2);
    assertThat(walk.reason()).isEqualTo("in test order");
    assertThat(walk.fromRanking()).isFalse();
    assertThat(walk.permitted()).isTrue();
    assertThat(walk.picks()).isEqualTo(2);
    assertThat(walk.next(ticker.read())).isEqualTo(-1);
    assertThat(walk.pausedUntil()).hasValue(t0 + Duration.ofSeconds(5).toNanos());
    ticker.advance(Duration.ofSeconds(1));
    assertThat(walk.next(ticker.read())).isEqualTo(1);
    assertThat(walk.next(ticker.read())).isEqualTo(-1);
    assertThat(walk.pausedUntil()).as("none left").isEmpty();
    assertThat(walk.picks()).isEqualTo(3);
  }

  @ParameterizedTest(name = "with breakers: {0}")
  @ValueSource(booleans = {false, true})
  void aWarmingReplicaWhosePauseEndsIsTriedAsASlowStartPick(boolean withBreakers) {
    ReplicaSet two = named(2);
    StatusTracker tracker = warmTracker(two);
    restarts(tracker, "r1");
    ReplicaBreakers breakers = withBreakers
        ? new ReplicaBreakers(CircuitBreakerPolicy.defaults(), ticker, events) : noBreakers();
    Eligibility eligibility = Eligibility.of(tracker, breakers, Duration.ofSeconds(30), two);
    eligibility.record(1, false, ticker.read(), 1_000,
        new ReplicaHttpException("r1", 429, "", true, Duration.ofSeconds(5)));
    RoutingRequest r = declinedBelow(0.5, eligibility); // r1's share is 1/6 when its pause ends
    Walk walk = new Walk(new InOrder(1, 0), eligibility, r, KEYS);
    assertThat(walk.next(ticker.read())).isEqualTo(0);
    assertThat(walk.next(ticker.read())).isEqualTo(-1);

    ticker.advance(Duration.ofSeconds(5));
    assertThat(walk.next(ticker.read())).isEqualTo(1);
    assertThat(walk.reason()).isEqualTo("slow start: no fully warm replica left");
    assertThat(walk.permitted()).isTrue();
  }

  @Test
  void aReplicaWhosePauseEndsBehindAHalfOpenBreakerIsTriedWithItsOneProbe() {
    ReplicaSet two = named(2);
    Eligibility eligibility = Eligibility.of(warmTracker(two), openOnOneFailure(),
        Duration.ofSeconds(30), two);
    failsOnce(eligibility, 0, Duration.ofSeconds(20)); // open 10 s, paused 20 s
    Walk walk = new Walk(new InOrder(0, 1), eligibility, key(1), KEYS);
    assertThat(walk.next(ticker.read())).isEqualTo(1);

    ticker.advance(Duration.ofSeconds(20));
    assertThat(walk.next(ticker.read())).isEqualTo(0);
    assertThat(walk.permitted()).isTrue();
    assertThat(events.breakers).extracting(CircuitBreakerEvent::to)
        .containsExactly("OPEN", "HALF_OPEN");
  }

  @Test
  void theRoutedEventCarriesTheRankingsPredictionsOnlyForItsOwnPick() {
    ReplicaSet two = named(2);
    StatusTracker tracker = warmTracker(two);
    restarts(tracker, "r1");
    Eligibility eligibility = Eligibility.of(tracker, noBreakers(), Duration.ZERO, two);
    RoutingTable table = RoutingTable.initial(LocalLoad.of(two), PrefixHash.builder().build(),
        eligibility, AdapterAffinity.Placement.NONE);
    RoutingRequest r = declinedBelow(StatusTracker.SLOW_START_MIN_SHARE, eligibility);
    InOrder ranking = new InOrder(1, 0);
    ranking.estimatedWaitSeconds = 0.25;
    Walk walk = new Walk(ranking, eligibility, r, KEYS);

    assertThat(walk.next(ticker.read())).isEqualTo(0);
    RoutedEvent first = walk.routedEvent(7, "chat", 1, table, 0, false, true);
    assertThat(first).isEqualTo(new RoutedEvent(7, "chat", "m", 1, "r0",
        table.replicas.get(0).baseUrl().host(), table.replicas.get(0).baseUrl().port(), false,
        "in test order", 0, 0, 128, Duration.ofMillis(250), "fewer queued than r1"));
    assertThat(walk.next(ticker.read())).isEqualTo(1);
    assertThat(walk.routedEvent(7, "chat", 2, table, 1, true, true)).isEqualTo(new RoutedEvent(7,
        "chat", "m", 2, "r1", table.replicas.get(1).baseUrl().host(),
        table.replicas.get(1).baseUrl().port(), true, "slow start: no fully warm replica left", 0,
        0, -1, null, ""));
  }

  @Test
  void aWaitEstimateIsReportedFromZeroUpToButExcludingABillionSeconds() {
    ReplicaSet one = named(1);
    Eligibility eligibility = Eligibility.of(warmTracker(one), noBreakers(), Duration.ZERO, one);
    RoutingTable table = RoutingTable.initial(LocalLoad.of(one), PrefixHash.builder().build(),
        eligibility, AdapterAffinity.Placement.NONE);
    double[] estimates = {0, Math.nextDown(1e9), 1e9, -1, Double.NaN};
    List<Duration> reported = new ArrayList<>();
    for (double estimate : estimates) {
      InOrder ranking = new InOrder(0);
      ranking.estimatedWaitSeconds = estimate;
      Walk walk = new Walk(ranking, eligibility, key(1), KEYS);
      assertThat(walk.next(ticker.read())).isEqualTo(0);
      reported.add(walk.routedEvent(1, "chat", 1, table, 0, false, true).estimatedWait());
    }
    assertThat(reported).containsExactly(Duration.ZERO,
        Duration.ofNanos(Math.round(Math.nextDown(1e9) * 1e9)), null, null, null);
  }

  /** A walk as these tests read it: each pick's index (-1 when none is left) and the last pick. */
  private static final class Walk {
    private final EligibleWalk walk;
    private @Nullable Pick last;

    Walk(Ranking ranking, Eligibility eligibility, RoutingRequest request, KeyExtractor keys) {
      this.walk = new EligibleWalk(ranking, eligibility, request, keys, null);
    }

    int next(long now) {
      last = walk.next(now);
      return last == null ? -1 : last.index();
    }

    private Pick last() {
      assertThat(last).as("a pick was made").isNotNull();
      return requireNonNull(last);
    }

    boolean panicked() {
      return last().panicked();
    }

    boolean permitted() {
      return last().permitted();
    }

    boolean fromRanking() {
      return last().fromRanking();
    }

    String reason() {
      return walk.reason(last());
    }

    int picks() {
      return walk.picks();
    }

    OptionalLong pausedUntil() {
      return walk.pausedUntil();
    }

    /** The event of the last pick, which must be the one at {@code index}. */
    RoutedEvent routedEvent(long callId, String operation, int attempt, RoutingTable table,
        int index, boolean failover, boolean explain) {
      assertThat(last().index()).isEqualTo(index);
      return walk.routedEvent(callId, operation, attempt, table, last(), failover, explain);
    }
  }
}
