package io.github.llmrouter.internal.dispatch;

import static io.github.llmrouter.routing.Fleets.named;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

import io.github.llmrouter.api.LlmException;
import io.github.llmrouter.api.LlmTimeoutException;
import io.github.llmrouter.api.MalformedResponseException;
import io.github.llmrouter.api.ReplicaHttpException;
import io.github.llmrouter.api.ReplicaUnreachableException;
import io.github.llmrouter.dispatch.CircuitBreakerPolicy;
import io.github.llmrouter.internal.dispatch.Eligibility.Standing;
import io.github.llmrouter.internal.health.StatusTracker;
import io.github.llmrouter.internal.load.InFlightCounter;
import io.github.llmrouter.internal.load.LocalLoad;
import io.github.llmrouter.observe.CircuitBreakerEvent;
import io.github.llmrouter.observe.EjectionEvent;
import io.github.llmrouter.replica.OutlierDetection;
import io.github.llmrouter.replica.ReplicaSet;
import io.github.llmrouter.testing.EventRecorder;
import io.github.llmrouter.testing.ManualTicker;
import java.io.IOException;
import java.net.ConnectException;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * Which replicas may take an attempt (slow start, {@code Retry-After} pauses, breakers) and how
 * each kind of outcome is booked: what counts against a replica, what clears it, what says
 * nothing. Logical time, no HTTP.
 */
class EligibilityTest {
  private static final Duration SLOW_START = Duration.ofSeconds(30);
  private final ManualTicker ticker = new ManualTicker();
  private final EventRecorder events = new EventRecorder();

  private static ReplicaHttpException http(int status, Duration retryAfter) {
    return new ReplicaHttpException("r", status, "", true, retryAfter);
  }

  private static ReplicaHttpException http(int status) {
    return new ReplicaHttpException("r", status, "", status >= 500, null);
  }

  private static LlmTimeoutException theCallersDeadline() {
    return new LlmTimeoutException("call deadline", null, null, false);
  }

  private StatusTracker tracker(OutlierDetection outliers, ReplicaSet set) {
    StatusTracker tracker = new StatusTracker(outliers, SLOW_START, Duration.ZERO, ticker, events);
    tracker.update(set, "test");
    return tracker;
  }

  private Eligibility eligibility(StatusTracker tracker, CircuitBreakerPolicy breakers,
      Duration maxPause, ReplicaSet set) {
    return Eligibility.of(tracker, new ReplicaBreakers(breakers, ticker, events), maxPause, set);
  }

  /** Breakers that open on one failure and, 10 s later, let one probe through. */
  private static CircuitBreakerPolicy openOnOneFailure() {
    return CircuitBreakerPolicy.builder().slidingWindowSize(1).minimumCalls(1)
        .failureRateThreshold(100).openDuration(Duration.ofSeconds(10)).halfOpenCalls(1).build();
  }

  @Test
  void aSlowStartingReplicaTakesTheKeysBelowItsShareAndDefersTheRest() {
    StatusTracker tracker = tracker(OutlierDetection.defaults(), named(1));
    ReplicaSet two = named(2);
    tracker.update(two, "test"); // r1 joins: its share starts at 10%
    Eligibility e = eligibility(tracker, CircuitBreakerPolicy.disabled(), Duration.ZERO, two);
    double min = StatusTracker.SLOW_START_MIN_SHARE;

    assertThat(e.admit(1, ticker.read(), () -> Math.nextDown(min))).isEqualTo(Standing.ADMIT);
    assertThat(e.admit(1, ticker.read(), () -> min)).as("a key at the share is above it")
        .isEqualTo(Standing.DEFER);
    assertThat(e.admit(0, ticker.read(), () -> Math.nextDown(1.0))).as("warm: every key")
        .isEqualTo(Standing.ADMIT);
    ticker.advance(Duration.ofSeconds(15));
    assertThat(e.admit(1, ticker.read(), () -> 0.4999)).isEqualTo(Standing.ADMIT);
    assertThat(e.admit(1, ticker.read(), () -> 0.5)).isEqualTo(Standing.DEFER);
    ticker.advance(Duration.ofSeconds(15));
    assertThat(e.admit(1, ticker.read(), () -> Math.nextDown(1.0))).isEqualTo(Standing.ADMIT);
  }

  @Test
  void aRetryAfterPausesTheReplicaUntilThenCappedAtTheMaximumPause() {
    ReplicaSet two = named(2);
    Eligibility e = eligibility(tracker(OutlierDetection.defaults(), two),
        CircuitBreakerPolicy.disabled(), Duration.ofSeconds(10), two);
    long t0 = ticker.read();
    e.record(0, false, t0, 1_000, http(429, Duration.ofSeconds(30)));
    e.record(1, false, t0, 1_000, http(503, Duration.ofSeconds(2)));

    assertThat(e.pausedUntil(0)).isEqualTo(t0 + Duration.ofSeconds(10).toNanos());
    assertThat(e.pausedUntil(1)).isEqualTo(t0 + Duration.ofSeconds(2).toNanos());
    assertThat(e.admit(0, t0, () -> 0)).isEqualTo(Standing.PAUSED);
    ticker.advance(Duration.ofSeconds(10).minusNanos(1));
    assertThat(e.admit(0, ticker.read(), () -> 0)).isEqualTo(Standing.PAUSED);
    ticker.advance(Duration.ofNanos(1));
    assertThat(e.admit(0, ticker.read(), () -> 0)).isEqualTo(Standing.ADMIT);
  }

  @Test
  void aZeroMaximumPauseIgnoresRetryAfter() {
    ReplicaSet one = named(1);
    Eligibility e = eligibility(tracker(OutlierDetection.defaults(), one),
        CircuitBreakerPolicy.disabled(), Duration.ZERO, one);
    e.record(0, false, ticker.read(), 1_000, http(503, Duration.ofSeconds(5)));

    assertThat(e.pausedUntil(0)).isEqualTo(Long.MIN_VALUE);
    assertThat(e.admit(0, ticker.read(), () -> 0)).isEqualTo(Standing.ADMIT);
  }

  @Test
  void eachKindOfReplicaFaultEjectsAndIsNamedInTheEjectionReason() {
    ReplicaSet six = named(6);
    OutlierDetection ejectAtOnce = OutlierDetection.builder().consecutiveFailures(1)
        .maxEjectionPercent(100).build();
    Eligibility e = eligibility(tracker(ejectAtOnce, six), CircuitBreakerPolicy.disabled(),
        Duration.ZERO, six);
    long now = ticker.read();
    e.record(0, false, now, 1_000, http(500));
    e.record(1, false, now, 1_000, new LlmTimeoutException("no first byte in 1 s", "r1", null,
        true));
    e.record(2, false, now, 1_000, new MalformedResponseException("r2", "not JSON",
        new IOException("unexpected end")));
    e.record(3, false, now, 1_000, new ReplicaUnreachableException("r3",
        new ConnectException("refused")));

    assertThat(events.ejections).extracting(EjectionEvent::replicaId, EjectionEvent::reason)
        .containsExactly(
            tuple("r0", "1 consecutive failures, last: HTTP 500"),
            tuple("r1", "1 consecutive failures, last: timeout"),
            tuple("r2", "1 consecutive failures, last: malformed response"),
            tuple("r3", "1 consecutive failures, last: unreachable (ConnectException)"));
  }

  @Test
  void a4xxTheCallersDeadlineOrACancellationNeverEjects() {
    ReplicaSet three = named(3);
    OutlierDetection ejectAtOnce = OutlierDetection.builder().consecutiveFailures(1)
        .maxEjectionPercent(100).build();
    Eligibility e = eligibility(tracker(ejectAtOnce, three), CircuitBreakerPolicy.disabled(),
        Duration.ZERO, three);
    long now = ticker.read();
    e.record(0, false, now, 1_000, http(499));
    e.record(0, false, now, 1_000, http(429));
    e.record(0, false, now, 1_000, theCallersDeadline());
    e.record(0, false, now, 0, new LlmException("cancelled by the caller"));

    assertThat(events.ejections).isEmpty();
    assertThat(e.admit(0, now, () -> 0)).isEqualTo(Standing.ADMIT);
  }

  @Test
  void aSuccessOrA4xxClearsTheFailuresInARowAndTheCallersDeadlineLeavesThem() {
    ReplicaSet three = named(3);
    StatusTracker tracker = tracker(OutlierDetection.builder().consecutiveFailures(3).build(),
        three);
    Eligibility e = eligibility(tracker, CircuitBreakerPolicy.disabled(), Duration.ZERO, three);
    long now = ticker.read();
    e.record(0, false, now, 1_000, http(503));
    e.record(0, false, now, 1_000, http(503));
    e.record(0, false, now, 1_000, null);
    assertThat(tracker.get("r0").consecutiveFailures()).as("after a success").isZero();

    e.record(0, false, now, 1_000, http(503));
    e.record(0, false, now, 1_000, http(503));
    e.record(0, false, now, 1_000, http(429));
    assertThat(tracker.get("r0").consecutiveFailures()).as("after a 429").isZero();

    e.record(0, false, now, 1_000, http(503));
    e.record(0, false, now, 1_000, theCallersDeadline());
    assertThat(tracker.get("r0").consecutiveFailures()).as("after the deadline").isEqualTo(1);
  }

  @Test
  void aBreakerCountsA4xxAsASuccessOfTheReplica() {
    ReplicaSet one = named(1);
    CircuitBreakerPolicy halfFailing = CircuitBreakerPolicy.builder().slidingWindowSize(4)
        .minimumCalls(4).failureRateThreshold(50).build();
    Eligibility e = eligibility(tracker(OutlierDetection.disabled(), one), halfFailing,
        Duration.ZERO, one);
    for (LlmException outcome : new LlmException[] {http(503), http(503), http(400), http(400)}) {
      assertThat(e.admit(0, ticker.read(), () -> 0)).isEqualTo(Standing.ADMIT);
      e.record(0, true, ticker.read(), 1_000, outcome);
    }

    // Four calls recorded, two failed: the 4xx answers filled the window as successes.
    assertThat(events.breakers).extracting(CircuitBreakerEvent::to, CircuitBreakerEvent::reason)
        .containsExactly(tuple("OPEN", "failure rate 50.0% >= 50.0%"));
  }

  @Test
  void theCallersDeadlineHandsTheBreakersProbePermissionBackUnused() {
    ReplicaSet one = named(1);
    Eligibility e = eligibility(tracker(OutlierDetection.disabled(), one), openOnOneFailure(),
        Duration.ZERO, one);
    assertThat(e.admit(0, ticker.read(), () -> 0)).isEqualTo(Standing.ADMIT);
    e.record(0, true, ticker.read(), 1_000, http(503));
    ticker.advance(Duration.ofSeconds(11));
    assertThat(e.admit(0, ticker.read(), () -> 0)).as("the one probe")
        .isEqualTo(Standing.ADMIT);
    assertThat(e.admit(0, ticker.read(), () -> 0)).isEqualTo(Standing.SKIP);

    e.record(0, true, ticker.read(), 1_000, theCallersDeadline());

    assertThat(e.admit(0, ticker.read(), () -> 0)).as("the probe again")
        .isEqualTo(Standing.ADMIT);
    assertThat(events.breakers).extracting(CircuitBreakerEvent::to)
        .containsExactly("OPEN", "HALF_OPEN");
  }

  @Test
  void withoutBreakersNoPickHoldsAPermissionAndEveryOutcomeIsBookedWithoutOne() {
    ReplicaSet one = named(1);
    Eligibility e = eligibility(tracker(OutlierDetection.defaults(), one),
        CircuitBreakerPolicy.disabled(), Duration.ZERO, one);
    assertThat(e.breaker(0)).isNull();
    assertThat(e.tryPermit(0)).isFalse();
    for (LlmException outcome : new LlmException[] {http(503), http(400), theCallersDeadline(),
        null}) {
      e.record(0, true, ticker.read(), 1_000, outcome);
    }
    assertThat(e.admit(0, ticker.read(), () -> 0)).isEqualTo(Standing.ADMIT);
  }

  @Test
  void anAttemptLastsFromItsStartUntilItsOutcomeIsRecordedOnce() {
    ReplicaSet one = named(1);
    Eligibility e = eligibility(tracker(OutlierDetection.disabled(), one), openOnOneFailure(),
        Duration.ZERO, one);
    long t0 = ticker.read();
    assertThat(e.admit(0, t0, () -> 0)).isEqualTo(Standing.ADMIT);
    InFlightCounter counter = LocalLoad.of(one).counter(0);
    counter.acquire();
    Attempt a = new Attempt(1, new Pick(0, Pick.Kind.RANKED, true, true), one.get(0), counter, e,
        ticker, t0, (x, o, v, f, t) -> { });
    assertThat(a.durationNanos(t0 + 5_000)).isEqualTo(5_000);

    assertThat(a.failed(http(503), t0 + 7_000)).isTrue();
    assertThat(a.failed(http(503), t0 + 7_500)).isFalse();
    a.answered(null, t0 + 8_000);
    a.abandoned(t0 + 9_000);

    assertThat(a.durationNanos(t0 + 9_000)).as("recorded").isZero();
    assertThat(counter.get()).as("the in-flight count released once").isZero();
    assertThat(events.breakers).extracting(CircuitBreakerEvent::to).as("the failure, once")
        .containsExactly("OPEN");
  }

  @Test
  void anAbandonedAttemptHandsItsProbePermissionBackAndIsBookedOnce() {
    ReplicaSet one = named(1);
    Eligibility e = eligibility(tracker(OutlierDetection.disabled(), one), openOnOneFailure(),
        Duration.ZERO, one);
    assertThat(e.admit(0, ticker.read(), () -> 0)).isEqualTo(Standing.ADMIT);
    e.record(0, true, ticker.read(), 1_000, http(503));
    ticker.advance(Duration.ofSeconds(11));
    assertThat(e.admit(0, ticker.read(), () -> 0)).as("the one probe")
        .isEqualTo(Standing.ADMIT);
    Attempt probe = new Attempt(1, new Pick(0, Pick.Kind.RANKED, true, true), one.get(0),
        LocalLoad.of(one).counter(0), e, ticker, ticker.read(), (x, o, v, f, t) -> { });

    probe.abandoned(ticker.read());
    probe.failed(http(503), ticker.read()); // already booked: says nothing more

    assertThat(e.admit(0, ticker.read(), () -> 0)).as("the probe again")
        .isEqualTo(Standing.ADMIT);
    assertThat(events.breakers).extracting(CircuitBreakerEvent::to)
        .containsExactly("OPEN", "HALF_OPEN");
  }

  @Test
  void longAnswersThatSucceedNeverOpenTheBreaker() {
    ReplicaSet one = named(1);
    CircuitBreakerPolicy fourCalls = CircuitBreakerPolicy.builder().slidingWindowSize(4)
        .minimumCalls(4).build();
    Eligibility e = eligibility(tracker(OutlierDetection.disabled(), one), fourCalls,
        Duration.ZERO, one);
    long tenMinutes = Duration.ofMinutes(10).toNanos(); // a long generation, answered in full
    for (int i = 0; i < 8; i++) {
      assertThat(e.admit(0, ticker.read(), () -> 0)).isEqualTo(Standing.ADMIT);
      e.record(0, true, ticker.read(), tenMinutes, null);
    }
    assertThat(events.breakers).isEmpty();
    assertThat(e.breaker(0).getState()).isEqualTo(
        io.github.resilience4j.circuitbreaker.CircuitBreaker.State.CLOSED);
  }

  @Test
  void eachBreakerTransitionSaysWhy() {
    ReplicaSet one = named(1);
    Eligibility e = eligibility(tracker(OutlierDetection.disabled(), one), openOnOneFailure(),
        Duration.ZERO, one);
    assertThat(e.admit(0, ticker.read(), () -> 0)).isEqualTo(Standing.ADMIT);
    e.record(0, true, ticker.read(), 1_000, http(503));
    ticker.advance(Duration.ofSeconds(11));
    assertThat(e.admit(0, ticker.read(), () -> 0)).isEqualTo(Standing.ADMIT);
    e.record(0, true, ticker.read(), 1_000, http(503)); // the probe fails
    ticker.advance(Duration.ofSeconds(11));
    assertThat(e.admit(0, ticker.read(), () -> 0)).isEqualTo(Standing.ADMIT);
    e.record(0, true, ticker.read(), 1_000, null); // the next probe succeeds

    assertThat(events.breakers).extracting(CircuitBreakerEvent::from, CircuitBreakerEvent::to,
        CircuitBreakerEvent::reason).containsExactly(
            tuple("CLOSED", "OPEN", "failure rate 100.0% >= 100.0%"),
            tuple("OPEN", "HALF_OPEN", "open for PT10S: letting 1 probe calls through"),
            tuple("HALF_OPEN", "OPEN", "probe calls failed: failure rate 100.0% >= 100.0%"),
            tuple("OPEN", "HALF_OPEN", "open for PT10S: letting 1 probe calls through"),
            tuple("HALF_OPEN", "CLOSED", "probe calls succeeded"));
  }

  /**
   * Two replicas behind breakers that open on one failure, with the dispatcher's hook from a
   * replica reached again to its breaker; replica 0 holds a breaker permission.
   */
  private Eligibility wiredAsTheDispatcherDoes(StatusTracker tracker) {
    ReplicaSet two = named(2);
    ReplicaBreakers breakers = new ReplicaBreakers(openOnOneFailure(), ticker, events);
    tracker.onReachedAgain(breakers::reachable);
    Eligibility e = Eligibility.of(tracker, breakers, Duration.ZERO, two);
    assertThat(e.admit(0, ticker.read(), () -> 0)).isEqualTo(Standing.ADMIT);
    return e;
  }

  @Test
  void aRefusedConnectTakesItOutAndReachingItAgainLetsItsOpenBreakerProbeAtOnce() {
    StatusTracker tracker = tracker(OutlierDetection.defaults(), named(2));
    Eligibility e = wiredAsTheDispatcherDoes(tracker);

    e.record(0, true, ticker.read(), 1_000, new ReplicaUnreachableException("r0",
        new ConnectException("Connection refused")));

    assertThat(e.status(0).isGone()).isTrue();
    assertThat(e.admit(0, ticker.read(), () -> 0)).isEqualTo(Standing.SKIP);
    tracker.reached("r0", 0); // a scrape got an answer: 1 s later, not after the 10 s open time
    assertThat(events.breakers).extracting(CircuitBreakerEvent::to)
        .containsExactly("OPEN", "HALF_OPEN");
    assertThat(e.admit(0, ticker.read(), () -> 0)).as("the probe").isEqualTo(Standing.ADMIT);
  }

  @Test
  void aBreakerOpenedBy5xxKeepsItsOpenTimeWhenAScrapeReachesTheReplica() {
    StatusTracker tracker = tracker(OutlierDetection.defaults(), named(2));
    Eligibility e = wiredAsTheDispatcherDoes(tracker);
    e.record(0, true, ticker.read(), 1_000, http(503));

    tracker.reached("r0", 0);

    assertThat(events.breakers).extracting(CircuitBreakerEvent::to).containsExactly("OPEN");
    assertThat(e.admit(0, ticker.read(), () -> 0)).isEqualTo(Standing.SKIP);
  }

  @Test
  void a503FromAReplicaJustBackIsItsStartNotAFailure() {
    StatusTracker tracker = tracker(OutlierDetection.defaults(), named(2));
    Eligibility e = wiredAsTheDispatcherDoes(tracker);
    ticker.advance(Duration.ofHours(1));
    tracker.refused("r0", "refused"); // stopped
    tracker.reached("r0", 0); // its process is back, its model still loading

    // Loading: 503 after 503, each failed over; it is neither ejected nor cut off by its breaker.
    for (int i = 0; i < 12; i++) {
      assertThat(e.admit(0, ticker.read(), () -> 0)).isEqualTo(Standing.ADMIT);
      e.record(0, true, ticker.read(), 1_000, http(503));
      ticker.advance(Duration.ofMillis(100));
    }
    assertThat(e.status(0).isEjected(ticker.read())).isFalse();
    assertThat(events.ejections).isEmpty();
    assertThat(events.breakers).isEmpty();
    assertThat(e.admit(0, ticker.read(), () -> 0)).isEqualTo(Standing.ADMIT);

    // Once it has been back for the base ejection time, a 503 is a failure again; and a 500
    // never was its start.
    ticker.advance(OutlierDetection.DEFAULT_BASE_EJECTION_TIME);
    assertThat(e.admit(0, ticker.read(), () -> 0)).isEqualTo(Standing.ADMIT);
    e.record(0, true, ticker.read(), 1_000, http(503));
    assertThat(events.breakers).extracting(CircuitBreakerEvent::to).containsExactly("OPEN");
    for (int i = 0; i < 4; i++) e.record(0, false, ticker.read(), 1_000, http(503));
    assertThat(e.status(0).isEjected(ticker.read())).isTrue();
    tracker.refused("r1", "refused");
    tracker.reached("r1", 0);
    assertThat(e.admit(1, ticker.read(), () -> 0)).isEqualTo(Standing.ADMIT);
    e.record(1, true, ticker.read(), 1_000, http(500));
    assertThat(events.breakers).filteredOn(b -> b.replicaId().equals("r1"))
        .extracting(CircuitBreakerEvent::to).containsExactly("OPEN");
  }
}
