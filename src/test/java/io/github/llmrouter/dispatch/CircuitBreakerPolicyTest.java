package io.github.llmrouter.dispatch;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * {@link CircuitBreakerPolicy}: its documented defaults, and every knob's range checked at build()
 * on both sides of each bound with a message naming the knob.
 */
class CircuitBreakerPolicyTest {
  private static void rejects(CircuitBreakerPolicy.Builder builder, String message) {
    assertThatThrownBy(builder::build).isInstanceOf(IllegalArgumentException.class)
        .hasMessage(message);
  }

  @Test
  void theDefaultsAreTheDocumentedConstants() {
    CircuitBreakerPolicy p = CircuitBreakerPolicy.defaults();
    assertThat(p.enabled()).isTrue();
    assertThat(p.failureRateThreshold())
        .isEqualTo(CircuitBreakerPolicy.DEFAULT_FAILURE_RATE_THRESHOLD).isEqualTo(50f);
    assertThat(p.slidingWindowSize()).isEqualTo(CircuitBreakerPolicy.DEFAULT_SLIDING_WINDOW_SIZE);
    assertThat(p.minimumCalls()).isEqualTo(CircuitBreakerPolicy.DEFAULT_MINIMUM_CALLS);
    assertThat(p.openDuration()).isEqualTo(CircuitBreakerPolicy.DEFAULT_OPEN_DURATION);
    assertThat(p.halfOpenCalls()).isEqualTo(CircuitBreakerPolicy.DEFAULT_HALF_OPEN_CALLS);
    assertThat(CircuitBreakerPolicy.disabled().enabled()).isFalse();
  }

  @Test
  void toStringShowsEveryKnobOrThatBreakersAreOff() {
    assertThat(CircuitBreakerPolicy.defaults()).hasToString("CircuitBreakerPolicy{"
        + "failureRateThreshold=50.0%, slidingWindowSize=20, minimumCalls=10, openDuration=PT10S, "
        + "halfOpenCalls=3}");
    assertThat(CircuitBreakerPolicy.disabled()).hasToString("CircuitBreakerPolicy{disabled}");
  }

  @Test
  void failureRateThresholdIsAboveZeroUpToOneHundredPercent() {
    assertThat(CircuitBreakerPolicy.builder().failureRateThreshold(100).build()
        .failureRateThreshold()).isEqualTo(100f);
    assertThat(CircuitBreakerPolicy.builder().failureRateThreshold(Float.MIN_VALUE).build()
        .failureRateThreshold()).isEqualTo(Float.MIN_VALUE);
    rejects(CircuitBreakerPolicy.builder().failureRateThreshold(0),
        "CircuitBreakerPolicy.failureRateThreshold must be in (0, 100], got 0.0");
    rejects(CircuitBreakerPolicy.builder().failureRateThreshold(Math.nextUp(100f)),
        "CircuitBreakerPolicy.failureRateThreshold must be in (0, 100], got 100.00001");
    rejects(CircuitBreakerPolicy.builder().failureRateThreshold(Float.NaN),
        "CircuitBreakerPolicy.failureRateThreshold must be in (0, 100], got NaN");
  }

  @Test
  void slidingWindowSizeIsFromOneToTenThousand() {
    assertThat(CircuitBreakerPolicy.builder().slidingWindowSize(1).minimumCalls(1).build()
        .slidingWindowSize()).isEqualTo(1);
    assertThat(CircuitBreakerPolicy.builder().slidingWindowSize(10_000).build()
        .slidingWindowSize()).isEqualTo(10_000);
    rejects(CircuitBreakerPolicy.builder().slidingWindowSize(0).minimumCalls(1),
        "CircuitBreakerPolicy.slidingWindowSize must be in [1, 10000], got 0");
    rejects(CircuitBreakerPolicy.builder().slidingWindowSize(10_001),
        "CircuitBreakerPolicy.slidingWindowSize must be in [1, 10000], got 10001");
  }

  @Test
  void minimumCallsIsFromOneToTheSlidingWindowSize() {
    assertThat(CircuitBreakerPolicy.builder().minimumCalls(1).build().minimumCalls())
        .isEqualTo(1);
    assertThat(CircuitBreakerPolicy.builder().slidingWindowSize(8).minimumCalls(8).build()
        .minimumCalls()).isEqualTo(8);
    rejects(CircuitBreakerPolicy.builder().minimumCalls(0),
        "CircuitBreakerPolicy.minimumCalls must be in [1, slidingWindowSize], got 0");
    rejects(CircuitBreakerPolicy.builder().slidingWindowSize(8).minimumCalls(9),
        "CircuitBreakerPolicy.minimumCalls must be in [1, slidingWindowSize], got 9");
  }

  @Test
  void openDurationIsAboveZeroUpToOneHour() {
    assertThat(CircuitBreakerPolicy.builder().openDuration(Duration.ofNanos(1)).build()
        .openDuration()).isEqualTo(Duration.ofNanos(1));
    assertThat(CircuitBreakerPolicy.builder().openDuration(Duration.ofHours(1)).build()
        .openDuration()).isEqualTo(Duration.ofHours(1));
    rejects(CircuitBreakerPolicy.builder().openDuration(Duration.ZERO),
        "CircuitBreakerPolicy.openDuration must be in (0, 1 h], got PT0S");
    rejects(CircuitBreakerPolicy.builder().openDuration(Duration.ofNanos(-1)),
        "CircuitBreakerPolicy.openDuration must be in (0, 1 h], got PT-0.000000001S");
    rejects(CircuitBreakerPolicy.builder().openDuration(Duration.ofHours(1).plusNanos(1)),
        "CircuitBreakerPolicy.openDuration must be in (0, 1 h], got PT1H0.000000001S");
  }

  @Test
  void halfOpenCallsIsFromOneToOneHundred() {
    assertThat(CircuitBreakerPolicy.builder().halfOpenCalls(1).build().halfOpenCalls())
        .isEqualTo(1);
    assertThat(CircuitBreakerPolicy.builder().halfOpenCalls(100).build().halfOpenCalls())
        .isEqualTo(100);
    rejects(CircuitBreakerPolicy.builder().halfOpenCalls(0),
        "CircuitBreakerPolicy.halfOpenCalls must be in [1, 100], got 0");
    rejects(CircuitBreakerPolicy.builder().halfOpenCalls(101),
        "CircuitBreakerPolicy.halfOpenCalls must be in [1, 100], got 101");
  }
}
