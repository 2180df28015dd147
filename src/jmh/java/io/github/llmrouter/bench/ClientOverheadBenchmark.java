package io.github.llmrouter.bench;

import io.github.llmrouter.LlmClient;
import io.github.llmrouter.api.ChatMessage;
import io.github.llmrouter.api.ChatRequest;
import io.github.llmrouter.api.ChatResponse;
import io.github.llmrouter.emulator.EmulatedReplica;
import io.github.llmrouter.internal.transport.Json;
import java.io.IOException;
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
 * loopback replica and reading the body. Run the latency view single-threaded in sample mode and
 * the throughput view with {@code -t 16}:
 *
 * <pre>
 * mvn -B -q test-compile exec:exec@jmh -Djmh.args="ClientOverheadBenchmark -bm sample -tu us -t 1"
 * mvn -B -q test-compile exec:exec@jmh -Djmh.args="ClientOverheadBenchmark -bm thrpt -tu s -t 16"
 * </pre>
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
    raw.dispatcher().executorService().shutdown();
    raw.connectionPool().evictAll();
    replica.close();
  }

  @Benchmark
  public ChatResponse llmClient() {
    return client.chat(request);
  }

  /** The same call without a whole-call deadline: what OkHttp's call timeout costs. */
  @Benchmark
  public ChatResponse llmClientWithoutDeadline() {
    return clientWithoutDeadline.chat(request);
  }

  @Benchmark
  public byte[] rawOkHttp() throws IOException {
    Request r = new Request.Builder().url(url).post(RequestBody.create(body, JSON)).build();
    try (Response response = raw.newCall(r).execute()) {
      return response.body().bytes();
    }
  }
}
