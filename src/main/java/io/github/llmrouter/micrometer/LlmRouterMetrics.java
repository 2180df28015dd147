package io.github.llmrouter.micrometer;

import static java.util.Objects.requireNonNull;

import io.github.llmrouter.LlmClient;
import io.github.llmrouter.api.Usage;
import io.github.llmrouter.observe.AttemptEndedEvent;
import io.github.llmrouter.observe.AttemptFailedEvent;
import io.github.llmrouter.observe.CallFinishedEvent;
import io.github.llmrouter.observe.CircuitBreakerEvent;
import io.github.llmrouter.observe.EjectionEvent;
import io.github.llmrouter.observe.FleetSnapshot;
import io.github.llmrouter.observe.FleetView;
import io.github.llmrouter.observe.HedgeEvent;
import io.github.llmrouter.observe.StreamResumptionEvent;
import io.github.llmrouter.observe.MembershipEvent;
import io.github.llmrouter.observe.RoutedEvent;
import io.github.llmrouter.observe.RoutingListener;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.Function;

/**
 * The router's meters in a Micrometer {@link MeterRegistry}: calls, attempts, retries, failovers,
 * hedges and stream resumptions by outcome and error type, latency and time to first token as timers with percentile
 * histograms, the prompt tokens the replicas served from their prefix caches beside those the
 * routing policy predicted, and the fleet's state as gauges (in-flight requests, circuit
 * breakers, load-report age, the replica count a queue-based autoscaler needs). A {@link
 * RoutingListener}:
 *
 * <pre>{@code
 * LlmClient client = LlmClient.builder()
 *     .replicas("http://10.0.0.7:8000", "http://10.0.0.8:8000")
 *     .listener(LlmRouterMetrics.of(meterRegistry))
 *     .build();
 * }</pre>
 *
 * <p>Names start with {@code llm.router.}, in base units (seconds, tokens); the README's
 * "Observability" section lists every meter with its tags. Tags are bounded: an operation, a model
 * (the first {@value #MAX_MODELS} distinct models a client asks for; later ones are tagged {@code
 * other}), a replica id (a replica's meters are removed when it leaves the fleet), an outcome and
 * an error type (an HTTP status or an exception's class name). No tag carries a prompt, a key or a
 * header value.
 *
 * <p>Use one instance per client (its gauges read that client); to tell several clients apart,
 * give each its own with a common tag ({@link Builder#tags}). Thread-safe. Recording an event costs
 * a map lookup and a meter update, with no lock.
 *
 * @since 0.3.0
 */
public final class LlmRouterMetrics implements RoutingListener {
  /** Distinct models tagged by name; later ones are tagged {@value #OTHER_MODEL}. */
  public static final int MAX_MODELS = 100;

  /** The model tag of models past the first {@value #MAX_MODELS}. */
  public static final String OTHER_MODEL = "other";

  /** The default of {@link Builder#targetMeanWaiting}: two waiting requests per replica. */
  public static final double DEFAULT_TARGET_MEAN_WAITING = 2.0;

  private final MeterRegistry registry;
  private final Tags common;

  private final Set<String> models = ConcurrentHashMap.newKeySet();
  private final Map<CallKey, Timer> calls = new ConcurrentHashMap<>();
  private final Map<AttemptKey, Timer> attempts = new ConcurrentHashMap<>();
  private final Map<ReplicaKey, Timer> firstTokens = new ConcurrentHashMap<>();
  private final Map<ReasonKey, Counter> retries = new ConcurrentHashMap<>();
  private final Map<FailoverKey, Counter> failovers = new ConcurrentHashMap<>();
  private final Map<ReasonKey, Counter> hedges = new ConcurrentHashMap<>();
  private final Map<ReasonKey, Counter> resumptions = new ConcurrentHashMap<>();
  /** Calls whose last attempt failed and will be retried: the failure's type, by call id. */
  private final Map<Long, String> retrying = new ConcurrentHashMap<>();
  private final Map<ModelKey, Tokens> tokens = new ConcurrentHashMap<>();
  private final FleetGauges fleet;

  private LlmRouterMetrics(Builder b) {
    this.registry = b.registry;
    this.common = b.tags;
    this.fleet = new FleetGauges(b.registry, b.tags, b.targetMeanWaiting);
  }

  /**
   * Meters in {@code registry}, with the defaults.
   *
   * @param registry where the meters go
   * @return a listener to add to one client's builder
   */
  public static LlmRouterMetrics of(MeterRegistry registry) {
    return builder(registry).build();
  }

  /**
   * Starts a configuration.
   *
   * @param registry where the meters go
   * @return a new builder (not thread-safe)
   */
  public static Builder builder(MeterRegistry registry) {
    return new Builder(requireNonNull(registry, "registry"));
  }

  // Calls and attempts.

  /** {@return false: meters do not read the routing explanation} */
  @Override
  public boolean needsRoutingExplanation() {
    return false;
  }

  @Override
  public void onRouted(RoutedEvent e) {
    if (!e.failover()) return;
    String reason = retrying.remove(e.callId());
    meter(failovers, new FailoverKey(e.replicaId(), e.operation(), model(e.model()),
        reason == null ? TagValues.NONE : reason),
        k -> Counter.builder("llm.router.failovers")
            .description("Attempts sent to another replica after one failed, by the failure's type")
            .tags(common).tags("operation", k.operation, "model", k.model, "replica", k.replica,
                "reason", k.reason)
            .register(registry)).increment();
  }

  @Override
  public void onAttemptEnded(AttemptEndedEvent e) {
    String model = model(e.model());
    String outcome = TagValues.outcome(e.outcome());
    String error = TagValues.of(e.failure());
    meter(attempts, new AttemptKey(e.replicaId(), e.operation(), model, outcome, error),
        k -> Timer.builder("llm.router.attempts")
            .description("Attempts, from sending to the end of the answer (a stream's included)")
            .tags(common).tags("operation", k.operation, "model", k.model, "replica", k.replica,
                "outcome", k.outcome, "error.type", k.error)
            .publishPercentileHistogram().register(registry))
        .record(e.durationNanos(), TimeUnit.NANOSECONDS);
    if (e.firstChunkNanos() >= 0) {
      // The attempt that answered a stream: the stream's end is the call's.
      boolean broken = e.outcome() == AttemptEndedEvent.Outcome.FAILED;
      recordCall(e.operation(), model, !broken, error, e.callElapsedNanos());
    }
    Usage usage = e.usage();
    if (e.answered() && usage != null) {
      Tokens t = meter(tokens, new ModelKey(e.replicaId(), model), this::tokens);
      t.input.increment(Math.max(0, usage.promptTokens()));
      t.output.increment(Math.max(0, usage.completionTokens()));
      long cached = usage.cachedTokens();
      if (cached >= 0) {
        t.cachedInput.increment(cached);
        // Predictions beside the real hits: counted only where the replica reports its hits.
        if (e.predictedCachedTokens() >= 0) t.predictedInput.increment(e.predictedCachedTokens());
      }
    }
  }

  @Override
  public void onAttemptFailed(AttemptFailedEvent e) {
    if (!e.willRetry()) return;
    String reason = TagValues.of(e.failure());
    retrying.put(e.callId(), reason); // for the failover that may follow
    meter(retries, new ReasonKey(e.operation(), model(e.model()), reason),
        k -> Counter.builder("llm.router.retries")
            .description("Failed attempts that another attempt follows, by the failure's type")
            .tags(common).tags("operation", k.operation, "model", k.model, "reason", k.reason)
            .register(registry)).increment();
  }

  @Override
  public void onHedge(HedgeEvent e) {
    String winner = e.winner().name().toLowerCase(java.util.Locale.ROOT);
    meter(hedges, new ReasonKey(e.operation(), model(e.model()), winner),
        k -> Counter.builder("llm.router.hedges")
            .description("Calls that sent a hedge, by which attempt delivered first")
            .tags(common).tags("operation", k.operation, "model", k.model, "winner", k.reason)
            .register(registry)).increment();
  }

  @Override
  public void onStreamResumption(StreamResumptionEvent e) {
    String outcome = e.outcome().name().toLowerCase(java.util.Locale.ROOT);
    meter(resumptions, new ReasonKey(e.operation(), model(e.model()), outcome),
        k -> Counter.builder("llm.router.stream.resumptions")
            .description("Streams broken after their first chunk, by whether they were continued "
                + "on another replica")
            .tags(common).tags("operation", k.operation, "model", k.model, "outcome", k.reason)
            .register(registry)).increment();
  }

  @Override
  public void onCallFinished(CallFinishedEvent e) {
    if (!retrying.isEmpty()) retrying.remove(e.callId());
    String model = model(e.model());
    String replica = e.replicaId();
    if (TagValues.streamed(e.operation()) && replica != null) {
      // A stream's call finishes at its first chunk; its latency is recorded when it ends.
      meter(firstTokens, new ReplicaKey(replica, e.operation(), model),
          k -> Timer.builder("llm.router.time_to_first_token")
              .description("Streams: from the call's start to its first chunk, retries included")
              .tags(common).tags("operation", k.operation, "model", k.model, "replica", k.replica)
              .publishPercentileHistogram().register(registry))
          .record(e.durationNanos(), TimeUnit.NANOSECONDS);
      return;
    }
    recordCall(e.operation(), model, e.succeeded(), TagValues.of(e.failure()), e.durationNanos());
  }

  private void recordCall(String operation, String model, boolean success, String error,
      long nanos) {
    meter(calls, new CallKey(operation, model, success ? "success" : "failure", error),
        k -> Timer.builder("llm.router.calls")
            .description("Calls, from their start to their answer (a stream's end), retries "
                + "included")
            .tags(common).tags("operation", k.operation, "model", k.model, "outcome", k.outcome,
                "error.type", k.error)
            .publishPercentileHistogram().register(registry))
        .record(nanos, TimeUnit.NANOSECONDS);
  }

  // The fleet.

  @Override
  public void onClientStarted(FleetView started) {
    fleet.started(started);
  }

  @Override
  public void onClientClosed(FleetView closed) {
    fleet.closed(closed);
  }

  @Override
  public void onMembershipChanged(MembershipEvent e) {
    fleet.membershipChanged(e);
    // Every meter tagged with a replica that left goes, also one that an attempt ending after its
    // replica left made again.
    removeUnlessMember(attempts, AttemptKey::replica, registry::remove);
    removeUnlessMember(firstTokens, ReplicaKey::replica, registry::remove);
    removeUnlessMember(failovers, FailoverKey::replica, registry::remove);
    removeUnlessMember(tokens, ModelKey::replica, t -> t.removeFrom(registry));
  }

  @Override
  public void onEjection(EjectionEvent e) {
    fleet.ejection(e);
  }

  @Override
  public void onCircuitBreaker(CircuitBreakerEvent e) {
    fleet.circuitBreaker(e);
  }

  private <K, M> void removeUnlessMember(Map<K, M> meters, Function<K, String> replica,
      Consumer<M> remove) {
    meters.entrySet().removeIf(en -> {
      if (fleet.isMember(replica.apply(en.getKey()))) return false;
      remove.accept(en.getValue());
      return true;
    });
  }

  /** {@code model}, or {@link #OTHER_MODEL} once {@link #MAX_MODELS} others have been seen. */
  private String model(String model) {
    if (models.contains(model)) return model;
    if (models.size() >= MAX_MODELS) return OTHER_MODEL;
    // A race may admit a few more than MAX_MODELS: still bounded.
    if (models.add(model)) fleet.modelSeen(model);
    return model;
  }

  private Tokens tokens(ModelKey k) {
    Tags tags = common.and("model", k.model, "replica", k.replica);
    Function<String, Counter> counter = type -> Counter.builder("llm.router.tokens")
        .description("Tokens of answered attempts, as the replicas reported them; "
            + "predicted_cached_input: what the routing policy expected them to find cached")
        .baseUnit("tokens").tags(tags).tag("type", type).register(registry);
    return new Tokens(counter.apply("input"), counter.apply("cached_input"),
        counter.apply("predicted_cached_input"), counter.apply("output"));
  }

  /** The meter of {@code key}, made by {@code make} the first time. */
  private static <K, M> M meter(Map<K, M> meters, K key, Function<K, M> make) {
    M m = meters.get(key);
    return m != null ? m : meters.computeIfAbsent(key, make);
  }

  private record CallKey(String operation, String model, String outcome, String error) {}

  private record AttemptKey(String replica, String operation, String model, String outcome,
      String error) {}

  private record ReplicaKey(String replica, String operation, String model) {}

  private record ReasonKey(String operation, String model, String reason) {}

  private record FailoverKey(String replica, String operation, String model, String reason) {}

  private record ModelKey(String replica, String model) {}

  private record Tokens(Counter input, Counter cachedInput, Counter predictedInput,
      Counter output) {
    void removeFrom(MeterRegistry registry) {
      registry.remove(input);
      registry.remove(cachedInput);
      registry.remove(predictedInput);
      registry.remove(output);
    }
  }

  /** Configures an {@link LlmRouterMetrics}. */
  public static final class Builder {
    private final MeterRegistry registry;
    private Tags tags = Tags.empty();
    private double targetMeanWaiting = DEFAULT_TARGET_MEAN_WAITING;

    private Builder(MeterRegistry registry) {
      this.registry = registry;
    }

    /**
     * Tags every meter carries besides its own, such as the client's name; default none.
     *
     * @param tags the tags; not null
     * @return this builder
     */
    public Builder tags(Iterable<Tag> tags) {
      this.tags = Tags.of(requireNonNull(tags, "tags"));
      return this;
    }

    /**
     * The mean waiting requests per replica that {@code llm.router.fleet.replicas_needed} aims
     * for (see {@link FleetSnapshot#replicasFor(double)}); default {@value
     * #DEFAULT_TARGET_MEAN_WAITING}.
     *
     * @param targetMeanWaiting waiting requests per replica, finite and &gt; 0
     * @return this builder
     */
    public Builder targetMeanWaiting(double targetMeanWaiting) {
      this.targetMeanWaiting = targetMeanWaiting;
      return this;
    }

    /**
     * {@return the listener}
     *
     * @throws IllegalArgumentException if {@code targetMeanWaiting} is not finite and positive
     */
    public LlmRouterMetrics build() {
      if (!(targetMeanWaiting > 0) || Double.isInfinite(targetMeanWaiting)) {
        throw new IllegalArgumentException("targetMeanWaiting must be finite and > 0, got "
            + targetMeanWaiting);
      }
      return new LlmRouterMetrics(this);
    }
  }
}
