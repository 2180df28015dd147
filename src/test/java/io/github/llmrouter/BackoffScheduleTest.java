package io.github.llmrouter;

import static io.github.llmrouter.Fixtures.chat;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.github.llmrouter.api.RetriesExhaustedException;
import io.github.llmrouter.api.Ticker;
import io.github.llmrouter.dispatch.RetryPolicy;
import io.github.llmrouter.load.LoadMonitoring;
import io.github.llmrouter.observe.AttemptFailedEvent;
import io.github.llmrouter.observe.RoutedEvent;
import io.github.llmrouter.observe.RoutingListener;
import io.github.llmrouter.testing.ScriptedServer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The backoff between attempts: exponential from 50 ms by default (50, 100, 200, 400 ms ...),
 * capped at {@code maxBackoff}, spread by ±{@code jitter}, and really waited before the next
 * attempt, in blocking and in asynchronous calls. The schedule is read from the attempts' events
 * (the values the dispatcher waits); each wait is measured on the client's ticker, from one
 * attempt's routing to the next, and is never shorter than its scheduled backoff.
 */
class BackoffScheduleTest {
  private final ScriptedServer replica = new ScriptedServer();
  private final Ticker ticker = Ticker.system();
  /** The ticker's reading at each attempt's routing, and each failed attempt's event. */
  private final List<Long> routedAt = new CopyOnWriteArrayList<>();
  private final List<AttemptFailedEvent> failed = new CopyOnWriteArrayList<>();
  private final RoutingListener listener = new RoutingListener() {
    @Override
    public void onRouted(RoutedEvent e) {
      routedAt.add(ticker.read());
    }

    @Override
    public void onAttemptFailed(AttemptFailedEvent e) {
      failed.add(e);
    }
  };

  @BeforeEach
  void everyAnswerIs503() {
    replica.answer(503, Map.of(), "{\"error\":{\"message\":\"busy\"}}");
  }

  @AfterEach
  void stop() {
    replica.close();
  }

  private LlmClient client(RetryPolicy retry) {
    return LlmClient.builder().replicas(replica.url()).retryPolicy(retry).ticker(ticker)
        .listener(listener).loadMonitoring(LoadMonitoring.disabled())
        .modelDiscoveryInterval(Duration.ZERO).build();
  }

  private static Duration ms(long millis) {
    return Duration.ofMillis(millis);
  }

  private List<Duration> backoffs() {
    return failed.stream().map(AttemptFailedEvent::backoff).toList();
  }

  /** Every wait between two attempts, measured on the ticker, is at least its backoff. */
  private void assertEachWaitLastedItsBackoff() {
    assertThat(routedAt).hasSize(failed.size());
    for (int i = 0; i + 1 < routedAt.size(); i++) {
      assertThat(Duration.ofNanos(routedAt.get(i + 1) - routedAt.get(i)))
          .as("wait before attempt %d", i + 2).isGreaterThanOrEqualTo(failed.get(i).backoff());
    }
  }

  @Test
  void theDefaultBackoffDoublesFrom50MillisecondsAndIsWaitedOut() {
    try (LlmClient client = client(RetryPolicy.builder().maxAttempts(5).jitter(0)
        .minRetriesPerSecond(100).build())) {
      assertThatThrownBy(() -> client.chat(chat("again and again")))
          .isInstanceOf(RetriesExhaustedException.class);
    }
    assertThat(backoffs()).containsExactly(ms(50), ms(100), ms(200), ms(400), Duration.ZERO);
    assertThat(failed).extracting(AttemptFailedEvent::whyNot)
        .containsExactly("", "", "", "", "attempts exhausted");
    assertThat(replica.requests()).isEqualTo(5);
    assertEachWaitLastedItsBackoff();
  }

  @Test
  void theBackoffStopsGrowingAtMaxBackoff() {
    try (LlmClient client = client(RetryPolicy.builder().maxAttempts(5).jitter(0)
        .initialBackoff(ms(10)).multiplier(3).maxBackoff(ms(100)).minRetriesPerSecond(100)
        .build())) {
      assertThatThrownBy(() -> client.chat(chat("capped")))
          .isInstanceOf(RetriesExhaustedException.class);
    }
    assertThat(backoffs()).containsExactly(ms(10), ms(30), ms(90), ms(100), Duration.ZERO);
    assertEachWaitLastedItsBackoff();
  }

  @Test
  void anAsynchronousCallWaitsTheSameScheduleWithoutAThread() throws Exception {
    try (LlmClient client = client(RetryPolicy.builder().maxAttempts(4).jitter(0)
        .minRetriesPerSecond(100).build())) {
      assertThatThrownBy(() -> client.chatAsync(chat("async")).get(30, TimeUnit.SECONDS))
          .isInstanceOf(ExecutionException.class)
          .hasCauseInstanceOf(RetriesExhaustedException.class);
    }
    assertThat(backoffs()).containsExactly(ms(50), ms(100), ms(200), Duration.ZERO);
    assertEachWaitLastedItsBackoff();
  }

  @Test
  void jitterSpreadsEachBackoffWithinPlusOrMinusTwentyPercentOfItsNominalValue() {
    List<Duration> first = new ArrayList<>();
    List<Duration> second = new ArrayList<>();
    try (LlmClient client = client(RetryPolicy.builder().minRetriesPerSecond(100).build())) {
      for (int call = 0; call < 12; call++) {
        failed.clear();
        routedAt.clear();
        assertThatThrownBy(() -> client.chat(chat("jittered")))
            .isInstanceOf(RetriesExhaustedException.class);
        assertThat(failed).hasSize(3);
        first.add(failed.get(0).backoff());
        second.add(failed.get(1).backoff());
        assertEachWaitLastedItsBackoff();
      }
    }
    assertThat(first).allSatisfy(d -> assertThat(d).isBetween(ms(40), ms(60)));
    assertThat(second).allSatisfy(d -> assertThat(d).isBetween(ms(80), ms(120)));
    // Spread, not a constant: 12 draws from ±20% are all equal with probability ~0.
    assertThat(first.stream().distinct().count()).as("distinct first backoffs").isGreaterThan(3);
    assertThat(second.stream().distinct().count()).as("distinct second backoffs").isGreaterThan(3);
  }
}
