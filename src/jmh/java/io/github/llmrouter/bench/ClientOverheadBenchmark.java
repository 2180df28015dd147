package io.github.llmrouter.bench;

import io.github.llmrouter.LlmClient;
import io.github.llmrouter.api.ChatMessage;
import io.github.llmrouter.api.ChatRequest;
import io.github.llmrouter.api.ChatResponse;
import io.github.llmrouter.emulator.EmulatedReplica;
import io.github.llmrouter.internal.load.LoadHeaders;
import io.github.llmrouter.internal.transport.Json;
import io.github.llmrouter.load.LoadMonitoring;
import io.github.llmrouter.micrometer.LlmRouterMetrics;
import io.github.llmrouter.micrometer.LlmRouterObservations;
import io.micrometer.observation.ObservationRegistry;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.opentelemetry.sdk.common.CompletableResultCode;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.opentelemetry.sdk.trace.export.SimpleSpanProcessor;
import io.opentelemetry.sdk.trace.export.SpanExporter;
import java.io.IOException;
import java.util.Collection;
import java.util.concurrent.TimeUnit;
import okhttp3.ConnectionPool;
import okhttp3.Dispatcher;
import okhttp3.MediaType;
import okhttp3.OkHttpClient;
import okhttp3.Request;
import okhttp3.RequestBody;
import okhttp3.Response;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * What the client adds to a call: {@link LlmClient#chat} (routing, JSON writing and parsing,
 * attempt bookkeeping) against raw OkHttp posting the same bytes to the same instant-answer
 * loopback replica and reading the body ({@link #rawOkHttp}), and against raw OkHttp that writes
 * the request and binds the answer with Jackson, as the client must ({@link #rawOkHttpWithJson},
 * the fair baseline). Run the latency view single-threaded in sample mode and
 * the throughput view with {@code -t 16}:
 *
 * <pre>
 * mvn -B -q test-compile exec:exec@jmh -Djmh.args="ClientOverheadBenchmark -bm sample -tu us -t 1"
 * mvn -B -q test-compile exec:exec@jmh -Djmh.args="ClientOverheadBenchmark -bm thrpt -tu s -t 16"
 * </pre>
 *
 * <p>{@link #llmClientMetered} is the same call with meters ({@code LlmRouterMetrics} into a
 * Prometheus registry), {@link #llmClientObserved} with meters and traces ({@code
 * LlmRouterObservations} through Micrometer Tracing's OpenTelemetry bridge, every span sampled and
 * exported to nowhere): run them back to back with {@link #llmClient}, with {@code -prof gc} for
 * the bytes each call allocates.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.SampleTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(1)
public class ClientOverheadBenchmark {
  private static final MediaType JSON = MediaType.get("application/json");

  private EmulatedReplica replica;
  private LlmClient client;
  private LlmClient clientWithoutDeadline;
  private LlmClient clientWithoutLoadReports;
  private LlmClient metered;
  private LlmClient observed;
  private SdkTracerProvider tracing;
  private OkHttpClient raw;
  private ChatRequest request;
  private byte[] body;
  private String url;

  @Setup(Level.Trial)
  public void setUp() {
    replica = EmulatedReplica.instant().start();
    client = LlmClient.builder().replicas(replica.baseUrl()).build();
    clientWithoutDeadline = LlmClient.builder().replicas(replica.baseUrl())
        .callTimeout(java.time.Duration.ZERO).build();
    clientWithoutLoadReports = LlmClient.builder().replicas(replica.baseUrl())
        .loadMonitoring(LoadMonitoring.disabled()).build();
    tracing = SdkTracerProvider.builder()
        .addSpanProcessor(SimpleSpanProcessor.create(new DroppingExporter())).build();
    ObservationRegistry observations = TracedObservations.of(tracing);
    metered = LlmClient.builder().replicas(replica.baseUrl())
        .listener(LlmRouterMetrics.of(new PrometheusMeterRegistry(PrometheusConfig.DEFAULT)))
        .build();
    observed = LlmClient.builder().replicas(replica.baseUrl())
        .listener(LlmRouterMetrics.of(new PrometheusMeterRegistry(PrometheusConfig.DEFAULT)))
        .listener(LlmRouterObservations.of(observations))
        .build();
    Dispatcher dispatcher = new Dispatcher();
    dispatcher.setMaxRequestsPerHost(1024);
    raw = new OkHttpClient.Builder().dispatcher(dispatcher)
        .connectionPool(new ConnectionPool(256, 5, TimeUnit.MINUTES)).build();
    request = ChatRequest.builder("emulated-model")
        .message(ChatMessage.system("You are a helpful assistant. ".repeat(20)))
        .message(ChatMessage.user("Summarise the benefits of prefix caching in one line."))
        .maxTokens(1)
        .build();
    body = Json.MAPPER.writeValueAsBytes(request);
    url = replica.baseUrl() + "/v1/chat/completions";
  }

  @TearDown(Level.Trial)
  public void tearDown() {
    client.close();
    clientWithoutDeadline.close();
    clientWithoutLoadReports.close();
    metered.close();
    observed.close();
    tracing.close();
    raw.dispatcher().executorService().shutdown();
    raw.connectionPool().evictAll();
    replica.close();
  }

  @Benchmark
  public ChatResponse llmClient() {
    return client.chat(request);
  }

  /** The same call, with meters. */
  @Benchmark
  public ChatResponse llmClientMetered() {
    return metered.chat(request);
  }

  /** The same call, with meters and traces. */
  @Benchmark
  public ChatResponse llmClientObserved() {
    return observed.chat(request);
  }

  /** The same call without a whole-call deadline: what OkHttp's call timeout costs. */
  @Benchmark
  public ChatResponse llmClientWithoutDeadline() {
    return clientWithoutDeadline.chat(request);
  }

  /**
   * The same call without load reports: no {@code /metrics} scrapes, and no ORCA load header asked
   * of the replica (which makes the emulated replica build one, and the client read it).
   */
  @Benchmark
  public ChatResponse llmClientWithoutLoadReports() {
    return clientWithoutLoadReports.chat(request);
  }

  @Benchmark
  public byte[] rawOkHttp() throws IOException {
    Request r = new Request.Builder().url(url).post(RequestBody.create(body, JSON)).build();
    try (Response response = raw.newCall(r).execute()) {
      return response.body().bytes();
    }
  }

  /**
   * The fair baseline: raw OkHttp doing what the client must, writing the request with Jackson
   * and binding the answer with Jackson, with nothing of routing, retries or bookkeeping.
   */
  @Benchmark
  public ChatResponse rawOkHttpWithJson() throws IOException {
    Request r = new Request.Builder().url(url)
        .post(RequestBody.create(Json.MAPPER.writeValueAsBytes(request), JSON)).build();
    try (Response response = raw.newCall(r).execute()) {
      return Json.MAPPER.readValue(response.body().byteStream(), ChatResponse.class);
    }
  }

  /**
   * {@link #rawOkHttpWithJson} asking for the replica's load header as the client does by default
   * and reading it as the client does: the baseline for {@link #llmClient} with load reports, so
   * that the replica's own work to build the header is in both.
   */
  @Benchmark
  public ChatResponse rawOkHttpWithJsonAndLoadHeader() throws IOException {
    Request r = new Request.Builder().url(url)
        .header(LoadHeaders.ENDPOINT_LOAD_METRICS_FORMAT, "TEXT")
        .post(RequestBody.create(Json.MAPPER.writeValueAsBytes(request), JSON)).build();
    try (Response response = raw.newCall(r).execute()) {
      LoadHeaders.parseEndpointLoadMetrics(response.header(LoadHeaders.ENDPOINT_LOAD_METRICS), 0);
      return Json.MAPPER.readValue(response.body().byteStream(), ChatResponse.class);
    }
  }

  /** Takes the finished spans and keeps none: the cost of tracing without an exporter's. */
  private static final class DroppingExporter implements SpanExporter {
    @Override
    public CompletableResultCode export(Collection<SpanData> spans) {
      return CompletableResultCode.ofSuccess();
    }

    @Override
    public CompletableResultCode flush() {
      return CompletableResultCode.ofSuccess();
    }

    @Override
    public CompletableResultCode shutdown() {
      return CompletableResultCode.ofSuccess();
    }
  }
}
