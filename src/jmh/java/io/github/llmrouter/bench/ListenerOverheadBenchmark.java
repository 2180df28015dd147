package io.github.llmrouter.bench;

import io.github.llmrouter.api.Usage;
import io.github.llmrouter.internal.transport.Json;
import io.github.llmrouter.micrometer.LlmRouterMetrics;
import io.github.llmrouter.micrometer.LlmRouterObservations;
import io.github.llmrouter.observe.AttemptEndedEvent;
import io.github.llmrouter.observe.CallFinishedEvent;
import io.github.llmrouter.observe.CallStartedEvent;
import io.github.llmrouter.observe.RequestHeaders;
import io.github.llmrouter.observe.RoutedEvent;
import io.github.llmrouter.observe.RoutingListener;
import io.micrometer.observation.ObservationRegistry;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * What the Micrometer listeners add to one call, without the call: the events of a one-attempt
 * chat call (started, routed, attempt answered with its usage, finished) delivered to nothing, to
 * {@code LlmRouterMetrics} (a Prometheus registry), to {@code LlmRouterObservations} (Micrometer
 * Tracing's OpenTelemetry bridge, every span sampled, no exporter), or to both. The loopback
 * round trip of {@link ClientOverheadBenchmark} is some 170 µs with tens of microseconds of noise
 * on 2 cores; this isolates the listeners' nanoseconds and bytes. Run with {@code -prof gc}:
 *
 * <pre>
 * mvn -B -q test-compile exec:exec@jmh -Djmh.args="ListenerOverheadBenchmark -prof gc"
 * </pre>
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 5, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(1)
public class ListenerOverheadBenchmark {
  @Param({"none", "metrics", "traces", "metrics+traces"})
  public String listeners;

  private RoutingListener[] heard;
  private SdkTracerProvider tracing;
  private Usage usage;
  private long callId;
  private static final RequestHeaders HEADERS = (name, value) -> { };

  @Setup(Level.Trial)
  public void setUp() {
    usage = Json.MAPPER.readValue("{\"prompt_tokens\":812,\"completion_tokens\":64,"
        + "\"total_tokens\":876,\"prompt_tokens_details\":{\"cached_tokens\":768}}", Usage.class);
    tracing = SdkTracerProvider.builder().build();
    ObservationRegistry observations = TracedObservations.of(tracing);
    RoutingListener metrics =
        LlmRouterMetrics.of(new PrometheusMeterRegistry(PrometheusConfig.DEFAULT));
    RoutingListener traces = LlmRouterObservations.of(observations);
    heard = switch (listeners) {
      case "none" -> new RoutingListener[0];
      case "metrics" -> new RoutingListener[] {metrics};
      case "traces" -> new RoutingListener[] {traces};
      default -> new RoutingListener[] {metrics, traces};
    };
  }

  @TearDown(Level.Trial)
  public void tearDown() {
    tracing.close();
  }

  /** One call's events, as the client delivers them. */
  @Benchmark
  public long oneCall() {
    long id = ++callId;
    CallStartedEvent started = new CallStartedEvent(id, "chat", "llama-3-8b");
    RoutedEvent routed = new RoutedEvent(id, "chat", "llama-3-8b", 1, "10.0.0.7:8000",
        "10.0.0.7", 8000, false, "conversation home", 2, 9, 768, Duration.ofMillis(12), "");
    AttemptEndedEvent ended = new AttemptEndedEvent(id, "chat", "llama-3-8b", 1,
        "10.0.0.7:8000", AttemptEndedEvent.Outcome.ANSWERED, 150_000_000, -1, 152_000_000, usage,
        "llama-3-8b", 768, null);
    CallFinishedEvent finished = new CallFinishedEvent(id, "chat", "llama-3-8b", 1,
        "10.0.0.7:8000", 152_000_000, null);
    for (RoutingListener l : heard) l.onCallStarted(started);
    for (RoutingListener l : heard) l.onRouted(routed, HEADERS);
    for (RoutingListener l : heard) l.onAttemptEnded(ended);
    for (RoutingListener l : heard) l.onCallFinished(finished);
    return id;
  }
}
