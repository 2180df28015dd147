package io.github.llmrouter;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.llmrouter.observe.StreamResumptionEvent;
import io.github.llmrouter.api.LlmException;
import io.github.llmrouter.api.Usage;
import io.github.llmrouter.internal.transport.Json;
import io.github.llmrouter.load.LoadMonitoring;
import io.github.llmrouter.micrometer.LlmRouterMetrics;
import io.github.llmrouter.micrometer.LlmRouterObservations;
import io.github.llmrouter.observe.AttemptEndedEvent;
import io.github.llmrouter.observe.AttemptEndedEvent.Outcome;
import io.github.llmrouter.observe.CallFinishedEvent;
import io.github.llmrouter.observe.CallStartedEvent;
import io.github.llmrouter.observe.RoutedEvent;
import io.github.llmrouter.replica.Replica;
import io.github.llmrouter.testing.HandResolver;
import io.github.llmrouter.testing.ObservedContexts;
import io.micrometer.common.KeyValue;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;
import io.micrometer.observation.transport.SenderContext;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

/**
 * The Micrometer listeners driven by events alone (no exchange): edge values, replicas that leave
 * while their attempts end, models past the bound, the operations' GenAI names.
 */
class MicrometerEventsTest {
  private static final Usage USAGE = Json.MAPPER.readValue("{\"prompt_tokens\":100,"
      + "\"completion_tokens\":7,\"total_tokens\":107,\"prompt_tokens_details\":"
      + "{\"cached_tokens\":0}}", Usage.class);

  private final MeterRegistry meters = new SimpleMeterRegistry();
  /** The observations' contexts, as an observation registry handles them. */
  private final ObservedContexts contexts = new ObservedContexts();
  private final LlmRouterObservations observations = LlmRouterObservations.of(observed(contexts));

  private static ObservationRegistry observed(ObservedContexts contexts) {
    ObservationRegistry registry = ObservationRegistry.create();
    registry.observationConfig().observationHandler(contexts);
    return registry;
  }

  /** Publishes replicas with these ids (their address never called). */
  private static void publish(HandResolver resolver, String... ids) {
    List<Replica> replicas = new ArrayList<>();
    for (String id : ids) replicas.add(Replica.builder("http://127.0.0.1:9").id(id).build());
    resolver.publish(replicas);
  }

  private static AttemptEndedEvent answered(String replica, String model, long firstChunk,
      long predicted) {
    return new AttemptEndedEvent(1, firstChunk >= 0 ? "chat.stream" : "chat", model, 1, replica,
        Outcome.ANSWERED, 5, firstChunk, 9, USAGE, model, predicted, null);
  }

  private Set<String> replicasTagged() {
    Set<String> tagged = new TreeSet<>();
    for (Meter m : meters.getMeters()) {
      String r = m.getId().getTag("replica");
      if (r != null) tagged.add(r);
    }
    return tagged;
  }

  @Test
  void aReplicasMetersLeaveWithItEvenThoseMadeAgainByALateAttempt() {
    HandResolver resolver = new HandResolver();
    LlmRouterMetrics metrics = LlmRouterMetrics.of(meters);
    try (LlmClient client = LlmClient.builder().resolver(resolver)
        .loadMonitoring(LoadMonitoring.disabled()).listener(metrics).build()) {
      publish(resolver, "r1", "r2");
      metrics.onAttemptEnded(answered("r1", "m", -1, 3));
      metrics.onAttemptEnded(answered("r2", "m", -1, 3));
      metrics.onRouted(new RoutedEvent(1, "chat", "m", 2, "r1", "h", 1, true, "next", 0, 0));
      metrics.onCallFinished(new CallFinishedEvent(2, "chat.stream", "m", 1, "r1", 4, null));
      metrics.onRouted(new RoutedEvent(3, "chat", "m", 2, "r2", "h", 1, true, "next", 0, 0));
      metrics.onCallFinished(new CallFinishedEvent(4, "chat.stream", "m", 1, "r2", 4, null));
      assertThat(replicasTagged()).containsExactly("r1", "r2");
      assertThat(meters.find("llm.router.in_flight").tag("replica", "r1").gauge()).isNotNull();

      publish(resolver, "r2");
      assertThat(replicasTagged()).containsExactly("r2");
      assertThat(meters.get("llm.router.attempts").tag("replica", "r2").timer().count())
          .as("the replicas that stay keep their meters").isEqualTo(1);
      assertThat(meters.get("llm.router.failovers").tag("replica", "r2").counter().count())
          .isEqualTo(1);
      assertThat(meters.get("llm.router.time_to_first_token").tag("replica", "r2").timer()
          .count()).isEqualTo(1);

      metrics.onAttemptEnded(answered("r1", "m", -1, 3)); // an attempt that outlived its replica
      assertThat(replicasTagged()).containsExactly("r1", "r2");
      assertThat(meters.get("llm.router.attempts").tag("replica", "r1").timer().count())
          .as("registered again, from zero").isEqualTo(1);
      assertThat(meters.get("llm.router.tokens").tag("replica", "r1").tag("type", "input")
          .counter().count()).isEqualTo(100);
      publish(resolver, "r2", "r3");
      assertThat(replicasTagged()).containsExactly("r2", "r3");
    }
  }

  @Test
  void everyBrokenStreamIsCountedByWhetherItWasResumed() {
    LlmRouterMetrics metrics = LlmRouterMetrics.of(meters);
    for (StreamResumptionEvent.Outcome o : StreamResumptionEvent.Outcome.values()) {
      metrics.onStreamResumption(new StreamResumptionEvent("chat.stream", "m", "r0",
          o == StreamResumptionEvent.Outcome.RESUMED ? "r1" : null, 1, 42, o,
          o == StreamResumptionEvent.Outcome.RESUMED ? null : "why"));
    }
    metrics.onStreamResumption(new StreamResumptionEvent("chat.stream", "m", "r1", "r2", 2, 80,
        StreamResumptionEvent.Outcome.RESUMED, null));
    assertThat(meters.get("llm.router.stream.resumptions").tags("operation", "chat.stream",
        "model", "m", "outcome", "resumed").counter().count()).isEqualTo(2);
    assertThat(meters.get("llm.router.stream.resumptions").tag("outcome", "failed").counter()
        .count()).isEqualTo(1);
    assertThat(meters.get("llm.router.stream.resumptions").tag("outcome", "skipped").counter()
        .count()).isEqualTo(1);
  }

  @Test
  void everyHedgeIsCountedByWhichAttemptDeliveredFirst() {
    LlmRouterMetrics metrics = LlmRouterMetrics.of(meters);
    for (io.github.llmrouter.observe.HedgeEvent.Winner w
        : io.github.llmrouter.observe.HedgeEvent.Winner.values()) {
      metrics.onHedge(new io.github.llmrouter.observe.HedgeEvent(1, "chat.stream", "m", "r0",
          "r1", java.time.Duration.ofMillis(80), w));
    }
    metrics.onHedge(new io.github.llmrouter.observe.HedgeEvent(2, "chat.stream", "m", "r2", "r0",
        java.time.Duration.ofMillis(90), io.github.llmrouter.observe.HedgeEvent.Winner.HEDGE));
    assertThat(meters.get("llm.router.hedges").tags("operation", "chat.stream", "model", "m",
        "winner", "hedge").counter().count()).isEqualTo(2);
    assertThat(meters.get("llm.router.hedges").tag("winner", "first").counter().count())
        .isEqualTo(1);
    assertThat(meters.get("llm.router.hedges").tag("winner", "neither").counter().count())
        .isEqualTo(1);
  }

  @Test
  void aHundredModelsAreTaggedByNameAndTheRestAsOther() {
    LlmRouterMetrics metrics = LlmRouterMetrics.of(meters);
    for (int i = 0; i < LlmRouterMetrics.MAX_MODELS + 5; i++) {
      metrics.onCallFinished(new CallFinishedEvent(i, "chat", "model-" + i, 1, "r", 1, null));
    }
    Set<String> models = new HashSet<>();
    meters.find("llm.router.calls").timers().forEach(t -> models.add(t.getId().getTag("model")));
    assertThat(models).hasSize(LlmRouterMetrics.MAX_MODELS + 1)
        .contains("model-0", "model-99", LlmRouterMetrics.OTHER_MODEL).doesNotContain("model-100");
    assertThat(meters.get("llm.router.calls").tag("model", LlmRouterMetrics.OTHER_MODEL).timer()
        .count()).isEqualTo(5);
  }

  @Test
  void zeroCachedTokensCountAsReportedAndAFirstChunkAtZeroIsAStream() {
    LlmRouterMetrics metrics = LlmRouterMetrics.of(meters);
    assertThat(metrics.needsRoutingExplanation()).isFalse();
    metrics.onAttemptEnded(answered("r", "m", 0, 40));
    assertThat(meters.get("llm.router.tokens").tag("type", "cached_input").counter().count())
        .isZero();
    assertThat(meters.get("llm.router.tokens").tag("type", "predicted_cached_input").counter()
        .count()).as("a hit report of 0 is a report").isEqualTo(40);
    assertThat(meters.get("llm.router.tokens").tag("type", "input").counter().count())
        .isEqualTo(100);
    assertThat(meters.get("llm.router.calls").tag("operation", "chat.stream").timer().count())
        .as("the stream's end is its call's").isEqualTo(1);
    metrics.onAttemptEnded(new AttemptEndedEvent(2, "chat", "m", 1, "r", Outcome.FAILED, 5, -1,
        9, null, null, 0, new LlmException("timeout")));
    assertThat(meters.get("llm.router.attempts").tag("outcome", "failed")
        .tag("error.type", "LlmException").timer().count()).isEqualTo(1);
    assertThat(meters.get("llm.router.calls").timer().count()).as("not a stream's end")
        .isEqualTo(1);
  }

  private static @Nullable String value(@Nullable KeyValue kv) {
    return kv == null ? null : kv.getValue();
  }

  @Test
  void observationsNameTheOperationsAsGenAiDoesAndKeepZeroes() {
    assertThat(observations.needsRoutingExplanation()).isFalse();
    String[][] operations = {{"completion", "text_completion"},
        {"completion.stream", "text_completion"}, {"embeddings", "embeddings"},
        {"chat.stream", "chat"}};
    long id = 100;
    for (String[] op : operations) {
      observations.onCallStarted(new CallStartedEvent(++id, op[0], "m"));
      observations.onCallFinished(new CallFinishedEvent(id, op[0], "m", 0, null, 1,
          new LlmException("no replica")));
    }
    assertThat(contexts.started).extracting(Observation.Context::getContextualName)
        .containsExactly("text_completion m", "text_completion m", "embeddings m", "chat m");
    assertThat(contexts.stopped).hasSize(4);

    assertThat(contexts.started).allSatisfy(c -> assertThat(c.getError())
        .isInstanceOf(LlmException.class).hasMessage("no replica"));

    observations.onCallStarted(new CallStartedEvent(++id, "chat.stream", "m"));
    observations.onRouted(new RoutedEvent(id, "chat.stream", "m", 1, "r7", "10.0.0.7", 8000,
        false, "home", 0, 0, 0, null, ""), (name, value) -> { });
    observations.onCallFinished(new CallFinishedEvent(id, "chat.stream", "m", 1, "r7",
        250_000_000, null));
    Observation.Context call = contexts.started.get(4);
    Observation.Context attempt = contexts.started.get(5);
    assertThat(contexts.stopped).doesNotContain(call, attempt);
    observations.onAttemptEnded(new AttemptEndedEvent(id, "chat.stream", "m", 1, "r7",
        Outcome.ANSWERED, 5, 250_000_000, 400_000_000, USAGE, "m", 0, null));
    assertThat(contexts.stopped).contains(call, attempt);
    assertThat(value(attempt.getHighCardinalityKeyValue("llm.router.predicted_cached_tokens")))
        .isEqualTo("0");
    assertThat(((SenderContext<?>) attempt).getRemoteServiceName()).isEqualTo("r7");
    assertThat(value(call.getHighCardinalityKeyValue("llm.router.time_to_first_chunk")))
        .isEqualTo("0.25");
    assertThat(value(call.getHighCardinalityKeyValue("gen_ai.usage.cache_read.input_tokens")))
        .isEqualTo("0");
    assertThat(value(call.getLowCardinalityKeyValue("error.type"))).isEqualTo("none");
  }

  @Test
  void aStreamBrokenAfterItsFirstChunkFailsItsCall() {
    observations.onCallStarted(new CallStartedEvent(1, "chat.stream", "m"));
    observations.onRouted(new RoutedEvent(1, "chat.stream", "m", 1, "r", "h", 1, false, "home",
        0, 0), (name, value) -> { });
    observations.onCallFinished(new CallFinishedEvent(1, "chat.stream", "m", 1, "r", 3, null));
    LlmException cut = new LlmException("stream cut");
    observations.onAttemptEnded(new AttemptEndedEvent(1, "chat.stream", "m", 1, "r",
        Outcome.FAILED, 2, 3, 9, null, null, -1, cut));
    assertThat(contexts.stopped).containsExactlyInAnyOrderElementsOf(contexts.started);
    assertThat(contexts.started).allSatisfy(c -> assertThat(c.getError()).isSameAs(cut));
    assertThat(value(contexts.started.get(0).getLowCardinalityKeyValue("error.type")))
        .isEqualTo("LlmException");
  }

  @Test
  void aCallFinishedBeforeItsAttemptEndsStopsBoth() {
    observations.onCallStarted(new CallStartedEvent(1, "chat", "m"));
    observations.onRouted(new RoutedEvent(1, "chat", "m", 1, "r", "h", 1, false, "home", 0, 0),
        (name, value) -> { });
    observations.onCallFinished(new CallFinishedEvent(1, "chat", "m", 1, null, 3,
        new LlmException("cancelled by the caller")));
    assertThat(contexts.stopped).containsExactly(contexts.started.get(0));
    observations.onAttemptEnded(new AttemptEndedEvent(1, "chat", "m", 1, "r", Outcome.ABANDONED,
        2, -1, 3, null, null, -1, null));
    assertThat(contexts.stopped).containsExactlyInAnyOrderElementsOf(contexts.started);
    assertThat(value(contexts.started.get(1).getLowCardinalityKeyValue("llm.router.outcome")))
        .isEqualTo("abandoned");
    // The call is forgotten: later events of its id change nothing.
    observations.onAttemptEnded(new AttemptEndedEvent(1, "chat", "m", 1, "r", Outcome.ANSWERED,
        2, -1, 3, null, null, -1, null));
    assertThat(contexts.started).hasSize(2);
  }
}
