package io.github.llmrouter.dispatch;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.github.llmrouter.load.Saturation;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * {@link Admission}: off by default, the documented defaults once built, and every knob's range
 * checked at build() on both sides of each bound with a message naming the knob.
 */
class AdmissionTest {
  private static void rejects(Admission.Builder builder, String message) {
    assertThatThrownBy(builder::build).isInstanceOf(IllegalArgumentException.class)
        .hasMessage(message);
  }

  @Test
  void disabledAdmissionKeepsTheDefaultSaturation() {
    Admission off = Admission.disabled();
    assertThat(off.enabled()).isFalse();
    assertThat(off.saturation()).isEqualTo(Saturation.defaults());
    assertThat(off).hasToString("Admission{disabled}");
  }

  @Test
  void aBuiltAdmissionIsOnWithTheDocumentedDefaults() {
    Admission on = Admission.builder().build();
    assertThat(on.enabled()).isTrue();
    assertThat(on.capacity()).isEqualTo(Admission.DEFAULT_CAPACITY).isEqualTo(1024);
    assertThat(on.maxWait()).isEqualTo(Admission.DEFAULT_MAX_WAIT);
    assertThat(on.queueThreshold()).isEqualTo(Saturation.DEFAULT_QUEUE_THRESHOLD);
    assertThat(on.kvUsageThreshold()).isEqualTo(Saturation.DEFAULT_KV_USAGE_THRESHOLD);
    assertThat(on).hasToString("Admission{capacity=1024, maxWait=PT10S, queueThreshold=4, "
        + "kvUsageThreshold=0.95}");
  }

  @Test
  void theThresholdsBecomeTheSaturationRule() {
    Admission a = Admission.builder().queueThreshold(7).kvUsageThreshold(0.5).build();
    assertThat(a.queueThreshold()).isEqualTo(7);
    assertThat(a.kvUsageThreshold()).isEqualTo(0.5);
    assertThat(a.saturation()).isEqualTo(new Saturation(7, 0.5));
  }

  @Test
  void capacityIsFromOneToOneMillion() {
    assertThat(Admission.builder().capacity(1).build().capacity()).isEqualTo(1);
    assertThat(Admission.builder().capacity(1_000_000).build().capacity()).isEqualTo(1_000_000);
    rejects(Admission.builder().capacity(0), "Admission.capacity must be in [1, 1000000], got 0");
    rejects(Admission.builder().capacity(1_000_001),
        "Admission.capacity must be in [1, 1000000], got 1000001");
  }

  @Test
  void maxWaitIsAboveZeroUpToTenMinutes() {
    assertThat(Admission.builder().maxWait(Duration.ofNanos(1)).build().maxWait())
        .isEqualTo(Duration.ofNanos(1));
    assertThat(Admission.builder().maxWait(Duration.ofMinutes(10)).build().maxWait())
        .isEqualTo(Duration.ofMinutes(10));
    rejects(Admission.builder().maxWait(Duration.ZERO),
        "Admission.maxWait must be in (0, 10 min], got PT0S");
    rejects(Admission.builder().maxWait(Duration.ofNanos(-1)),
        "Admission.maxWait must be in (0, 10 min], got PT-0.000000001S");
    rejects(Admission.builder().maxWait(Duration.ofMinutes(10).plusNanos(1)),
        "Admission.maxWait must be in (0, 10 min], got PT10M0.000000001S");
  }

  @Test
  void queueThresholdIsFromOneToOneHundredThousand() {
    assertThat(Admission.builder().queueThreshold(1).build().queueThreshold()).isEqualTo(1);
    assertThat(Admission.builder().queueThreshold(100_000).build().queueThreshold())
        .isEqualTo(100_000);
    rejects(Admission.builder().queueThreshold(0),
        "Admission.queueThreshold must be in [1, 100000], got 0");
    rejects(Admission.builder().queueThreshold(100_001),
        "Admission.queueThreshold must be in [1, 100000], got 100001");
  }

  @Test
  void kvUsageThresholdIsAboveZeroUpToOne() {
    assertThat(Admission.builder().kvUsageThreshold(1).build().kvUsageThreshold())
        .isEqualTo(1.0);
    assertThat(Admission.builder().kvUsageThreshold(Double.MIN_VALUE).build().kvUsageThreshold())
        .isEqualTo(Double.MIN_VALUE);
    rejects(Admission.builder().kvUsageThreshold(0),
        "Admission.kvUsageThreshold must be in (0, 1], got 0.0");
    rejects(Admission.builder().kvUsageThreshold(Math.nextUp(1.0)),
        "Admission.kvUsageThreshold must be in (0, 1], got 1.0000000000000002");
    rejects(Admission.builder().kvUsageThreshold(Double.NaN),
        "Admission.kvUsageThreshold must be in (0, 1], got NaN");
  }
}
