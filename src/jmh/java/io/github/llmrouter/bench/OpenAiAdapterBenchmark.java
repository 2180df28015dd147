package io.github.llmrouter.bench;

import com.openai.client.OpenAIClient;
import com.openai.client.okhttp.OpenAIOkHttpClient;
import com.openai.models.chat.completions.ChatCompletion;
import com.openai.models.chat.completions.ChatCompletionCreateParams;
import io.github.llmrouter.LlmClient;
import io.github.llmrouter.api.RawRequest;
import io.github.llmrouter.api.RawResponse;
import io.github.llmrouter.emulator.EmulatedReplica;
import io.github.llmrouter.openai.LlmRouterOpenAI;
import java.util.concurrent.TimeUnit;
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
 * What routing openai-java through llm-router adds to a call: the same chat completion made by
 * openai-java on its own OkHttp client ({@link #openAiOwnClient}) and through {@link
 * LlmRouterOpenAI} ({@link #openAiThroughRouter}), to one instant-answer loopback replica, back
 * to back in one run. Both clients leave the SDK's retries off and its response validation at its
 * default.
 *
 * <pre>
 * mvn -B -q test-compile exec:exec@jmh -Djmh.args="OpenAiAdapterBenchmark -bm sample -tu us -t 1"
 * </pre>
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.SampleTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(1)
public class OpenAiAdapterBenchmark {
  private EmulatedReplica replica;
  private LlmClient router;
  private OpenAIClient routed;
  private OpenAIClient direct;
  private ChatCompletionCreateParams params;
  private RawRequest raw;

  @Setup(Level.Trial)
  public void setUp() {
    replica = EmulatedReplica.instant().start();
    router = LlmClient.builder().replicas(replica.baseUrl()).build();
    routed = LlmRouterOpenAI.client(router);
    direct = OpenAIOkHttpClient.builder().baseUrl(replica.baseUrl() + "/v1").apiKey("unused")
        .maxRetries(0).build();
    params = ChatCompletionCreateParams.builder()
        .model("emulated-model")
        .addSystemMessage("You are a helpful assistant. ".repeat(20))
        .addUserMessage("Summarise the benefits of prefix caching in one line.")
        .maxCompletionTokens(1)
        .build();
    raw = RawRequest.post("/v1/chat/completions", ("{\"messages\":[{\"content\":\""
        + "You are a helpful assistant. ".repeat(20) + "\",\"role\":\"system\"},{\"content\":"
        + "\"Summarise the benefits of prefix caching in one line.\",\"role\":\"user\"}],"
        + "\"model\":\"emulated-model\",\"max_completion_tokens\":1}")
        .getBytes(java.nio.charset.StandardCharsets.UTF_8)).build();
  }

  @TearDown(Level.Trial)
  public void tearDown() {
    routed.close();
    direct.close();
    router.close();
    replica.close();
  }

  /** openai-java on its own OkHttp client, straight to the replica. */
  @Benchmark
  public ChatCompletion openAiOwnClient() {
    ChatCompletion c = direct.chat().completions().create(params);
    c.choices(); // as a caller would read it
    return c;
  }

  /**
   * The router alone: the body openai-java sends for the same request, through {@link
   * LlmClient#send}, the answer's bytes read; what the adapter and the SDK add is the difference.
   */
  @Benchmark
  public byte[] routerAlone() {
    try (RawResponse r = router.send(raw)) {
      return r.bodyBytes();
    }
  }

  /** openai-java through the router. */
  @Benchmark
  public ChatCompletion openAiThroughRouter() {
    ChatCompletion c = routed.chat().completions().create(params);
    c.choices();
    return c;
  }
}
