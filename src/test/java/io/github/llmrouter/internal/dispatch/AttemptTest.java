package io.github.llmrouter.internal.dispatch;

import static io.github.llmrouter.routing.Fleets.named;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.github.llmrouter.api.LlmException;
import io.github.llmrouter.api.ReplicaHttpException;
import io.github.llmrouter.api.Usage;
import io.github.llmrouter.dispatch.CircuitBreakerPolicy;
import io.github.llmrouter.internal.health.StatusTracker;
import io.github.llmrouter.internal.load.InFlightCounter;
import io.github.llmrouter.internal.load.LocalLoad;
import io.github.llmrouter.internal.transport.HttpTransport;
import io.github.llmrouter.internal.transport.Json;
import io.github.llmrouter.internal.transport.Reported;
import io.github.llmrouter.observe.AttemptEndedEvent.Outcome;
import io.github.llmrouter.replica.OutlierDetection;
import io.github.llmrouter.replica.ReplicaSet;
import io.github.llmrouter.routing.Ranking;
import io.github.llmrouter.routing.RoutedAttempt;
import io.github.llmrouter.routing.RoutingPolicy;
import io.github.llmrouter.testing.EventRecorder;
import io.github.llmrouter.testing.ManualTicker;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

/** One attempt's whole life, from being sent to its one end, and everything told on the way. */
class AttemptTest {
  private final ManualTicker ticker = new ManualTicker();
  private final EventRecorder events = new EventRecorder();
  /** Two replicas, so that r0 may be ejected; the attempts go to r0. */
  private final ReplicaSet one = named(2);
  /** Ejects after one failure, so that a failure's record can be seen. */
  private final StatusTracker tracker = new StatusTracker(OutlierDetection.builder()
      .consecutiveFailures(1).maxEjectionPercent(100).build(), Duration.ZERO, Duration.ZERO,
          ticker, events);
  private final Eligibility eligibility;
  private final InFlightCounter counter = LocalLoad.of(one).counter(0);
  private final Account account = new Account();
  private final Ranking ranking = new Ranking() {
    @Override
    public int next() {
      return -1;
    }

    @Override
    public String reason() {
      return "test";
    }

    @Override
    public RoutedAttempt sent(int index, long nanos, boolean streamed) {
      account.told.add("sent " + index + " at " + nanos + (streamed ? " streamed" : ""));
      return account;
    }
  };
  private final List<String> ends = new ArrayList<>();
  private final List<String> cancelled = new ArrayList<>();
  private @Nullable Object endValue;

  AttemptTest() {
    tracker.update(one, "test");
    eligibility = Eligibility.of(tracker, new ReplicaBreakers(CircuitBreakerPolicy.disabled(),
        ticker, events), Duration.ofSeconds(30), one);
  }

  @Test
  void sendingTakesTheCountTellsThePolicyAndPreparesTheExchangeWithItsTimeout() {
    ticker.advance(Duration.ofSeconds(1));
    Attempt a = attempt(true);
    List<Long> timeouts = new ArrayList<>();
    a.send(ranking, true, RoutingPolicy.roundRobin(), (attempt, timeoutNanos, headers) -> {
      assertThat(attempt).isSameAs(a);
      assertThat(counter.get()).as("the count is held before the exchange is prepared")
          .isEqualTo(1);
      timeouts.add(timeoutNanos);
      return prepared(attempt);
    }, () -> 42L, null);

    assertThat(counter.get()).isEqualTo(1);
    assertThat(timeouts).containsExactly(42L);
    assertThat(account.told).containsExactly("sent 0 at " + ticker.read() + " streamed");
  }

  @Test
  void aPickThatIsNotTheRankingsOwnIsNotThePolicysToAccountFor() {
    Attempt a = new Attempt(1, new Pick(0, Pick.Kind.SLOW_START, true, false), one.get(0),
        counter, eligibility, ticker, ticker.read(), this::ended);
    a.send(ranking, false, RoutingPolicy.roundRobin(), (attempt, t, h) -> prepared(attempt),
        () -> 0L, null);
    a.firstChunk(ticker.read());
    assertThat(account.told).isEmpty();
  }

  @Test
  void anExchangeThatCannotBePreparedLeavesTheAttemptHoldingItsCountToBeFailed() {
    Attempt a = attempt(true);
    LlmException unbuildable = new LlmException("cannot be built");
    assertThatThrownBy(() -> a.send(ranking, false, RoutingPolicy.roundRobin(),
        (attempt, t, h) -> {
          throw unbuildable;
        }, () -> 0L, null)).isSameAs(unbuildable);
    assertThat(counter.get()).isEqualTo(1);
    assertThat(a.failed(unbuildable, ticker.read())).isTrue();
    assertThat(counter.get()).isZero();
  }

  @Test
  void aReplicaThatStopsAcceptingConnectionsCancelsTheExchangeNotYetAnswered() {
    Attempt a = sent();
    assertThat(a.lost()).isNull();
    assertThat(a.answering()).isFalse();

    tracker.refused("r0", "connection refused");

    assertThat(cancelled).containsExactly("r0");
    assertThat(a.lost()).isEqualTo("stopped accepting connections");
  }

  @Test
  void anExchangeBeingAnsweredIsLeftAlone() {
    Attempt a = sent();
    a.answerBegan();
    assertThat(a.answering()).isTrue();

    tracker.refused("r0", "connection refused");

    assertThat(cancelled).isEmpty();
    assertThat(a.lost()).isNull();
  }

  @Test
  void anEndedAttemptIsNoLongerTracked() {
    Attempt a = sent();
    a.answered(null, ticker.read());
    tracker.refused("r0", "connection refused");
    assertThat(cancelled).isEmpty();
  }

  @Test
  void answeredReleasesTheCountTellsThePolicyTheUsageAndEndsOnce() {
    long start = ticker.read();
    Attempt a = sent();
    assertThat(a.startNanos()).isEqualTo(start);
    ticker.advance(Duration.ofMillis(250));
    assertThat(a.durationNanos(ticker.read())).isEqualTo(Duration.ofMillis(250).toNanos());
    Reported reported = new Reported(usage(100, 60), "m");

    a.completed(reported);
    a.failed(new ReplicaHttpException("r0", 503, "", true, null), ticker.read());
    a.abandoned();

    assertThat(counter.get()).isZero();
    assertThat(account.told).containsExactly("sent 0 at " + start,
        "completed 100 60 at " + ticker.read());
    assertThat(ends).containsExactly("ANSWERED at " + ticker.read());
    assertThat(endValue).isSameAs(reported);
    assertThat(a.durationNanos(ticker.read())).as("over").isZero();
    assertThat(eligibility.status(0).isEjected(ticker.read())).isFalse();
  }

  @Test
  void failedReleasesTheCountTellsThePolicyAndCountsAgainstTheReplica() {
    Attempt a = sent();
    ticker.advance(Duration.ofMillis(10));
    a.firstChunk(ticker.read());
    assertThat(a.firstChunkAt()).isEqualTo(ticker.read());

    a.broke(new ReplicaHttpException("r0", 503, "", true, null));

    assertThat(counter.get()).isZero();
    assertThat(account.told).containsExactly("sent 0 at " + (ticker.read()
        - Duration.ofMillis(10).toNanos()), "first token at " + ticker.read(),
        "failed at " + ticker.read());
    assertThat(ends).containsExactly("FAILED at " + ticker.read());
    assertThat(eligibility.status(0).isEjected(ticker.read())).as("one failure ejects here")
        .isTrue();
  }

  @Test
  void abandonedSaysNothingOfTheReplica() {
    Attempt a = sent();
    a.abandoned();
    assertThat(counter.get()).isZero();
    assertThat(account.told).endsWith("failed at " + ticker.read());
    assertThat(ends).containsExactly("ABANDONED at " + ticker.read());
    assertThat(eligibility.status(0).isEjected(ticker.read())).isFalse();
  }

  private Attempt attempt(boolean fromRanking) {
    return new Attempt(1, new Pick(0, Pick.Kind.RANKED, true, fromRanking), one.get(0), counter,
        eligibility, ticker, ticker.read(), this::ended);
  }

  private Attempt sent() {
    Attempt a = attempt(true);
    a.send(ranking, false, RoutingPolicy.roundRobin(), (attempt, t, h) -> prepared(attempt),
        () -> 0L, null);
    return a;
  }

  private Exchange.Prepared<Object> prepared(Attempt attempt) {
    return new Exchange.Prepared<>() {
      @Override
      public void start(HttpTransport.Outcome<Object> outcome) {}

      @Override
      public void cancel() {
        cancelled.add(attempt.replica.id());
      }
    };
  }

  private void ended(Attempt attempt, Outcome outcome, @Nullable Object value,
      @Nullable LlmException failure, long now) {
    ends.add(outcome + " at " + now);
    endValue = value;
  }

  private static Usage usage(long prompt, long cached) {
    return Json.MAPPER.readValue("{\"prompt_tokens\":" + prompt
        + ",\"prompt_tokens_details\":{\"cached_tokens\":" + cached + "}}", Usage.class);
  }

  /** What the policy was told of the attempt. */
  private static final class Account implements RoutedAttempt {
    final List<String> told = new ArrayList<>();

    @Override
    public void firstToken(long nanos) {
      told.add("first token at " + nanos);
    }

    @Override
    public void completed(long promptTokens, long cachedTokens, long nanos) {
      told.add("completed " + promptTokens + " " + cachedTokens + " at " + nanos);
    }

    @Override
    public void failed(long nanos) {
      told.add("failed at " + nanos);
    }
  }
}
