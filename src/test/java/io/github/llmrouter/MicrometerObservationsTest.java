package io.github.llmrouter;

import static io.github.llmrouter.Fixtures.CHAT_JSON;
import static io.github.llmrouter.Fixtures.chat;
import static io.github.llmrouter.Fixtures.chunk;
import static io.github.llmrouter.Fixtures.ok;
import static io.github.llmrouter.Fixtures.sse;
import static io.github.llmrouter.Fixtures.status;
import static org.assertj.core.api.Assertions.assertThat;

import io.github.llmrouter.api.ChatChunk;
import io.github.llmrouter.api.ChatResponse;
import io.github.llmrouter.api.ReplicaHttpException;
import io.github.llmrouter.api.ResponseStream;
import io.github.llmrouter.micrometer.LlmRouterObservations;
import io.github.llmrouter.testing.ObservedContexts;
import io.micrometer.common.KeyValue;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;
import io.micrometer.observation.tck.TestObservationRegistry;
import io.micrometer.observation.tck.TestObservationRegistryAssert;
import io.micrometer.tracing.handler.DefaultTracingObservationHandler;
import io.micrometer.tracing.handler.PropagatingSenderTracingObservationHandler;
import io.micrometer.tracing.otel.bridge.OtelCurrentTraceContext;
import io.micrometer.tracing.otel.bridge.OtelPropagator;
import io.micrometer.tracing.otel.bridge.OtelTracer;
import io.opentelemetry.api.trace.propagation.W3CTraceContextPropagator;
import io.opentelemetry.context.propagation.ContextPropagators;
import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.opentelemetry.sdk.trace.export.SimpleSpanProcessor;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import mockwebserver3.MockResponse;
import mockwebserver3.MockWebServer;
import mockwebserver3.RecordedRequest;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * An observation per call and per attempt, with the documented names, attributes and parents;
 * through OpenTelemetry, the traceparent a replica receives is its attempt's span.
 */
class MicrometerObservationsTest {
  private final TestObservationRegistry registry = TestObservationRegistry.create();
  /** Every context started, in order, and those stopped. */
  private final ObservedContexts contexts = new ObservedContexts();
  private final List<Observation.Context> started = contexts.started;
  private final Set<Observation.Context> stopped = contexts.stopped;

  {
    registry.observationConfig().observationHandler(contexts);
  }

  private final MockWebServer first = new MockWebServer();
  private final MockWebServer second = new MockWebServer();

  @AfterEach
  void stop() {
    first.close();
    second.close();
  }

  private List<Observation.Context> named(String name) {
    return contexts.named(name);
  }

  private static String low(Observation.Context c, String key) {
    KeyValue kv = c.getLowCardinalityKeyValue(key);
    return kv == null ? null : kv.getValue();
  }

  private static String high(Observation.Context c, String key) {
    KeyValue kv = c.getHighCardinalityKeyValue(key);
    return kv == null ? null : kv.getValue();
  }

  @Test
  void aCallIsObservedWithOneChildPerAttemptAndTheGenAiAttributes() throws Exception {
    first.enqueue(status(503));
    second.enqueue(ok(CHAT_JSON));
    try (LlmClient client = Fixtures.scripted(first, second)
        .listener(LlmRouterObservations.of(registry)).build()) {
      client.chat(chat("hi"));
      String a = client.replicas().get(0).id();
      String b = client.replicas().get(1).id();

      TestObservationRegistryAssert.assertThat(registry)
          .hasNumberOfObservationsWithNameEqualTo(LlmRouterObservations.CALL, 1)
          .hasNumberOfObservationsWithNameEqualTo(LlmRouterObservations.ATTEMPT, 2);
      assertThat(stopped).containsExactlyInAnyOrderElementsOf(started);
      Observation.Context call = named(LlmRouterObservations.CALL).get(0);
      assertThat(call.getContextualName()).isEqualTo("chat m");
      assertThat(low(call, "gen_ai.operation.name")).isEqualTo("chat");
      assertThat(low(call, "gen_ai.request.model")).isEqualTo("m");
      assertThat(low(call, "llm.router.replica")).isEqualTo(b);
      assertThat(low(call, "error.type")).isEqualTo("none");
      assertThat(high(call, "gen_ai.response.model")).isEqualTo("m");
      assertThat(high(call, "gen_ai.usage.input_tokens")).isEqualTo("12");
      assertThat(high(call, "gen_ai.usage.output_tokens")).isEqualTo("3");
      assertThat(high(call, "gen_ai.usage.cache_read.input_tokens")).isEqualTo("8");
      assertThat(call.getError()).isNull();

      List<Observation.Context> attempts = named(LlmRouterObservations.ATTEMPT);
      Observation.Context failed = attempts.get(0);
      Observation.Context answered = attempts.get(1);
      assertThat(failed.getParentObservation().getContextView()).isSameAs(call);
      assertThat(answered.getParentObservation().getContextView()).isSameAs(call);
      assertThat(low(failed, "llm.router.replica")).isEqualTo(a);
      assertThat(low(failed, "server.address")).isEqualTo(first.getHostName());
      assertThat(low(failed, "server.port")).isEqualTo(Integer.toString(first.getPort()));
      assertThat(low(failed, "llm.router.outcome")).isEqualTo("failed");
      assertThat(low(failed, "error.type")).isEqualTo("503");
      assertThat(high(failed, "llm.router.attempt")).isEqualTo("1");
      assertThat(high(failed, "llm.router.routing.reason")).isNotBlank();
      assertThat(failed.getError()).isInstanceOf(ReplicaHttpException.class);
      assertThat(low(answered, "llm.router.replica")).isEqualTo(b);
      assertThat(low(answered, "llm.router.outcome")).isEqualTo("answered");
      assertThat(high(answered, "llm.router.attempt")).isEqualTo("2");
      assertThat(answered.getContextualName()).isEqualTo("chat m attempt");
      assertThat(high(answered, "gen_ai.usage.input_tokens")).as("the call's").isNull();
      assertThat(answered.getError()).isNull();
    }
  }

  @Test
  void anAttemptCarriesThePolicysPredictionAndTheCallTheCachedTokensServed() {
    try (io.github.llmrouter.emulator.EmulatedReplica replica =
        io.github.llmrouter.emulator.EmulatedReplica.builder().instant().build().start();
        LlmClient client = LlmClient.builder().replicas(replica.baseUrl())
            .listener(LlmRouterObservations.of(registry)).build()) {
      io.github.llmrouter.api.ChatRequest turn = io.github.llmrouter.api.ChatRequest
          .builder("m").message(io.github.llmrouter.api.ChatMessage.system("be brief ".repeat(200)))
          .message(io.github.llmrouter.api.ChatMessage.user("hi")).build();
      client.chat(turn);
      client.chat(turn);
      Observation.Context second = named(LlmRouterObservations.ATTEMPT).get(1);
      assertThat(Long.parseLong(high(second, "llm.router.predicted_cached_tokens")))
          .as("the default policy expects the prompt it sent there cached").isPositive();
      Observation.Context call = named(LlmRouterObservations.CALL).get(1);
      assertThat(Long.parseLong(high(call, "gen_ai.usage.cache_read.input_tokens"))).isPositive();
    }
  }

  @Test
  void aStreamsCallEndsWithTheStreamAndCarriesItsTimeToFirstChunk() throws Exception {
    first.enqueue(sse(chunk("a") + "data: {\"id\":\"c\",\"model\":\"m\",\"choices\":[],"
        + "\"usage\":{\"prompt_tokens\":5,\"completion_tokens\":2,\"total_tokens\":7}}\n\n"
        + "data: [DONE]\n\n"));
    try (LlmClient client = Fixtures.scripted(first)
        .listener(LlmRouterObservations.of(registry)).build()) {
      try (ResponseStream<ChatChunk> stream = client.chatStream(chat("hi"))) {
        assertThat(named(LlmRouterObservations.CALL)).singleElement()
            .matches(c -> !stopped.contains(c), "not stopped before the stream ends");
        stream.forEach(c -> { });
      }
      assertThat(stopped).containsExactlyInAnyOrderElementsOf(started);
      Observation.Context call = named(LlmRouterObservations.CALL).get(0);
      assertThat(call.getContextualName()).isEqualTo("chat m");
      assertThat(Double.parseDouble(high(call, "llm.router.time_to_first_chunk"))).isPositive();
      assertThat(high(call, "gen_ai.usage.output_tokens")).isEqualTo("2");
      Observation.Context attempt = named(LlmRouterObservations.ATTEMPT).get(0);
      assertThat(low(attempt, "llm.router.outcome")).isEqualTo("answered");
    }
  }

  @Test
  void aCancelledCallAndItsAttemptAreStopped() throws Exception {
    first.enqueue(new MockResponse.Builder().headersDelay(10, TimeUnit.SECONDS).body(CHAT_JSON)
        .build());
    try (LlmClient client = Fixtures.scripted(first)
        .listener(LlmRouterObservations.of(registry)).build()) {
      CompletableFuture<ChatResponse> call = client.chatAsync(chat("hi"));
      first.takeRequest(5, TimeUnit.SECONDS);
      call.cancel(true);
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
      while (named(LlmRouterObservations.ATTEMPT).stream()
          .anyMatch(c -> low(c, "llm.router.outcome") == null) && System.nanoTime() < deadline) {
        Thread.onSpinWait();
      }
      Observation.Context attempt = named(LlmRouterObservations.ATTEMPT).get(0);
      assertThat(low(attempt, "llm.router.outcome")).isEqualTo("abandoned");
      assertThat(started).hasSize(2);
      assertThat(stopped).containsExactlyInAnyOrderElementsOf(started);
    }
  }

  @Test
  void theTraceparentAReplicaReceivesIsItsAttemptsSpanUnderTheCallersSpan() throws Exception {
    first.enqueue(status(503));
    second.enqueue(ok(CHAT_JSON));
    InMemorySpanExporter spans = InMemorySpanExporter.create();
    try (SdkTracerProvider provider = SdkTracerProvider.builder()
        .addSpanProcessor(SimpleSpanProcessor.create(spans)).build()) {
      io.opentelemetry.api.trace.Tracer otel = provider.get("test");
      OtelCurrentTraceContext current = new OtelCurrentTraceContext();
      OtelTracer tracer = new OtelTracer(otel, current, event -> { });
      OtelPropagator propagator = new OtelPropagator(
          ContextPropagators.create(W3CTraceContextPropagator.getInstance()), otel);
      ObservationRegistry observations = ObservationRegistry.create();
      observations.observationConfig().observationHandler(
          new io.micrometer.observation.ObservationHandler.FirstMatchingCompositeObservationHandler(
              new PropagatingSenderTracingObservationHandler<>(tracer, propagator),
              new DefaultTracingObservationHandler(tracer)));

      try (LlmClient client = Fixtures.scripted(first, second)
          .listener(LlmRouterObservations.of(observations)).build()) {
        Observation request = Observation.start("http.server.request", observations);
        try (Observation.Scope scope = request.openScope()) {
          client.chat(chat("hi"));
        } finally {
          request.stop();
        }
      }
      RecordedRequest toFirst = first.takeRequest(5, TimeUnit.SECONDS);
      RecordedRequest toSecond = second.takeRequest(5, TimeUnit.SECONDS);

      List<SpanData> finished = spans.getFinishedSpanItems();
      SpanData server = finished.stream().filter(s -> s.getName().equals("http.server.request"))
          .findFirst().orElseThrow();
      SpanData call = finished.stream().filter(s -> s.getName().equals("chat m")
          && s.getParentSpanId().equals(server.getSpanId())).findFirst().orElseThrow();
      List<SpanData> attempts = finished.stream()
          .filter(s -> s.getParentSpanId().equals(call.getSpanId())).toList();
      assertThat(attempts).hasSize(2);
      assertThat(call.getTraceId()).isEqualTo(server.getTraceId());
      RecordedRequest[] received = {toFirst, toSecond};
      for (int i = 0; i < 2; i++) {
        SpanData attempt = attempts.stream().filter(s -> s.getAttributes().asMap().entrySet()
            .stream().anyMatch(en -> en.getKey().getKey().equals("llm.router.attempt")))
            .sorted((x, y) -> Long.compare(x.getStartEpochNanos(), y.getStartEpochNanos()))
            .toList().get(i);
        assertThat(received[i].getHeaders().get("traceparent")).as("attempt %d", i + 1)
            .startsWith("00-" + attempt.getTraceId() + "-" + attempt.getSpanId() + "-");
      }
    }
  }
}
