package io.github.llmrouter.internal.dispatch;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import org.junit.jupiter.api.Test;

/** The decaying histogram a hedge is timed from: buckets, percentiles and decay. */
class AnswerTimesTest {
  private static final long MS = 1_000_000;

  @Test
  void bucketsGrowByAQuarterOfADoublingFromOneMillisecond() {
    assertThat(AnswerTimes.bucket(0)).isZero();
    assertThat(AnswerTimes.bucket(MS)).isZero();
    assertThat(AnswerTimes.bucket(MS + 1)).isZero(); // up to 1.19 ms
    assertThat(AnswerTimes.bucket(2 * MS)).isEqualTo(3); // exactly one doubling: 4 buckets up
    assertThat(AnswerTimes.bucket(2 * MS + 1)).isEqualTo(4);
    assertThat(AnswerTimes.bucket(Long.MAX_VALUE)).isEqualTo(83);
  }

  @Test
  void requestsAreClassedBySizeInFourfoldSteps() {
    assertThat(AnswerTimes.sizeClass(0)).isZero();
    assertThat(AnswerTimes.sizeClass(4095)).isZero();
    assertThat(AnswerTimes.sizeClass(4096)).isEqualTo(1);
    assertThat(AnswerTimes.sizeClass(16 * 1024 - 1)).isEqualTo(1);
    assertThat(AnswerTimes.sizeClass(16 * 1024)).isEqualTo(2);
    assertThat(AnswerTimes.sizeClass(1L << 24)).isEqualTo(AnswerTimes.SIZE_CLASSES - 1);
    assertThat(AnswerTimes.sizeClass(Long.MAX_VALUE)).isEqualTo(AnswerTimes.SIZE_CLASSES - 1);
  }

  @Test
  void aPercentileIsTheTopOfTheBucketItFallsIn() {
    AnswerTimes t = new AnswerTimes();
    for (int i = 0; i < 95; i++) t.add(10 * MS);
    for (int i = 0; i < 5; i++) t.add(1000 * MS);
    assertThat(t.seen()).isEqualTo(100);
    // 10 ms lies in the bucket up to 2^(14/4) = 11.3 ms; 1 s in the one up to 2^(40/4) = 1.02 s.
    assertThat(t.percentileNanos(0.95) / 1e6).isCloseTo(11.31, within(0.01));
    assertThat(t.percentileNanos(0.96) / 1e6).isCloseTo(1024.0, within(0.01));
    assertThat(t.percentileNanos(0.5)).isEqualTo(t.percentileNanos(0.95));
  }

  @Test
  void oldSamplesFadeSoThePercentileFollowsTheFleet() {
    AnswerTimes t = new AnswerTimes();
    for (int i = 0; i < AnswerTimes.HALF_LIFE; i++) t.add(1000 * MS);
    for (int i = 0; i < 4 * AnswerTimes.HALF_LIFE; i++) t.add(10 * MS);
    // The slow ones were halved four times (32 of 512 left) under 2048 fast ones: below 2 %.
    assertThat(t.percentileNanos(0.95) / 1e6).isCloseTo(11.31, within(0.01));
    assertThat(t.percentileNanos(0.999) / 1e6).isCloseTo(1024.0, within(0.01));
  }
}
