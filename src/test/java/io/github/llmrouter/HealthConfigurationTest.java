package io.github.llmrouter;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.github.llmrouter.dispatch.CircuitBreakerPolicy;
import io.github.llmrouter.replica.HealthCheck;
import io.github.llmrouter.replica.OutlierDetection;
import io.github.llmrouter.replica.ReplicaResolver;
import io.github.llmrouter.replica.kubernetes.KubernetesResolver;
import java.time.Duration;
import java.util.List;
import java.util.function.Supplier;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.Test;

/** Discovery and health knobs: documented defaults, and build() names the knob out of range. */
class HealthConfigurationTest {
  private static void rejects(UnaryOperator<LlmClientBuilder> config, String... messageParts) {
    assertThatThrownBy(() -> config.apply(LlmClient.builder().replicas("http://127.0.0.1:1")).build())
        .isInstanceOf(IllegalArgumentException.class)
        .message().contains(messageParts);
  }

  private static void rejects(Supplier<?> build, String... messageParts) {
    assertThatThrownBy(build::get).isInstanceOf(IllegalArgumentException.class)
        .message().contains(messageParts);
  }

  @Test
  void clientKnobs() {
    rejects(b -> b.slowStart(Duration.ofHours(2)), "slowStart", "[0, 1 h]");
    rejects(b -> b.slowStart(Duration.ofSeconds(-1)), "slowStart");
    rejects(b -> b.maxWaitingCalls(-1), "maxWaitingCalls", "[0, 65536]");
    rejects(b -> b.resolver(ReplicaResolver.of(List.of())), "exclusive");
    assertThatThrownBy(() -> LlmClient.builder().build())
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("resolver");
  }

  @Test
  void outlierDetectionKnobs() {
    rejects(() -> OutlierDetection.builder().consecutiveFailures(0).build(),
        "OutlierDetection.consecutiveFailures", "[1, 1000]");
    rejects(() -> OutlierDetection.builder().baseEjectionTime(Duration.ZERO).build(),
        "OutlierDetection.baseEjectionTime");
    rejects(() -> OutlierDetection.builder().maxEjectionTime(Duration.ofSeconds(10)).build(),
        "OutlierDetection.maxEjectionTime", "[baseEjectionTime, 24 h]");
    rejects(() -> OutlierDetection.builder().maxEjectionPercent(101).build(),
        "OutlierDetection.maxEjectionPercent", "[0, 100]");
    OutlierDetection d = OutlierDetection.defaults();
    assertThat(List.of(d.consecutiveFailures(), d.maxEjectionPercent())).containsExactly(5, 10);
    assertThat(List.of(d.baseEjectionTime(), d.maxEjectionTime()))
        .containsExactly(Duration.ofSeconds(30), Duration.ofSeconds(300));
  }

  @Test
  void circuitBreakerKnobs() {
    rejects(() -> CircuitBreakerPolicy.builder().failureRateThreshold(0).build(),
        "CircuitBreakerPolicy.failureRateThreshold", "(0, 100]");
    rejects(() -> CircuitBreakerPolicy.builder().slidingWindowSize(0).build(),
        "CircuitBreakerPolicy.slidingWindowSize");
    rejects(() -> CircuitBreakerPolicy.builder().minimumCalls(21).build(),
        "CircuitBreakerPolicy.minimumCalls", "[1, slidingWindowSize]");
    rejects(() -> CircuitBreakerPolicy.builder().openDuration(Duration.ZERO).build(),
        "CircuitBreakerPolicy.openDuration");
    rejects(() -> CircuitBreakerPolicy.builder().halfOpenCalls(0).build(),
        "CircuitBreakerPolicy.halfOpenCalls");
    assertThat(CircuitBreakerPolicy.disabled().enabled()).isFalse();
  }

  @Test
  void healthCheckKnobs() {
    rejects(() -> HealthCheck.builder().path("health").build(), "HealthCheck.path");
    rejects(() -> HealthCheck.builder().interval(Duration.ofMillis(1)).build(),
        "HealthCheck.interval", "[10 ms, 1 h]");
    rejects(() -> HealthCheck.builder().timeout(Duration.ZERO).build(), "HealthCheck.timeout");
    rejects(() -> HealthCheck.builder().unhealthyThreshold(0).build(),
        "HealthCheck.unhealthyThreshold");
    rejects(() -> HealthCheck.builder().healthyThreshold(101).build(), "HealthCheck.healthyThreshold");
    rejects(() -> HealthCheck.builder().jitter(0.6).build(), "HealthCheck.jitter", "[0, 0.5]");
    HealthCheck h = HealthCheck.defaults();
    assertThat(List.of(h.unhealthyThreshold(), h.healthyThreshold())).containsExactly(3, 2);
    assertThat(h.path()).isEqualTo("/health");
  }

  @Test
  void resolverKnobs() {
    rejects(() -> ReplicaResolver.polling(List::of, Duration.ZERO), "polling interval");
    rejects(() -> KubernetesResolver.builder(" ").build(), "KubernetesResolver.service");
    rejects(() -> KubernetesResolver.builder("vllm").scheme("grpc").build(),
        "KubernetesResolver.scheme");
  }
}
