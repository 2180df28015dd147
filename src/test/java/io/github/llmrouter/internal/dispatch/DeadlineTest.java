package io.github.llmrouter.internal.dispatch;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import org.junit.jupiter.api.Test;

/** A call's deadline: its arithmetic, on ticker readings. */
class DeadlineTest {
  private static final long START = 5_000_000_000L;
  private static final long SECOND = Duration.ofSeconds(1).toNanos();

  @Test
  void aDeadlineCountsItsTimeoutFromTheCallsStart() {
    Deadline d = Deadline.after(START, 10 * SECOND);
    assertThat(d.exists()).isTrue();
    assertThat(d.remainingNanos(START + 4 * SECOND)).isEqualTo(6 * SECOND);
    assertThat(d.remainingNanos(START + 12 * SECOND)).isEqualTo(-2 * SECOND);
    assertThat(d.reachedBy(START + 10 * SECOND - 1)).isFalse();
    assertThat(d.reachedBy(START + 10 * SECOND)).as("starting at the deadline is too late")
        .isTrue();
    assertThat(d.timeout()).isEqualTo(Duration.ofSeconds(10));
  }

  @Test
  void withoutATimeoutNothingIsEverLate() {
    Deadline d = Deadline.after(START, 0);
    assertThat(d.exists()).isFalse();
    assertThat(d.remainingNanos(START + 1_000 * SECOND)).isZero();
    assertThat(d.reachedBy(Long.MAX_VALUE)).isFalse();
  }

  @Test
  void theArithmeticSurvivesTickerOverflow() {
    Deadline d = Deadline.after(Long.MAX_VALUE - SECOND, 10 * SECOND);
    assertThat(d.reachedBy(Long.MAX_VALUE - SECOND + 9 * SECOND)).isFalse();
    assertThat(d.remainingNanos(Long.MAX_VALUE - SECOND + 9 * SECOND)).isEqualTo(SECOND);
  }
}
