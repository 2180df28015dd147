package io.github.llmrouter.micrometer;

import static java.util.Objects.requireNonNull;

import io.github.llmrouter.api.LlmException;
import io.github.llmrouter.api.Usage;
import io.github.llmrouter.observe.AttemptEndedEvent;
import io.github.llmrouter.observe.CallFinishedEvent;
import io.github.llmrouter.observe.CallStartedEvent;
import io.github.llmrouter.observe.RequestHeaders;
import io.github.llmrouter.observe.RoutedEvent;
import io.github.llmrouter.observe.RoutingListener;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;
import io.micrometer.observation.transport.Kind;
import io.micrometer.observation.transport.SenderContext;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.jspecify.annotations.Nullable;

/**
 * A Micrometer {@link Observation} per call and per attempt, so that traces (through Micrometer
 * Tracing, and its OpenTelemetry or Brave bridge) show each call to the fleet with one child span
 * per attempt, and the replica's own traces join them: the attempt's context goes to the replica
 * in its request headers (W3C {@code traceparent}, or whatever the tracer propagates). A {@link
 * RoutingListener}:
 *
 * <pre>{@code
 * LlmClient client = LlmClient.builder()
 *     .replicas("http://10.0.0.7:8000", "http://10.0.0.8:8000")
 *     .listener(LlmRouterObservations.of(observationRegistry))
 *     .build();
 * }</pre>
 *
 * <p>The call's observation, {@value #CALL}, is the GenAI operation: it starts on the caller's
 * thread (a child of the caller's current observation), ends with the answer (for a stream, when
 * the stream ends), is named for its span as OpenTelemetry's GenAI conventions ask ({@code "chat
 * my-model"}) and carries their attributes: {@code gen_ai.operation.name}, {@code
 * gen_ai.request.model}, {@code gen_ai.response.model}, {@code gen_ai.usage.input_tokens}, {@code
 * gen_ai.usage.output_tokens}, {@code gen_ai.usage.cache_read.input_tokens} and {@code
 * error.type}, with the router's {@code llm.router.replica} (the one that answered) and {@code
 * llm.router.time_to_first_chunk} (seconds, streams). Each
 * attempt's, {@value #ATTEMPT} ({@code "chat my-model attempt"}), is its child and a client
 * ({@link Kind#CLIENT}) observation with {@code server.address}, {@code server.port}, {@code
 * error.type}, {@code llm.router.replica}, {@code llm.router.outcome}, {@code
 * llm.router.attempt}, {@code llm.router.routing.reason} and {@code
 * llm.router.predicted_cached_tokens}. Low-cardinality keys (usable as metric tags) are the
 * operation, the requested model, the replica, the server, the outcome and the error type; the
 * rest are high-cardinality. A failure is the observation's
 * error. Nothing carries a prompt, a key or a header value.
 *
 * <p>Thread-safe; one instance may serve several clients. With a no-op registry it does nothing.
 * A call is held (a few hundred bytes) from its start until it and its last attempt have ended: a
 * stream its caller never closes keeps its call, as it keeps its connection.
 *
 * @since 0.3.0
 */
public final class LlmRouterObservations implements RoutingListener {
  /** The name of a call's observation. */
  public static final String CALL = "llm.router.call";

  /** The name of an attempt's observation. */
  public static final String ATTEMPT = "llm.router.attempt";

  private final ObservationRegistry registry;
  /** The calls in progress, by call id; a call leaves when it and its last attempt have ended. */
  private final Map<Long, CallState> calls = new ConcurrentHashMap<>();

  private LlmRouterObservations(ObservationRegistry registry) {
    this.registry = registry;
  }

  /**
   * Observations in {@code registry}.
   *
   * @param registry where the observations go
   * @return a listener to add to a client's builder
   */
  public static LlmRouterObservations of(ObservationRegistry registry) {
    return new LlmRouterObservations(requireNonNull(registry, "registry"));
  }

  /** {@return false: observations do not carry the routing explanation} */
  @Override
  public boolean needsRoutingExplanation() {
    return false;
  }

  @Override
  public void onCallStarted(CallStartedEvent e) {
    if (registry.isNoop()) return;
    String operation = genAiOperation(e.operation());
    Observation call = Observation.createNotStarted(CALL, registry)
        .contextualName(operation + " " + e.model())
        .lowCardinalityKeyValue("gen_ai.operation.name", operation)
        .lowCardinalityKeyValue("gen_ai.request.model", e.model())
        .start();
    calls.put(e.callId(), new CallState(call, operation + " " + e.model() + " attempt"));
  }

  @Override
  public void onRouted(RoutedEvent e, RequestHeaders headers) {
    CallState state = calls.get(e.callId());
    if (state == null) return;
    SenderContext<RequestHeaders> context = new SenderContext<>((carrier, key, value) -> {
      if (carrier != null) carrier.set(key, value);
    }, Kind.CLIENT);
    context.setCarrier(headers);
    context.setRemoteServiceName(e.replicaId());
    Observation attempt = Observation.createNotStarted(ATTEMPT, () -> context, registry)
        .parentObservation(state.call)
        .contextualName(state.attemptName)
        .lowCardinalityKeyValue("server.address", e.serverAddress())
        .lowCardinalityKeyValue("server.port", Integer.toString(e.serverPort()))
        .lowCardinalityKeyValue("llm.router.replica", e.replicaId())
        .highCardinalityKeyValue("llm.router.attempt", Integer.toString(e.attempt()))
        .highCardinalityKeyValue("llm.router.routing.reason", e.reason());
    if (e.predictedCachedTokens() >= 0) {
      attempt.highCardinalityKeyValue("llm.router.predicted_cached_tokens",
          Long.toString(e.predictedCachedTokens()));
    }
    synchronized (state) {
      // In the call's scope: a tracer takes the span in scope for the parent, and the caller's
      // own (or none, on an OkHttp thread) is not the call's. The tracer sets its headers here.
      try (Observation.Scope scope = state.call.openScope()) {
        state.attempt = attempt.start();
      }
    }
  }

  @Override
  public void onAttemptEnded(AttemptEndedEvent e) {
    CallState state = calls.get(e.callId());
    if (state == null) return;
    synchronized (state) {
      Observation attempt = state.attempt;
      if (attempt == null) return;
      state.attempt = null;
      String error = TagValues.of(e.failure());
      attempt.lowCardinalityKeyValue("llm.router.outcome", TagValues.outcome(e.outcome()));
      attempt.lowCardinalityKeyValue("error.type", error);
      LlmException failure = e.failure();
      if (failure != null) attempt.error(failure);
      attempt.stop();
      if (e.answered()) {
        state.usage = e.usage();
        state.responseModel = e.responseModel();
      }
      if (e.firstChunkNanos() >= 0) {
        // A stream's answering attempt: the stream's end is the call's.
        Observation call = state.call;
        call.lowCardinalityKeyValue("error.type", error);
        usage(call, e.usage(), e.responseModel());
        if (failure != null) call.error(failure);
        stop(e.callId(), state);
      } else if (state.callEnded) {
        calls.remove(e.callId());
      }
    }
  }

  @Override
  public void onCallFinished(CallFinishedEvent e) {
    CallState state = calls.get(e.callId());
    if (state == null) return;
    synchronized (state) {
      Observation call = state.call;
      String replica = e.replicaId();
      if (replica != null) call.lowCardinalityKeyValue("llm.router.replica", replica);
      if (e.succeeded() && TagValues.streamed(e.operation())) {
        // The first chunk: the stream goes on, and so does the call.
        call.highCardinalityKeyValue("llm.router.time_to_first_chunk",
            seconds(e.durationNanos()));
        return;
      }
      call.lowCardinalityKeyValue("error.type", TagValues.of(e.failure()));
      usage(call, state.usage, state.responseModel);
      LlmException failure = e.failure();
      if (failure != null) call.error(failure);
      stop(e.callId(), state);
    }
  }

  /** Ends the call's observation; the call is forgotten once its last attempt has ended too. */
  private void stop(long callId, CallState state) {
    if (state.callEnded) return;
    state.callEnded = true;
    state.call.stop();
    if (state.attempt == null) calls.remove(callId);
  }

  private static void usage(Observation o, @Nullable Usage usage, @Nullable String model) {
    if (model != null) o.highCardinalityKeyValue("gen_ai.response.model", model);
    if (usage == null) return;
    o.highCardinalityKeyValue("gen_ai.usage.input_tokens", Long.toString(usage.promptTokens()));
    o.highCardinalityKeyValue("gen_ai.usage.output_tokens",
        Long.toString(usage.completionTokens()));
    if (usage.cachedTokens() >= 0) {
      o.highCardinalityKeyValue("gen_ai.usage.cache_read.input_tokens",
          Long.toString(usage.cachedTokens()));
    }
  }

  private static String seconds(long nanos) {
    return Double.toString(nanos / 1e9);
  }

  /**
   * The GenAI {@code gen_ai.operation.name} of one of the client's operations: {@code chat},
   * {@code text_completion} or {@code embeddings} (a stream is its operation's).
   */
  static String genAiOperation(String operation) {
    if (operation.startsWith("chat")) return "chat";
    if (operation.startsWith("completion")) return "text_completion";
    return operation;
  }

  /** One call's observations; guarded by itself. */
  private static final class CallState {
    final Observation call;
    /** Every attempt's contextual name. */
    final String attemptName;
    @Nullable Observation attempt;
    @Nullable Usage usage;
    @Nullable String responseModel;
    boolean callEnded;

    CallState(Observation call, String attemptName) {
      this.call = call;
      this.attemptName = attemptName;
    }
  }
}
