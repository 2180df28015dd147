package io.github.llmrouter.internal.dispatch;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.github.llmrouter.api.LlmException;
import io.github.llmrouter.api.ReplicaHttpException;
import io.github.llmrouter.api.RetriesExhaustedException;
import io.github.llmrouter.dispatch.Admission;
import io.github.llmrouter.dispatch.CircuitBreakerPolicy;
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
    if (fleet != null) fleet.close();
    RoutingListener listener = new Telling();
    DispatcherConfig config = new DispatcherConfig(AttemptLoopTest::inSnapshotOrder,
        retry, callTimeout, CircuitBreakerPolicy.disabled(), Admission.disabled(), 16,
        Duration.ofSeconds(3), ticker, listener, () -> true);
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
    String answer = AttemptLoop.run(dispatcher, Endpoint.CHAT, routing(), script(
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
    assertThatThrownBy(() -> AttemptLoop.run(dispatcher, Endpoint.CHAT, routing(), script(
        r -> outcome -> outcome.failed(badRequest)))).isSameAs(badRequest);
    assertThat(sentTo).containsExactly("r0");
  }

  @Test
  void theAttemptLimitEndsACallWhoseEveryAttemptFailed() {
    Function<String, Step> unavailable =
        r -> outcome -> outcome.failed(new ReplicaHttpException(r, 503, "", true, null));
    assertThatThrownBy(() -> AttemptLoop.run(dispatcher, Endpoint.CHAT, routing(),
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
    assertThatThrownBy(() -> AttemptLoop.run(dispatcher, Endpoint.CHAT, routing(), exchange))
        .isSameAs(unbuildable);
    assertThat(sentTo).containsExactly("r0");
    assertThat(fleet.inFlight("r0")).isZero();
  }

  @Test
  void cancellingAnAsynchronousCallCancelsItsExchange() {
    CompletableFuture<String> result = new CompletableFuture<>();
    new AttemptLoop<String>(dispatcher, Endpoint.CHAT, routing(), script(r -> outcome -> { }),
        false, result).start();
    assertThat(sentTo).containsExactly("r0");
    assertThat(fleet.inFlight("r0")).as("the exchange is in flight").isEqualTo(1);

    result.cancel(true);

    assertThat(cancelled).containsExactly("r0");
  }

  @Test
  void everyStepOfACallIsToldInOrderWithItsTimes() {
    String answer = AttemptLoop.run(dispatcher, Endpoint.CHAT, routing(), script(
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
    String first = AttemptLoop.run(dispatcher, Endpoint.CHAT_STREAM, routing(), capturing);

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

    assertThatThrownBy(() -> AttemptLoop.run(dispatcher, Endpoint.CHAT, routing(),
        script(pausing, pausing, pausing)))
        .isInstanceOf(RetriesExhaustedException.class)
        .hasMessageContaining("not to be called again before the call deadline");
    assertThat(sentTo).containsExactly("r0", "r1", "r2");
  }

  /** What one attempt's exchange does once started, given its replica. */
  @FunctionalInterface
  private interface Step {
    void start(HttpTransport.Outcome<String> outcome);
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

  private static RoutingRequest routing() {
    return RoutingRequest.of("m", "hello");
  }
}
