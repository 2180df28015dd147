package io.github.llmrouter;

import static io.github.llmrouter.Fixtures.CHAT_JSON;
import static io.github.llmrouter.Fixtures.chat;
import static io.github.llmrouter.Fixtures.chunk;
import static io.github.llmrouter.Fixtures.ok;
import static io.github.llmrouter.Fixtures.sse;
import static io.github.llmrouter.Fixtures.status;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.github.llmrouter.api.ChatChunk;
import io.github.llmrouter.api.ResponseStream;
import io.github.llmrouter.load.LoadMonitoring;
import io.github.llmrouter.micrometer.LlmRouterMetrics;
import io.github.llmrouter.observe.CircuitBreakerEvent;
import io.github.llmrouter.observe.EjectionEvent;
import io.github.llmrouter.replica.Replica;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.micrometer.core.tck.MeterRegistryAssert;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import mockwebserver3.MockWebServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Every documented meter is recorded with its name, tags and values; tags stay bounded. */
class MicrometerMetricsTest {
  private final MeterRegistry registry = new SimpleMeterRegistry();
  private final MockWebServer first = new MockWebServer();
  private final MockWebServer second = new MockWebServer();

  @AfterEach
  void stop() {
    first.close();
    second.close();
  }

  private static Tag[] tags(String... keyValues) {
    List<Tag> tags = new ArrayList<>();
    for (Tag t : Tags.of(keyValues)) tags.add(t);
    return tags.toArray(Tag[]::new);
  }

  @Test
  void aCallThatFailsOverIsCountedWithItsAttemptsRetryFailoverAndTokens() throws Exception {
    first.enqueue(status(503));
    second.enqueue(ok(CHAT_JSON));
    try (LlmClient client = Fixtures.scripted(first, second)
        .listener(LlmRouterMetrics.builder(registry).tags(Tags.of("client", "test")).build())
        .build()) {
      client.chat(chat("hi"));
      String a = client.replicas().get(0).id();
      String b = client.replicas().get(1).id();
      MeterRegistryAssert r = MeterRegistryAssert.assertThat(registry);
      r.timer("llm.router.calls", tags("client", "test", "operation", "chat", "model", "m",
          "outcome", "success", "error.type", "none")).hasCount(1);
      r.timer("llm.router.attempts", tags("client", "test", "operation", "chat", "model", "m",
          "replica", a, "outcome", "failed", "error.type", "503")).hasCount(1);
      r.timer("llm.router.attempts", tags("client", "test", "operation", "chat", "model", "m",
          "replica", b, "outcome", "answered", "error.type", "none")).hasCount(1);
      r.counter("llm.router.retries", tags("client", "test", "operation", "chat", "model", "m",
          "reason", "503")).hasCount(1);
      r.counter("llm.router.failovers", tags("client", "test", "operation", "chat", "model", "m",
          "replica", b, "reason", "503")).hasCount(1);
      r.counter("llm.router.tokens", tags("client", "test", "model", "m", "replica", b, "type",
          "input")).hasCount(12);
      r.counter("llm.router.tokens", tags("client", "test", "model", "m", "replica", b, "type",
          "cached_input")).hasCount(8);
      r.counter("llm.router.tokens", tags("client", "test", "model", "m", "replica", b, "type",
          "output")).hasCount(3);
      r.counter("llm.router.tokens", tags("client", "test", "model", "m", "replica", b, "type",
          "predicted_cached_input")).as("round robin predicts nothing").hasCount(0);
      r.doesNotHaveMeterWithName("llm.router.time_to_first_token");

      r.gauge("llm.router.replicas", tags("client", "test")).hasValue(2);
      r.gauge("llm.router.in_flight", tags("client", "test", "replica", a)).hasValue(0);
      r.gauge("llm.router.circuit_breaker.state", tags("client", "test", "replica", a, "state",
          "closed")).hasValue(1);
      r.gauge("llm.router.circuit_breaker.state", tags("client", "test", "replica", a, "state",
          "open")).hasValue(0);
      r.gauge("llm.router.fleet.replicas_needed", tags("client", "test", "target", "2.0"))
          .as("no load reports: the current count").hasValue(2);
      r.gauge("llm.router.fleet.waiting", tags("client", "test")).hasValue(0);
      assertThat(registry.get("llm.router.load_report.age").tags("replica", a).gauge().value())
          .as("never reported").isNaN();
    }
    MeterRegistryAssert.assertThat(registry).as("gauges go with the client")
        .doesNotHaveMeterWithName("llm.router.replicas")
        .doesNotHaveMeterWithName("llm.router.in_flight");
  }

  @Test
  void aStreamRecordsItsTimeToFirstTokenAndItsWholeLatencyWhenItEnds() throws Exception {
    first.enqueue(sse(chunk("a") + chunk("b") + "data: {\"id\":\"c\",\"choices\":[],"
        + "\"usage\":{\"prompt_tokens\":5,\"completion_tokens\":2,\"total_tokens\":7}}\n\n"
        + "data: [DONE]\n\n"));
    try (LlmClient client = Fixtures.scripted(first).listener(LlmRouterMetrics.of(registry))
        .build()) {
      String a = client.replicas().get(0).id();
      MeterRegistryAssert r = MeterRegistryAssert.assertThat(registry);
      try (ResponseStream<ChatChunk> stream = client.chatStream(chat("hi"))) {
        r.timer("llm.router.time_to_first_token", tags("operation", "chat.stream", "model", "m",
            "replica", a)).hasCount(1);
        r.doesNotHaveMeterWithName("llm.router.calls");
        assertThat(client.inFlight(a)).isEqualTo(1);
        r.gauge("llm.router.in_flight", tags("replica", a)).hasValue(1);
        stream.forEach(c -> { });
      }
      r.timer("llm.router.calls", tags("operation", "chat.stream", "model", "m", "outcome",
          "success", "error.type", "none")).hasCount(1);
      r.timer("llm.router.attempts", tags("operation", "chat.stream", "model", "m", "replica", a,
          "outcome", "answered", "error.type", "none")).hasCount(1);
      r.counter("llm.router.tokens", tags("model", "m", "replica", a, "type", "output"))
          .hasCount(2);
      double ttft = registry.get("llm.router.time_to_first_token").timer().totalTime(
          java.util.concurrent.TimeUnit.NANOSECONDS);
      double whole = registry.get("llm.router.calls").timer().totalTime(
          java.util.concurrent.TimeUnit.NANOSECONDS);
      assertThat(whole).isGreaterThanOrEqualTo(ttft);
    }
  }

  @Test
  void theFleetGaugesReadTheLoadReports() throws Exception {
    List<LoadMonitoringTest.Scripted> fleet = List.of(new LoadMonitoringTest.Scripted(),
        new LoadMonitoringTest.Scripted());
    fleet.get(0).metrics.set(LoadMonitoringTest.Scripted.metrics(6, 0.5));
    fleet.get(1).metrics.set(LoadMonitoringTest.Scripted.metrics(2, 0.5));
    java.util.concurrent.atomic.AtomicLong now = new java.util.concurrent.atomic.AtomicLong();
    try (LlmClient client = LlmClient.builder().replicas(fleet.get(0).url(), fleet.get(1).url())
        .ticker(now::get)
        .loadMonitoring(LoadMonitoring.builder().scrapeInterval(Duration.ofMinutes(5)).build())
        .listener(LlmRouterMetrics.builder(registry).targetMeanWaiting(1.0).build()).build()) {
      client.scrapeLoadNow().get(10, java.util.concurrent.TimeUnit.SECONDS);
      now.addAndGet(Duration.ofMillis(1500).toNanos());
      MeterRegistryAssert r = MeterRegistryAssert.assertThat(registry);
      r.gauge("llm.router.fleet.waiting").hasValue(8);
      // 2 replicas x 4 waiting on average / 1 per replica
      r.gauge("llm.router.fleet.replicas_needed", tags("target", "1.0")).hasValue(8);
      for (Replica replica : client.replicas()) {
        r.gauge("llm.router.load_report.age", tags("replica", replica.id())).hasValue(1.5);
      }
    } finally {
      fleet.forEach(f -> f.server.close());
    }
  }

  @Test
  void ejectionsAndBreakerTransitionsMoveTheirMeters() throws Exception {
    first.enqueue(ok(CHAT_JSON));
    LlmRouterMetrics metrics = LlmRouterMetrics.of(registry);
    try (LlmClient client = Fixtures.scripted(first).listener(metrics).build()) {
      String a = client.replicas().get(0).id();
      metrics.onEjection(new EjectionEvent(a, true, Duration.ofSeconds(30), 1, "5 failures"));
      metrics.onEjection(new EjectionEvent(a, false, Duration.ZERO, 1, "expired"));
      metrics.onEjection(new EjectionEvent(a, true, Duration.ofSeconds(60), 2, "5 failures"));
      metrics.onCircuitBreaker(new CircuitBreakerEvent(a, "CLOSED", "OPEN", "failure rate"));
      MeterRegistryAssert r = MeterRegistryAssert.assertThat(registry);
      r.counter("llm.router.ejections", tags("replica", a)).as("ejections, not their ends")
          .hasCount(2);
      r.gauge("llm.router.circuit_breaker.state", tags("replica", a, "state", "open"))
          .hasValue(1);
      r.gauge("llm.router.circuit_breaker.state", tags("replica", a, "state", "closed"))
          .hasValue(0);
    }
  }

  @Test
  void oneInstanceServesOneClient() throws Exception {
    LlmRouterMetrics metrics = LlmRouterMetrics.of(registry);
    try (LlmClient one = Fixtures.scripted(first).listener(metrics).build();
        LlmClient two = Fixtures.scripted(second).listener(metrics).build()) {
      MeterRegistryAssert.assertThat(registry).gauge("llm.router.replicas").hasValue(1);
    }
    assertThatThrownBy(() -> LlmRouterMetrics.builder(registry).targetMeanWaiting(0).build())
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("targetMeanWaiting");
    assertThatThrownBy(() -> LlmRouterMetrics.builder(registry)
        .targetMeanWaiting(Double.POSITIVE_INFINITY).build())
        .isInstanceOf(IllegalArgumentException.class);
  }
}
