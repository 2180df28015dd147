package io.github.llmrouter.dispatch;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * {@link RetryPolicy}: its documented defaults, every knob's range checked at build() on both
 * sides of each bound with a message naming the knob, and the backoff schedule it computes.
 */
class RetryPolicyTest {
  private static final Duration ONE_NANO = Duration.ofNanos(1);

  private static void rejects(RetryPolicy.Builder builder, String message) {
    assertThatThrownBy(builder::build).isInstanceOf(IllegalArgumentException.class)
        .hasMessage(message);
  }

  @Test
  void theDefaultsAreTheDocumentedConstants() {
    RetryPolicy p = RetryPolicy.defaults();
    assertThat(p.maxAttempts()).isEqualTo(RetryPolicy.DEFAULT_MAX_ATTEMPTS).isEqualTo(3);
    assertThat(p.initialBackoff()).isEqualTo(RetryPolicy.DEFAULT_INITIAL_BACKOFF);
    assertThat(p.maxBackoff()).isEqualTo(RetryPolicy.DEFAULT_MAX_BACKOFF);
    assertThat(p.maxRetryAfter()).isEqualTo(RetryPolicy.DEFAULT_MAX_RETRY_AFTER);
    assertThat(p.budgetRatio()).isEqualTo(RetryPolicy.DEFAULT_BUDGET_RATIO);
    assertThat(p.minRetriesPerSecond()).isEqualTo(RetryPolicy.DEFAULT_MIN_RETRIES_PER_SECOND);
    assertThat(p.retryableStatuses()).isEqualTo(RetryPolicy.DEFAULT_RETRYABLE_STATUSES)
        .containsExactlyInAnyOrder(408, 429, 500, 502, 503, 504);
    assertThat(RetryPolicy.disabled().maxAttempts()).isEqualTo(1);
  }

  @Test
  void toStringShowsEveryKnobWithTheStatusesSorted() {
    assertThat(RetryPolicy.defaults()).hasToString("RetryPolicy{maxAttempts=3, "
        + "backoff=PT0.05S..PT2S x2.0 ±0.2, maxRetryAfter=PT10S, budgetRatio=0.2, "
        + "minRetriesPerSecond=10, retryableStatuses=[408, 429, 500, 502, 503, 504]}");
  }

  @Test
  void maxAttemptsIsFromOneToTen() {
    assertThat(RetryPolicy.builder().maxAttempts(1).build().maxAttempts()).isEqualTo(1);
    assertThat(RetryPolicy.builder().maxAttempts(10).build().maxAttempts()).isEqualTo(10);
    rejects(RetryPolicy.builder().maxAttempts(0), "RetryPolicy.maxAttempts must be in [1, 10], got 0");
    rejects(RetryPolicy.builder().maxAttempts(11), "RetryPolicy.maxAttempts must be in [1, 10], got 11");
  }

  @Test
  void initialBackoffIsFromZeroToOneMinute() {
    assertThat(RetryPolicy.builder().initialBackoff(Duration.ZERO).build().initialBackoff())
        .isZero();
    assertThat(RetryPolicy.builder().initialBackoff(Duration.ofMinutes(1))
        .maxBackoff(Duration.ofMinutes(1)).build().initialBackoff())
        .isEqualTo(Duration.ofMinutes(1));
    rejects(RetryPolicy.builder().initialBackoff(ONE_NANO.negated()),
        "RetryPolicy.initialBackoff must be in [0, 1 min], got PT-0.000000001S");
    rejects(RetryPolicy.builder().initialBackoff(Duration.ofMinutes(1).plus(ONE_NANO))
            .maxBackoff(Duration.ofMinutes(5)),
        "RetryPolicy.initialBackoff must be in [0, 1 min], got PT1M0.000000001S");
    rejects(RetryPolicy.builder().initialBackoff(null),
        "RetryPolicy.initialBackoff must be in [0, 1 min], got null");
  }

  @Test
  void maxBackoffIsFromTheInitialBackoffToFiveMinutes() {
    Duration second = Duration.ofSeconds(1);
    assertThat(RetryPolicy.builder().initialBackoff(second).maxBackoff(second).build()
        .maxBackoff()).isEqualTo(second);
    assertThat(RetryPolicy.builder().maxBackoff(Duration.ofMinutes(5)).build().maxBackoff())
        .isEqualTo(Duration.ofMinutes(5));
    rejects(RetryPolicy.builder().initialBackoff(second).maxBackoff(second.minus(ONE_NANO)),
        "RetryPolicy.maxBackoff must be in [initialBackoff, 5 min], got PT0.999999999S");
    rejects(RetryPolicy.builder().maxBackoff(Duration.ofMinutes(5).plus(ONE_NANO)),
        "RetryPolicy.maxBackoff must be in [initialBackoff, 5 min], got PT5M0.000000001S");
    rejects(RetryPolicy.builder().maxBackoff(null),
        "RetryPolicy.maxBackoff must be in [initialBackoff, 5 min], got null");
  }

  @Test
  void multiplierIsFromOneToTen() {
    assertThat(RetryPolicy.builder().multiplier(1.0).build()).hasToString(
        RetryPolicy.defaults().toString().replace("x2.0", "x1.0"));
    assertThat(RetryPolicy.builder().multiplier(10.0).build()).hasToString(
        RetryPolicy.defaults().toString().replace("x2.0", "x10.0"));
    rejects(RetryPolicy.builder().multiplier(0.99),
        "RetryPolicy.multiplier must be in [1.0, 10], got 0.99");
    rejects(RetryPolicy.builder().multiplier(10.01),
        "RetryPolicy.multiplier must be in [1.0, 10], got 10.01");
  }

  @Test
  void jitterIsFromZeroUpToButExcludingOne() {
    assertThat(RetryPolicy.builder().jitter(0).build()).hasToString(
        RetryPolicy.defaults().toString().replace("±0.2", "±0.0"));
    assertThat(RetryPolicy.builder().jitter(0.99).build()).hasToString(
        RetryPolicy.defaults().toString().replace("±0.2", "±0.99"));
    rejects(RetryPolicy.builder().jitter(-0.01), "RetryPolicy.jitter must be in [0, 1), got -0.01");
    rejects(RetryPolicy.builder().jitter(1.0), "RetryPolicy.jitter must be in [0, 1), got 1.0");
  }

  @Test
  void maxRetryAfterIsFromZeroToTenMinutes() {
    assertThat(RetryPolicy.builder().maxRetryAfter(Duration.ZERO).build().maxRetryAfter())
        .isZero();
    assertThat(RetryPolicy.builder().maxRetryAfter(Duration.ofMinutes(10)).build()
        .maxRetryAfter()).isEqualTo(Duration.ofMinutes(10));
    rejects(RetryPolicy.builder().maxRetryAfter(ONE_NANO.negated()),
        "RetryPolicy.maxRetryAfter must be in [0, 10 min], got PT-0.000000001S");
    rejects(RetryPolicy.builder().maxRetryAfter(Duration.ofMinutes(10).plus(ONE_NANO)),
        "RetryPolicy.maxRetryAfter must be in [0, 10 min], got PT10M0.000000001S");
    rejects(RetryPolicy.builder().maxRetryAfter(null),
        "RetryPolicy.maxRetryAfter must be in [0, 10 min], got null");
  }

  @Test
  void budgetRatioIsFromZeroToOne() {
    assertThat(RetryPolicy.builder().budgetRatio(0).build().budgetRatio()).isZero();
    assertThat(RetryPolicy.builder().budgetRatio(1).build().budgetRatio()).isEqualTo(1.0);
    rejects(RetryPolicy.builder().budgetRatio(-0.01),
        "RetryPolicy.budgetRatio must be in [0, 1], got -0.01");
    rejects(RetryPolicy.builder().budgetRatio(1.01),
        "RetryPolicy.budgetRatio must be in [0, 1], got 1.01");
  }

  @Test
  void minRetriesPerSecondIsFromZeroToTenThousand() {
    assertThat(RetryPolicy.builder().minRetriesPerSecond(0).build().minRetriesPerSecond())
        .isZero();
    assertThat(RetryPolicy.builder().minRetriesPerSecond(10_000).build().minRetriesPerSecond())
        .isEqualTo(10_000);
    rejects(RetryPolicy.builder().minRetriesPerSecond(-1),
        "RetryPolicy.minRetriesPerSecond must be in [0, 10000], got -1");
    rejects(RetryPolicy.builder().minRetriesPerSecond(10_001),
        "RetryPolicy.minRetriesPerSecond must be in [0, 10000], got 10001");
  }

  @Test
  void retryableStatusesAreErrorStatusesFrom400To599() {
    RetryPolicy p = RetryPolicy.builder().retryableStatuses(Set.of(400, 599)).build();
    assertThat(p.retryableStatuses()).containsExactlyInAnyOrder(400, 599);
    assertThat(p.isRetryableStatus(599)).isTrue();
    assertThat(p.isRetryableStatus(503)).isFalse();
    rejects(RetryPolicy.builder().retryableStatuses(Set.of(399)),
        "RetryPolicy.retryableStatuses must be in [400, 599], got 399");
    rejects(RetryPolicy.builder().retryableStatuses(Set.of(600)),
        "RetryPolicy.retryableStatuses must be in [400, 599], got 600");
  }

  @Test
  void withoutJitterTheBackoffGrowsByTheMultiplierUpToTheCap() {
    RetryPolicy p = RetryPolicy.builder().jitter(0).initialBackoff(Duration.ofMillis(50))
        .multiplier(3).maxBackoff(Duration.ofMillis(1000)).build();
    assertThat(new long[] {p.backoff(1).toMillis(), p.backoff(2).toMillis(),
        p.backoff(3).toMillis(), p.backoff(4).toMillis(), p.backoff(5).toMillis()})
        .containsExactly(50, 150, 450, 1000, 1000);
  }

  @Test
  void aBackoffBelowOneMillisecondMeansRetryingAtOnce() {
    RetryPolicy p = RetryPolicy.builder().initialBackoff(Duration.ofNanos(999_999)).build();
    assertThat(p.backoff(1)).isZero();
    assertThat(p.backoff(4)).isZero();
    RetryPolicy oneMilli = RetryPolicy.builder().initialBackoff(Duration.ofMillis(1)).jitter(0)
        .build();
    assertThat(oneMilli.backoff(1)).isEqualTo(Duration.ofMillis(1));
    assertThat(oneMilli.backoff(2)).isEqualTo(Duration.ofMillis(2));
  }

  @Test
  void withJitterEachBackoffIsDrawnAfreshWithinItsShareOfTheNominalValue() {
    RetryPolicy p = RetryPolicy.defaults(); // 50 ms ±20%, then 100 ms ±20%
    java.util.Set<Long> firsts = new java.util.TreeSet<>();
    for (int i = 0; i < 200; i++) {
      long first = p.backoff(1).toMillis();
      assertThat(first).isBetween(40L, 60L);
      assertThat(p.backoff(2).toMillis()).isBetween(80L, 120L);
      firsts.add(first);
    }
    // 200 draws from 21 whole milliseconds: a constant backoff would mean no jitter at all.
    assertThat(firsts.size()).isGreaterThan(1);
  }
}
