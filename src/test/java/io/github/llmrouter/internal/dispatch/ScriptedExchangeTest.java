package io.github.llmrouter.internal.dispatch;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.github.llmrouter.api.LlmException;
import io.github.llmrouter.api.RawRequest;
import io.github.llmrouter.api.ReplicaHttpException;
import io.github.llmrouter.api.RetriesExhaustedException;
import io.github.llmrouter.dispatch.Admission;
import io.github.llmrouter.dispatch.CircuitBreakerPolicy;
import io.github.llmrouter.dispatch.HedgePolicy;
import io.github.llmrouter.dispatch.RetryPolicy;
import io.github.llmrouter.internal.health.StatusTracker;
import io.github.llmrouter.internal.transport.Endpoint;
import io.github.llmrouter.internal.transport.HttpTransport;
import io.github.llmrouter.internal.transport.OkHttpClients;
import io.github.llmrouter.internal.transport.Reported;
import io.github.llmrouter.load.LoadMonitoring;
import io.github.llmrouter.observe.AttemptEndedEvent;
import io.github.llmrouter.observe.AttemptFailedEvent;
import io.github.llmrouter.observe.CallFinishedEvent;
import io.github.llmrouter.observe.CallStartedEvent;
import io.github.llmrouter.observe.HedgeEvent;
import io.github.llmrouter.observe.RoutedEvent;
import io.github.llmrouter.observe.RoutingListener;
import io.github.llmrouter.replica.OutlierDetection;
import io.github.llmrouter.replica.Replica;
import io.github.llmrouter.replica.ReplicaSet;
import io.github.llmrouter.routing.RoutingRequest;
import io.github.llmrouter.testing.ManualScheduler;
import io.github.llmrouter.testing.ManualTicker;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;
import okhttp3.OkHttpClient;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The attempt loop against exchanges a test scripts: no socket, no server. Each attempt's exchange
 * answers what the script says, on the replica the loop picked.
 */
class ScriptedExchangeTest {
  private static final RetryPolicy IMMEDIATE = RetryPolicy.builder()
      .initialBackoff(Duration.ZERO).maxBackoff(Duration.ZERO).build();

  private final ManualTicker ticker = new ManualTicker();
  private final ManualScheduler scheduler = new ManualScheduler();
  /** Never connects: the scripted exchanges make no call. */
  private final OkHttpClient http = OkHttpClients.configure(null, 16, Duration.ofSeconds(5),
      Duration.ofSeconds(30));
  private FleetState fleet;
  private RequestDispatcher dispatcher;
  /** The replicas the script's attempts went to, in order. */
  private final List<String> sentTo = new ArrayList<>();
  private final List<String> cancelled = new ArrayList<>();

  /** Every event of the calls, as a line. */
  private final List<String> told = new ArrayList<>();

  @BeforeEach
  void start() {
    configure(IMMEDIATE, Duration.ZERO);
  }

  private void configure(RetryPolicy retry, Duration callTimeout) {
    configure(retry, HedgePolicy.disabled(), callTimeout);
  }

  private void configure(RetryPolicy retry, HedgePolicy hedge, Duration callTimeout) {
    if (fleet != null) fleet.close();
    RoutingListener listener = new Telling();
    DispatcherConfig config = new DispatcherConfig(AttemptLoopTest::inSnapshotOrder,
        retry, hedge, callTimeout, CircuitBreakerPolicy.disabled(), Admission.disabled(), 16,
        Duration.ofSeconds(3), ticker, listener, () -> true, 0);
    StatusTracker statuses = new StatusTracker(OutlierDetection.disabled(), Duration.ZERO,
        Duration.ZERO, ticker,
        listener);
    fleet = new FleetState(config, statuses, () -> scheduler);
    HttpTransport transport = new HttpTransport(http, null, Duration.ofSeconds(30),
        retry::isRetryableStatus, LoadMonitoring.disabled(), fleet, ticker, listener);
    dispatcher = new RequestDispatcher(config, fleet, transport, () -> scheduler);
    fleet.update(ReplicaSet.of(List.of(replica("r0"), replica("r1"), replica("r2"))));
    told.clear();
  }

  @AfterEach
  void stop() {
    fleet.close();
    scheduler.shutdownNow();
    OkHttpClients.release(http);
  }

  @Test
  void aRetryableFailureFailsOverToTheNextReplicaAndItsAnswerIsTheCalls() {
    String answer = AttemptLoop.run(dispatcher, Endpoint.CHAT, routing(), times(Endpoint.CHAT), script(
        r -> outcome -> outcome.failed(new ReplicaHttpException(r, 503, "", true, null)),
        r -> outcome -> outcome.succeeded("answered by " + r)));

    assertThat(answer).isEqualTo("answered by r1");
    assertThat(sentTo).containsExactly("r0", "r1");
    assertThat(fleet.inFlight("r0") + fleet.inFlight("r1")).as("every count released").isZero();
    assertThat(told).contains("failed 1 r0 retry=true");
  }

  @Test
  void aFailureTheReplicaJudgedEndsTheCallWithThatFailure() {
    ReplicaHttpException badRequest = new ReplicaHttpException("r0", 400, "", false, null);
    assertThatThrownBy(() -> AttemptLoop.run(dispatcher, Endpoint.CHAT, routing(), times(Endpoint.CHAT), script(
        r -> outcome -> outcome.failed(badRequest)))).isSameAs(badRequest);
    assertThat(sentTo).containsExactly("r0");
  }

  @Test
  void theAttemptLimitEndsACallWhoseEveryAttemptFailed() {
    Function<String, Step> unavailable =
        r -> outcome -> outcome.failed(new ReplicaHttpException(r, 503, "", true, null));
    assertThatThrownBy(() -> AttemptLoop.run(dispatcher, Endpoint.CHAT, routing(), times(Endpoint.CHAT),
        script(unavailable, unavailable, unavailable)))
        .isInstanceOf(RetriesExhaustedException.class)
        .hasMessageContaining("attempts exhausted");
    assertThat(sentTo).containsExactly("r0", "r1", "r2");
  }

  @Test
  void anExchangeThatCannotBePreparedEndsTheCallAndReleasesItsCount() {
    LlmException unbuildable = new LlmException("the request cannot be built");
    Exchange<String> exchange = (attempt, timeoutNanos, headers) -> {
      sentTo.add(attempt.replica.id());
      throw unbuildable;
    };
    assertThatThrownBy(() -> AttemptLoop.run(dispatcher, Endpoint.CHAT, routing(), times(Endpoint.CHAT), exchange))
        .isSameAs(unbuildable);
    assertThat(sentTo).containsExactly("r0");
    assertThat(fleet.inFlight("r0")).isZero();
  }

  @Test
  void cancellingAnAsynchronousCallCancelsItsExchange() {
    CompletableFuture<String> result = new CompletableFuture<>();
    new AttemptLoop<String>(dispatcher, Endpoint.CHAT, routing(), times(Endpoint.CHAT), script(r -> outcome -> { }),
        false, result).start();
    assertThat(sentTo).containsExactly("r0");
    assertThat(fleet.inFlight("r0")).as("the exchange is in flight").isEqualTo(1);

    result.cancel(true);

    assertThat(cancelled).containsExactly("r0");
  }

  @Test
  void everyStepOfACallIsToldInOrderWithItsTimes() {
    String answer = AttemptLoop.run(dispatcher, Endpoint.CHAT, routing(), times(Endpoint.CHAT), script(
        r -> outcome -> {
          ticker.advance(Duration.ofMillis(5));
          outcome.failed(new ReplicaHttpException(r, 503, "", true, null));
        },
        r -> outcome -> {
          ticker.advance(Duration.ofMillis(7));
          outcome.succeeded("answered by " + r);
        }));

    assertThat(answer).isEqualTo("answered by r1");
    assertThat(told).containsExactly("started chat m", "routed 1 r0 failover=false",
        "ended 1 r0 FAILED after 5 ms, first chunk -1, at 5 ms", "failed 1 r0 retry=true",
        "routed 2 r1 failover=true", "ended 2 r1 ANSWERED after 7 ms, first chunk -1, at 12 ms",
        "finished 2 r1 after 12 ms ok");
  }

  @Test
  void aStreamHoldsItsCountUntilItEndsAndItsAttemptEndsWithIt() {
    Attempt[] held = new Attempt[1];
    Exchange<String> stream = script(r -> outcome -> {
      ticker.advance(Duration.ofMillis(3));
      outcome.succeeded("first chunk from " + r);
    });
    Exchange<String> capturing = (attempt, timeoutNanos, headers) -> {
      held[0] = attempt;
      return stream.prepare(attempt, timeoutNanos, headers);
    };
    String first = AttemptLoop.run(dispatcher, Endpoint.CHAT_STREAM, routing(), times(Endpoint.CHAT_STREAM), capturing);

    assertThat(first).isEqualTo("first chunk from r0");
    assertThat(fleet.inFlight("r0")).as("the stream holds it").isEqualTo(1);
    assertThat(held[0].firstChunkAt()).isEqualTo(ticker.read());
    assertThat(told).last().isEqualTo("finished 1 r0 after 3 ms ok");

    ticker.advance(Duration.ofMillis(20));
    held[0].completed(new Reported(null, "m"));

    assertThat(fleet.inFlight("r0")).isZero();
    assertThat(told).last()
        .isEqualTo("ended 1 r0 ANSWERED after 23 ms, first chunk 3 ms, at 23 ms");
  }

  @Test
  void replicasThatAllAskedToBeLeftAlonePastTheDeadlineEndTheCallAtOnce() {
    configure(RetryPolicy.builder().maxAttempts(4).initialBackoff(Duration.ZERO)
        .maxBackoff(Duration.ZERO).build(), Duration.ofSeconds(5));
    Function<String, Step> pausing = r -> outcome -> outcome.failed(
        new ReplicaHttpException(r, 429, "", true, Duration.ofSeconds(10)));

    assertThatThrownBy(() -> AttemptLoop.run(dispatcher, Endpoint.CHAT, routing(), times(Endpoint.CHAT),
        script(pausing, pausing, pausing)))
        .isInstanceOf(RetriesExhaustedException.class)
        .hasMessageContaining("not to be called again before the call deadline");
    assertThat(sentTo).containsExactly("r0", "r1", "r2");
  }

  private static final byte[] SMALL_BODY = {'{', '}'};

  /** Hedging after the learnt delay, at least 10 ms. */
  private static final HedgePolicy HEDGE_AT_P95 = HedgePolicy.builder()
      .minDelay(Duration.ofMillis(10)).build();

  /**
   * Configures hedging and runs {@link HedgePolicy#MIN_SAMPLES} calls that answer in 100 ms on
   * r0, so that the hedge delay is learnt (the 95th percentile: 107 ms, the top of 100 ms's
   * bucket); clears what they told.
   */
  private void learnHedgeDelay(RetryPolicy retry) {
    learnHedgeDelay(retry, Endpoint.CHAT);
  }

  private void learnHedgeDelay(RetryPolicy retry, Endpoint<?> endpoint) {
    configure(retry, HEDGE_AT_P95, Duration.ZERO);
    for (int i = 0; i < HedgePolicy.MIN_SAMPLES; i++) {
      AttemptLoop.run(dispatcher, endpoint, routing(), times(endpoint), script(r -> outcome -> {
        ticker.advance(Duration.ofMillis(100));
        outcome.succeeded("answered by " + r);
      }));
    }
    assertThat(scheduler.pending()).as("no hedge armed while the delay was being learnt")
        .isZero();
    sentTo.clear();
    told.clear();
  }

  /** An exchange that keeps its outcome for the test to complete. */
  private Function<String, Step> held(List<HttpTransport.Outcome<String>> outcomes) {
    return r -> outcomes::add;
  }

  /**
   * Starts an asynchronous call whose attempts keep their outcomes in {@code outcomes}, and lets
   * its hedge delay pass (108 ms, and the timer run). {@return the call's result}
   */
  private CompletableFuture<String> raced(List<HttpTransport.Outcome<String>> outcomes) {
    CompletableFuture<String> result =
        startAsync(script(held(outcomes), held(outcomes), held(outcomes)));
    ticker.advance(Duration.ofMillis(108));
    scheduler.runNext();
    return result;
  }

  private CompletableFuture<String> startAsync(Exchange<String> exchange) {
    CompletableFuture<String> result = new CompletableFuture<>();
    new AttemptLoop<String>(dispatcher, Endpoint.CHAT, routing(), times(Endpoint.CHAT), exchange, false, result)
        .start();
    return result;
  }

  @Test
  void aWaitingAttemptIsHedgedAfterTheLearntDelayAndTheHedgeThatAnswersFirstWins() {
    learnHedgeDelay(IMMEDIATE);
    List<HttpTransport.Outcome<String>> outcomes = new ArrayList<>();
    CompletableFuture<String> result = startAsync(script(held(outcomes), held(outcomes)));
    assertThat(sentTo).containsExactly("r0");

    ticker.advance(Duration.ofMillis(108));
    assertThat(Duration.ofNanos(scheduler.runNext())).isEqualTo(Duration.ofNanos(107_634_741));
    assertThat(sentTo).containsExactly("r0", "r1");
    assertThat(fleet.inFlight("r0") + fleet.inFlight("r1")).isEqualTo(2);

    ticker.advance(Duration.ofMillis(5));
    outcomes.get(1).succeeded("answered by r1");

    assertThat(result).isCompletedWithValue("answered by r1");
    assertThat(cancelled).as("the waiting attempt, cancelled at once").containsExactly("r0");
    outcomes.get(0).failed(new LlmException("Canceled")); // what the cancelled exchange reports
    assertThat(sentTo).as("no retry after the loser's failure").containsExactly("r0", "r1");
    assertThat(fleet.inFlight("r0") + fleet.inFlight("r1")).as("every count released").isZero();
    assertThat(told).containsExactly("started chat m", "routed 1 r0 failover=false",
        "routed 2 r1 failover=false",
        "ended 2 r1 ANSWERED after 5 ms, first chunk -1, at 113 ms",
        "hedge r0 -> r1 after 108 ms: HEDGE", "finished 2 r1 after 113 ms ok",
        "ended 1 r0 ABANDONED after 113 ms, first chunk -1, at 113 ms");
  }

  @Test
  void whenTheWaitingAttemptAnswersFirstTheHedgeIsCancelled() {
    learnHedgeDelay(IMMEDIATE);
    List<HttpTransport.Outcome<String>> outcomes = new ArrayList<>();
    CompletableFuture<String> result = raced(outcomes);

    outcomes.get(0).succeeded("answered by r0");
    outcomes.get(0).succeeded("answered twice"); // nothing changes a decided call

    assertThat(result).isCompletedWithValue("answered by r0");
    assertThat(cancelled).containsExactly("r1");
    outcomes.get(1).succeeded("answered late by r1"); // an answer that raced the cancel
    assertThat(result).isCompletedWithValue("answered by r0");
    assertThat(fleet.inFlight("r0") + fleet.inFlight("r1")).isZero();
    assertThat(told).contains("hedge r0 -> r1 after 108 ms: FIRST");
  }

  @Test
  void aFailureWhileTheOtherAttemptOfTheRaceIsInFlightStartsNoAttemptAndTheCallWaitsForIt() {
    learnHedgeDelay(IMMEDIATE);
    List<HttpTransport.Outcome<String>> outcomes = new ArrayList<>();
    CompletableFuture<String> result = raced(outcomes);

    outcomes.get(0).failed(new ReplicaHttpException("r0", 503, "", true, null));
    assertThat(sentTo).containsExactly("r0", "r1");
    assertThat(result).isNotDone();
    outcomes.get(1).succeeded("answered by r1");

    assertThat(result).isCompletedWithValue("answered by r1");
    assertThat(told).contains("failed 1 r0 retry=false", "hedge r0 -> r1 after 108 ms: HEDGE");
  }

  @Test
  void whenBothAttemptsOfTheRaceFailTheCallRetriesAndNeverHedgesAgain() {
    learnHedgeDelay(IMMEDIATE);
    List<HttpTransport.Outcome<String>> outcomes = new ArrayList<>();
    CompletableFuture<String> result = raced(outcomes);

    outcomes.get(1).failed(new ReplicaHttpException("r1", 503, "", true, null));
    outcomes.get(0).failed(new ReplicaHttpException("r0", 503, "", true, null));

    assertThat(sentTo).containsExactly("r0", "r1", "r2");
    assertThat(scheduler.pending()).as("no second hedge").isZero();
    outcomes.get(2).succeeded("answered by r2");
    assertThat(result).isCompletedWithValue("answered by r2");
    assertThat(told).contains("failed 2 r1 retry=false", "failed 1 r0 retry=true",
        "hedge r0 -> r1 after 108 ms: NEITHER");
  }

  @Test
  void noHedgeIsSentBeyondTheRetryBudget() {
    learnHedgeDelay(RetryPolicy.builder().budgetRatio(0).minRetriesPerSecond(0).build());
    List<HttpTransport.Outcome<String>> outcomes = new ArrayList<>();
    CompletableFuture<String> result = raced(outcomes);

    assertThat(sentTo).containsExactly("r0");
    outcomes.get(0).succeeded("answered by r0");
    assertThat(result).isCompletedWithValue("answered by r0");
    assertThat(told).noneMatch(line -> line.startsWith("hedge"));
  }

  @Test
  void hedgesStayWithinTheirShareOfCalls() {
    learnHedgeDelay(IMMEDIATE); // 20 calls earn one hedge at the default 5 %
    List<HttpTransport.Outcome<String>> outcomes = new ArrayList<>();
    raced(outcomes);
    assertThat(sentTo).containsExactly("r0", "r1");
    outcomes.get(1).succeeded("answered by r1");

    sentTo.clear();
    raced(outcomes);
    assertThat(sentTo).as("the next call earned no hedge yet").containsExactly("r0");
  }

  @Test
  void aRequestTheCallerMarkedNotHedgeableIsNeverHedged() {
    learnHedgeDelay(IMMEDIATE);
    RawRequest notHedgeable = RawRequest.post("/v1/chat/completions", SMALL_BODY)
        .hedgeable(false).build();
    assertThat(dispatcher.timing(Endpoint.CHAT, notHedgeable)).isNull();
    new AttemptLoop<String>(dispatcher, Endpoint.CHAT, routing(),
        dispatcher.timing(Endpoint.CHAT, notHedgeable),
        script(r -> outcome -> { }), false, new CompletableFuture<>()).start();
    assertThat(scheduler.pending()).isZero();
    assertThat(sentTo).containsExactly("r0");
  }

  @Test
  void aWholeAnswerThatHasBegunToArriveIsNotHedged() {
    learnHedgeDelay(IMMEDIATE);
    List<HttpTransport.Outcome<String>> outcomes = new ArrayList<>();
    List<Attempt> attempts = new ArrayList<>();
    Exchange<String> exchange = exchange((attempt, outcome) -> {
      attempts.add(attempt);
      outcomes.add(outcome);
    }, r -> { });
    CompletableFuture<String> result = new CompletableFuture<>();
    new AttemptLoop<String>(dispatcher, Endpoint.CHAT, routing(), times(Endpoint.CHAT), exchange,
        false, result).start();
    attempts.get(0).answerBegan(); // its status line is in: the body is moments away
    ticker.advance(Duration.ofMillis(108));
    scheduler.runNext();

    assertThat(sentTo).containsExactly("r0");
    outcomes.get(0).succeeded("answered by r0");
    assertThat(result).isCompletedWithValue("answered by r0");
  }

  @Test
  void aBlockingCallWhoseFirstAttemptFailedIsAnsweredByItsHedgeFromAnotherThread()
      throws Exception {
    assertThat(raceWhereTheFirstAttemptFails(true)).isEqualTo("answered by r1");
    assertThat(sentTo).containsExactly("r0", "r1");
    assertThat(told).contains("failed 1 r0 retry=false", "hedge r0 -> r1 after 108 ms: HEDGE");
  }

  @Test
  void aBlockingCallWhoseRaceIsLostTwiceRetriesOnTheCallersThread() throws Exception {
    assertThat(raceWhereTheFirstAttemptFails(false)).isEqualTo("answered by r2");
    assertThat(sentTo).containsExactly("r0", "r1", "r2");
    assertThat(told).contains("failed 1 r0 retry=false", "failed 2 r1 retry=true",
        "hedge r0 -> r1 after 108 ms: NEITHER");
  }

  @Test
  void aBlockingCallerInterruptedWhileItsHedgeRunsEndsTheCallAndCancelsTheHedge()
      throws Exception {
    learnHedgeDelay(IMMEDIATE);
    java.util.concurrent.CountDownLatch hedged = new java.util.concurrent.CountDownLatch(1);
    java.util.concurrent.CountDownLatch hedgeCancelled = new java.util.concurrent.CountDownLatch(1);
    Exchange<String> exchange = exchange((attempt, outcome) -> {
      try {
        if (attempt.replica.id().equals("r0")) { // the caller's thread: fails, then waits
          hedged.await();
          outcome.failed(new ReplicaHttpException("r0", 503, "", true, null));
        } else { // the hedge: held until cancelled
          hedgeCancelled.await();
          outcome.failed(new LlmException("Canceled"));
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }, r -> {
      if (r.equals("r1")) hedgeCancelled.countDown();
    });
    java.util.concurrent.atomic.AtomicReference<Throwable> thrown =
        new java.util.concurrent.atomic.AtomicReference<>();
    Thread caller = new Thread(() -> {
      try {
        AttemptLoop.run(dispatcher, Endpoint.CHAT, routing(), times(Endpoint.CHAT), exchange);
      } catch (RuntimeException e) {
        thrown.set(e);
      }
    });
    caller.start();
    io.github.llmrouter.testing.EventRecorder.await("the first attempt in flight",
        Duration.ofSeconds(10), () -> scheduler.pending() == 1);
    ticker.advance(Duration.ofMillis(108));
    scheduler.runNext();
    hedged.countDown();
    io.github.llmrouter.testing.EventRecorder.await("the caller waiting for the hedge",
        Duration.ofSeconds(10), () -> caller.getState() == Thread.State.WAITING
            && told.contains("failed 1 r0 retry=false"));

    caller.interrupt();
    caller.join(10_000);

    assertThat(caller.isAlive()).isFalse();
    assertThat(thrown.get()).isInstanceOf(LlmException.class)
        .hasMessage("interrupted while waiting for an answer");
    assertThat(cancelled).containsExactly("r1");
    assertThat(sentTo).containsExactly("r0", "r1");
  }

  /**
   * A blocking call whose first attempt, on r0 and the caller's thread, fails once its hedge is
   * out; the hedge, on r1 and another thread, then answers if {@code hedgeAnswers}, else fails
   * and the call retries on r2. The caller's thread waits meanwhile. {@return the call's answer}
   */
  private String raceWhereTheFirstAttemptFails(boolean hedgeAnswers) throws Exception {
    learnHedgeDelay(IMMEDIATE);
    java.util.concurrent.CountDownLatch hedged = new java.util.concurrent.CountDownLatch(1);
    java.util.concurrent.CountDownLatch firstFailed = new java.util.concurrent.CountDownLatch(1);
    Exchange<String> exchange = exchange((attempt, outcome) -> {
      try {
        switch (attempt.replica.id()) {
          case "r0" -> { // the caller's thread: fails once the hedge is out
            hedged.await();
            outcome.failed(new ReplicaHttpException("r0", 503, "", true, null));
            firstFailed.countDown();
          }
          case "r1" -> { // another thread: ends after the first did, while the caller waits
            firstFailed.await();
            if (hedgeAnswers) outcome.succeeded("answered by r1");
            else outcome.failed(new ReplicaHttpException("r1", 503, "", true, null));
          }
          default -> outcome.succeeded("answered by " + attempt.replica.id());
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }, r -> { });
    CompletableFuture<String> call = CompletableFuture.supplyAsync(() ->
        AttemptLoop.run(dispatcher, Endpoint.CHAT, routing(), times(Endpoint.CHAT), exchange));
    io.github.llmrouter.testing.EventRecorder.await("the first attempt in flight",
        Duration.ofSeconds(10), () -> scheduler.pending() == 1);
    ticker.advance(Duration.ofMillis(108));
    scheduler.runNext();
    hedged.countDown();
    return call.get(10, java.util.concurrent.TimeUnit.SECONDS);
  }

  @Test
  void aStreamThatArrivesAfterItsRaceIsDecidedIsClosedAndItsAttemptLetGo() {
    learnHedgeDelay(IMMEDIATE, Endpoint.CHAT_STREAM);
    // The scripted streams of the warm-up never end: they keep their counts.
    int heldOnR0 = fleet.inFlight("r0");
    int heldOnR1 = fleet.inFlight("r1");
    List<HttpTransport.Outcome<AutoCloseable>> outcomes = new ArrayList<>();
    List<String> closed = new ArrayList<>();
    Exchange<AutoCloseable> streams = exchange((attempt, outcome) -> outcomes.add(outcome),
        r -> { });
    CompletableFuture<AutoCloseable> result = new CompletableFuture<>();
    new AttemptLoop<AutoCloseable>(dispatcher, Endpoint.CHAT_STREAM, routing(),
        times(Endpoint.CHAT_STREAM), streams, false, result).start();
    ticker.advance(Duration.ofMillis(108));
    scheduler.runNext();
    AutoCloseable won = () -> closed.add("r1");
    outcomes.get(1).succeeded(won);
    outcomes.get(0).succeeded(() -> closed.add("r0")); // its first chunk raced the cancel

    assertThat(result).isCompletedWithValue(won);
    assertThat(closed).containsExactly("r0");
    assertThat(fleet.inFlight("r0")).as("the loser's count went back").isEqualTo(heldOnR0);
    assertThat(fleet.inFlight("r1")).as("the winner's stream holds its count")
        .isEqualTo(heldOnR1 + 1);
    assertThat(told).contains("ended 1 r0 ABANDONED after 108 ms, first chunk -1, at 108 ms");
  }

  @Test
  void anAttemptThatAnswersBeforeTheDelayLeavesTheHedgeUnsent() {
    learnHedgeDelay(IMMEDIATE);
    List<HttpTransport.Outcome<String>> outcomes = new ArrayList<>();
    CompletableFuture<String> result = startAsync(script(held(outcomes), held(outcomes)));
    assertThat(scheduler.pending()).as("the hedge armed").isEqualTo(1);
    outcomes.get(0).succeeded("answered by r0");
    assertThat(scheduler.pending()).as("and withdrawn: the scheduler holds no finished call")
        .isZero();

    assertThat(result).isCompletedWithValue("answered by r0");
    assertThat(sentTo).containsExactly("r0");
    assertThat(cancelled).isEmpty();
  }

  @Test
  void aBlockingCallsHedgeRunsOnAnotherThreadAndItsAnswerIsTheCalls() throws Exception {
    learnHedgeDelay(IMMEDIATE);
    java.util.concurrent.CountDownLatch firstCancelled = new java.util.concurrent.CountDownLatch(1);
    java.util.concurrent.atomic.AtomicReference<String> thread =
        new java.util.concurrent.atomic.AtomicReference<>();
    java.util.concurrent.atomic.AtomicReference<String> callerThread =
        new java.util.concurrent.atomic.AtomicReference<>();
    Exchange<String> exchange = exchange((attempt, outcome) -> {
      if (attempt.replica.id().equals("r0")) {
        callerThread.set(Thread.currentThread().getName());
        // The caller's thread waits in its exchange until the race cancels it.
        try {
          firstCancelled.await();
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
        outcome.failed(new LlmException("Canceled"));
      } else {
        thread.set(Thread.currentThread().getName());
        outcome.succeeded("answered by " + attempt.replica.id());
      }
    }, r -> {
      if (r.equals("r0")) firstCancelled.countDown();
    });
    CompletableFuture<String> call = CompletableFuture.supplyAsync(() ->
        AttemptLoop.run(dispatcher, Endpoint.CHAT, routing(), times(Endpoint.CHAT), exchange));
    io.github.llmrouter.testing.EventRecorder.await("the first attempt in flight",
        Duration.ofSeconds(10), () -> scheduler.pending() == 1);
    ticker.advance(Duration.ofMillis(108));
    scheduler.runNext();

    assertThat(call.get(10, java.util.concurrent.TimeUnit.SECONDS)).isEqualTo("answered by r1");
    assertThat(thread.get()).as("the hedge ran on a thread of its own")
        .isNotEqualTo(callerThread.get()).isNotEqualTo(Thread.currentThread().getName());
    assertThat(cancelled).containsExactly("r0");
    io.github.llmrouter.testing.EventRecorder.await("every count released",
        Duration.ofSeconds(10), () -> fleet.inFlight("r0") + fleet.inFlight("r1") == 0);
  }

  /** What one attempt's exchange does once started, given its replica. */
  @FunctionalInterface
  private interface Step {
    void start(HttpTransport.Outcome<String> outcome);
  }

  /**
   * An exchange that records where each attempt went and what was cancelled, runs {@code start}
   * with the attempt and its outcome, and tells {@code onCancel} the replica it cancels.
   */
  private <R> Exchange<R> exchange(
      java.util.function.BiConsumer<Attempt, HttpTransport.Outcome<R>> start,
      java.util.function.Consumer<String> onCancel) {
    return (attempt, timeoutNanos, headers) -> {
      String replica = attempt.replica.id();
      sentTo.add(replica);
      return new Exchange.Prepared<>() {
        @Override
        public void start(HttpTransport.Outcome<R> outcome) {
          start.accept(attempt, outcome);
        }

        @Override
        public void cancel() {
          cancelled.add(replica);
          onCancel.accept(replica);
        }
      };
    };
  }

  /** An exchange whose n-th attempt runs the n-th step on the replica the loop picked. */
  @SafeVarargs
  private Exchange<String> script(Function<String, Step>... steps) {
    Deque<Function<String, Step>> left = new ArrayDeque<>(List.of(steps));
    return (attempt, timeoutNanos, headers) -> {
      String replica = attempt.replica.id();
      sentTo.add(replica);
      Step step = left.removeFirst().apply(replica);
      return new Exchange.Prepared<>() {
        @Override
        public void start(HttpTransport.Outcome<String> outcome) {
          step.start(outcome);
        }

        @Override
        public void cancel() {
          cancelled.add(replica);
        }
      };
    };
  }

  /** Tells {@link #told} each event as a line, with times in ms of the ticker. */
  private final class Telling implements RoutingListener {
    @Override
    public void onCallStarted(CallStartedEvent e) {
      told.add("started " + e.operation() + " " + e.model());
    }

    @Override
    public void onRouted(RoutedEvent e) {
      told.add("routed " + e.attempt() + " " + e.replicaId() + " failover=" + e.failover());
    }

    @Override
    public void onAttemptEnded(AttemptEndedEvent e) {
      told.add("ended " + e.attempt() + " " + e.replicaId() + " " + e.outcome() + " after "
          + ms(e.durationNanos()) + ", first chunk " + (e.firstChunkNanos() < 0 ? "-1"
              : ms(e.firstChunkNanos())) + ", at " + ms(e.callElapsedNanos()));
    }

    @Override
    public void onAttemptFailed(AttemptFailedEvent e) {
      told.add("failed " + e.attempt() + " " + e.replicaId() + " retry=" + e.willRetry());
    }

    @Override
    public void onHedge(HedgeEvent e) {
      told.add("hedge " + e.replicaId() + " -> " + e.hedgeReplicaId() + " after "
          + ms(e.delay().toNanos()) + ": " + e.winner());
    }

    @Override
    public void onCallFinished(CallFinishedEvent e) {
      told.add("finished " + e.attempts() + " " + e.replicaId() + " after "
          + ms(e.durationNanos()) + (e.succeeded() ? " ok" : " failed"));
    }

    private String ms(long nanos) {
      return Duration.ofNanos(nanos).toMillis() + " ms";
    }
  }

  private static Replica replica(String id) {
    return Replica.builder("http://127.0.0.1:1/").id(id).build();
  }

  /** The times a small request to {@code endpoint} is hedged by, null while hedging is off. */
  private @Nullable CallTiming times(Endpoint<?> endpoint) {
    return dispatcher.timing(endpoint,
        RawRequest.post("/v1/chat/completions", SMALL_BODY).build());
  }

  private static RoutingRequest routing() {
    return RoutingRequest.of("m", "hello");
  }
}
