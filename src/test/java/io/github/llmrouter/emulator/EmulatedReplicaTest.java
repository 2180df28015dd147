package io.github.llmrouter.emulator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.github.llmrouter.internal.load.DialectReader;
import io.github.llmrouter.internal.load.PrometheusText;
import io.github.llmrouter.load.EngineDialect;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import okhttp3.Call;
import okhttp3.MediaType;
import okhttp3.OkHttpClient;
import okhttp3.Request;
import okhttp3.RequestBody;
import okhttp3.Response;
import okio.BufferedSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

class EmulatedReplicaTest {
  private static final JsonMapper JSON = JsonMapper.builder().build();
  private static final MediaType JSON_TYPE = MediaType.get("application/json");
  private static final String SYSTEM = "You are a helpful assistant for a routing test. ".repeat(8);

  // No silent retries: a reset must surface, and must not consume a second scripted fault.
  private final OkHttpClient client = new OkHttpClient.Builder()
      .retryOnConnectionFailure(false)
      .callTimeout(Duration.ofSeconds(30))
      .build();
  private final List<EmulatedReplica> replicas = new ArrayList<>();

  @AfterEach
  void closeAll() {
    replicas.forEach(EmulatedReplica::close);
    client.dispatcher().executorService().shutdown();
    client.connectionPool().evictAll();
  }

  private EmulatedReplica start(EmulatedReplica.Builder builder) {
    EmulatedReplica r = builder.build();
    replicas.add(r);
    return r.start();
  }

  private EmulatedReplica instant() {
    return start(EmulatedReplica.builder().id("r1").instant());
  }

  private static String chatBody(String user, Map<String, Object> extra) {
    Map<String, Object> body = new HashMap<>(extra);
    body.put("model", "some-model");
    body.put("messages", List.of(
        Map.of("role", "system", "content", SYSTEM),
        Map.of("role", "user", "content", user)));
    return JSON.writeValueAsString(body);
  }

  private Response post(EmulatedReplica r, String path, String json) throws IOException {
    return client.newCall(new Request.Builder().url(r.baseUrl() + path)
        .post(RequestBody.create(json, JSON_TYPE)).build()).execute();
  }

  private JsonNode postJson(EmulatedReplica r, String path, String json) throws IOException {
    try (Response response = post(r, path, json)) {
      assertThat(response.code()).isEqualTo(200);
      return JSON.readTree(response.body().string());
    }
  }

  private Response get(EmulatedReplica r, String path) throws IOException {
    return client.newCall(new Request.Builder().url(r.baseUrl() + path).build()).execute();
  }

  /** Reads SSE {@code data:} payloads until the body ends; an abrupt end throws IOException. */
  private static List<String> readEvents(Response response, List<String> into) throws IOException {
    BufferedSource source = response.body().source();
    String line;
    while ((line = source.readUtf8Line()) != null) {
      if (line.startsWith("data: ")) into.add(line.substring("data: ".length()));
    }
    return into;
  }

  /** Polls a condition that other threads make true; bounded, and fails rather than hangs. */
  private static void awaitTrue(BooleanSupplier condition) {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (!condition.getAsBoolean()) {
      assertThat(System.nanoTime()).as("condition within 10 s").isLessThan(deadline);
      Thread.yield();
    }
  }

  @Test
  void chatCompletionHasOpenAiShapeUsageAndTheReplicaField() throws IOException {
    EmulatedReplica r = instant();

    JsonNode body = postJson(r, "/v1/chat/completions",
        chatBody("hello", Map.of("max_tokens", 5, "temperature", 0.2,
            "unknown_field", Map.of("nested", List.of(1, 2)))));

    assertThat(body.path("id").stringValue()).startsWith("chatcmpl-");
    assertThat(body.path("object").stringValue()).isEqualTo("chat.completion");
    assertThat(body.path("created").isIntegralNumber()).isTrue();
    assertThat(body.path("model").stringValue()).isEqualTo("some-model");
    assertThat(body.path("x_emulated_replica").stringValue()).isEqualTo("r1");
    JsonNode choice = body.path("choices").get(0);
    assertThat(choice.path("index").intValue()).isZero();
    assertThat(choice.path("message").path("role").stringValue()).isEqualTo("assistant");
    assertThat(choice.path("message").path("content").stringValue().split(" ")).hasSize(5);
    assertThat(choice.path("finish_reason").stringValue()).isEqualTo("length");
    int promptChars = EmulatedHandler.chatPrompt(JSON.readTree(chatBody("hello", Map.of())))
        .length();
    JsonNode usage = body.path("usage");
    assertThat(usage.path("prompt_tokens").intValue()).isEqualTo((promptChars + 3) / 4);
    assertThat(usage.path("completion_tokens").intValue()).isEqualTo(5);
    assertThat(usage.path("total_tokens").intValue()).isEqualTo((promptChars + 3) / 4 + 5);
    assertThat(usage.path("prompt_tokens_details").path("cached_tokens").intValue()).isZero();
  }

  @Test
  void chatPromptIsRoleNewlineContentNewlinePerMessage() {
    JsonNode request = JSON.readTree("{\"messages\":[{\"role\":\"system\",\"content\":\"S\"},"
        + "{\"role\":\"user\",\"content\":[{\"type\":\"text\",\"text\":\"U\"}]}]}");

    assertThat(EmulatedHandler.chatPrompt(request)).isEqualTo("system\nS\nuser\nU\n");
  }

  @Test
  void outputIsDeterministicForAPrompt() throws IOException {
    EmulatedReplica r = instant();
    String body = chatBody("same", Map.of());

    String first = postJson(r, "/v1/chat/completions", body).at("/choices/0/message/content")
        .stringValue();
    String second = postJson(r, "/v1/chat/completions", body).at("/choices/0/message/content")
        .stringValue();

    assertThat(first).isEqualTo(second).isNotBlank();
    assertThat(first.split(" ")).hasSize(EmulatedReplica.DEFAULT_MAX_TOKENS);
  }

  @Test
  void chatStreamSendsRoleThenOneEventPerTokenThenFinishThenUsageThenDone() throws IOException {
    EmulatedReplica r = instant();
    List<String> events = new ArrayList<>();

    try (Response response = post(r, "/v1/chat/completions", chatBody("hi", Map.of(
        "stream", true, "max_tokens", 3, "stream_options", Map.of("include_usage", true))))) {
      assertThat(response.code()).isEqualTo(200);
      assertThat(response.header("Content-Type")).startsWith("text/event-stream");
      readEvents(response, events);
    }

    assertThat(events).hasSize(3 + 1 + 1 + 1);
    assertThat(events.get(events.size() - 1)).isEqualTo("[DONE]");
    JsonNode first = JSON.readTree(events.get(0));
    assertThat(first.path("object").stringValue()).isEqualTo("chat.completion.chunk");
    assertThat(first.at("/choices/0/delta/role").stringValue()).isEqualTo("assistant");
    assertThat(first.at("/choices/0/delta/content").stringValue()).isNotEmpty();
    assertThat(first.at("/choices/0/finish_reason").isNull()).isTrue();
    assertThat(first.path("x_emulated_replica").stringValue()).isEqualTo("r1");
    JsonNode second = JSON.readTree(events.get(1));
    assertThat(second.at("/choices/0/delta").has("role")).isFalse();
    assertThat(second.at("/choices/0/delta/content").stringValue()).startsWith(" ");
    JsonNode finish = JSON.readTree(events.get(3));
    assertThat(finish.at("/choices/0/finish_reason").stringValue()).isEqualTo("length");
    JsonNode usage = JSON.readTree(events.get(4));
    assertThat(usage.path("choices").isEmpty()).isTrue();
    assertThat(usage.at("/usage/completion_tokens").intValue()).isEqualTo(3);
    assertThat(r.stats().completed()).isEqualTo(1);
  }

  @Test
  void streamWithoutIncludeUsageHasNoUsageChunk() throws IOException {
    EmulatedReplica r = instant();
    List<String> events = new ArrayList<>();

    try (Response response = post(r, "/v1/chat/completions",
        chatBody("hi", Map.of("stream", true, "max_tokens", 2)))) {
      readEvents(response, events);
    }

    assertThat(events).hasSize(2 + 1 + 1).last().isEqualTo("[DONE]");
    assertThat(events.subList(0, 3)).allSatisfy(e -> assertThat(JSON.readTree(e).has("usage"))
        .isFalse());
  }

  @Test
  void completionsAnswerTextCompletionsWholeAndStreamed() throws IOException {
    EmulatedReplica r = instant();
    String prompt = "Once upon a time ".repeat(10);

    JsonNode whole = postJson(r, "/v1/completions", JSON.writeValueAsString(
        Map.of("model", "m", "prompt", prompt, "max_tokens", 4, "echo", false)));
    assertThat(whole.path("id").stringValue()).startsWith("cmpl-");
    assertThat(whole.path("object").stringValue()).isEqualTo("text_completion");
    assertThat(whole.at("/choices/0/text").stringValue().split(" ")).hasSize(4);
    assertThat(whole.at("/usage/prompt_tokens").intValue()).isEqualTo((prompt.length() + 3) / 4);

    List<String> events = new ArrayList<>();
    try (Response response = post(r, "/v1/completions", JSON.writeValueAsString(
        Map.of("model", "m", "prompt", prompt, "max_tokens", 4, "stream", true)))) {
      readEvents(response, events);
    }
    assertThat(events).hasSize(4 + 1 + 1).last().isEqualTo("[DONE]");
    StringBuilder text = new StringBuilder();
    for (String e : events.subList(0, 5)) {
      JsonNode chunk = JSON.readTree(e);
      assertThat(chunk.path("object").stringValue()).isEqualTo("text_completion");
      text.append(chunk.at("/choices/0/text").stringValue());
    }
    assertThat(text.toString()).isEqualTo(whole.at("/choices/0/text").stringValue());
    assertThat(r.stats().completionRequests()).isEqualTo(2);
    assertThat(r.stats().chatRequests()).isZero();
  }

  @Test
  void embeddingsAreDeterministicUnitVectors() throws IOException {
    EmulatedReplica r = instant();
    String body = JSON.writeValueAsString(Map.of("model", "e", "input", List.of("alpha", "beta")));

    JsonNode first = postJson(r, "/v1/embeddings", body);
    JsonNode second = postJson(r, "/v1/embeddings", body);
    JsonNode single = postJson(r, "/v1/embeddings",
        JSON.writeValueAsString(Map.of("model", "e", "input", "alpha")));

    assertThat(first.path("object").stringValue()).isEqualTo("list");
    assertThat(first.path("model").stringValue()).isEqualTo("e");
    assertThat(first.path("data")).hasSize(2);
    assertThat(first.at("/data/1/object").stringValue()).isEqualTo("embedding");
    assertThat(first.at("/data/1/index").intValue()).isEqualTo(1);
    assertThat(first.path("data")).isEqualTo(second.path("data"));
    assertThat(single.at("/data/0/embedding")).isEqualTo(first.at("/data/0/embedding"));
    assertThat(first.at("/data/0/embedding")).isNotEqualTo(first.at("/data/1/embedding"));
    double norm = 0;
    for (JsonNode v : first.at("/data/0/embedding")) norm += v.doubleValue() * v.doubleValue();
    assertThat(first.at("/data/0/embedding")).hasSize(8);
    assertThat(norm).isCloseTo(1.0, org.assertj.core.data.Offset.offset(1e-5));
    assertThat(first.at("/usage/prompt_tokens").intValue()).isEqualTo(3);
    assertThat(r.stats().embeddingRequests()).isEqualTo(3);
  }

  @Test
  void modelsListsTheConfiguredNames() throws IOException {
    EmulatedReplica r = start(EmulatedReplica.builder().model("llama").model("qwen").instant());

    try (Response response = get(r, "/v1/models")) {
      JsonNode body = JSON.readTree(response.body().string());
      assertThat(body.path("object").stringValue()).isEqualTo("list");
      assertThat(body.path("data")).extracting(m -> m.path("id").stringValue())
          .containsExactly("llama", "qwen");
    }
    assertThat(instant().models()).containsExactly(EmulatedReplica.DEFAULT_MODEL);
  }

  @Test
  void aReplicaThatLoadsModelsOnDemandListsTheirStatusAndCountsItsLoads() throws IOException {
    EmulatedReplica r = start(EmulatedReplica.builder().model("alpha").model("beta")
        .loadsModelsOnDemand(1).instant());
    try (Response response = get(r, "/v1/models")) {
      JsonNode body = JSON.readTree(response.body().string());
      assertThat(body.path("data")).extracting(m -> m.at("/status/value").stringValue())
          .containsExactly("unloaded", "unloaded");
    }
    for (String model : List.of("alpha", "alpha", "beta", "alpha")) {
      postJson(r, "/v1/chat/completions", "{\"model\":\"" + model
          + "\",\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}");
    }
    assertThat(r.modelLoads()).as("alpha, beta, alpha again").isEqualTo(3);
    try (Response response = get(r, "/v1/models")) {
      JsonNode body = JSON.readTree(response.body().string());
      assertThat(body.path("data")).extracting(m -> m.at("/status/value").stringValue())
          .containsExactly("loaded", "unloaded");
    }
    assertThat(start(EmulatedReplica.builder().instant()).modelLoads()).isZero();
  }

  @Test
  void aReplicaWithLoraAdaptersListsLoadsUnloadsAndReportsThemAsVllm() throws IOException {
    EmulatedReplica r = start(EmulatedReplica.builder().model("base").rejectUnknownModels()
        .loraAdapters(2, "sql").instant());
    try (Response response = get(r, "/v1/models")) {
      JsonNode data = JSON.readTree(response.body().string()).path("data");
      assertThat(data).extracting(m -> m.path("id").stringValue()).containsExactly("base", "sql");
      assertThat(data.get(0).has("parent")).isFalse();
      assertThat(data.get(1).path("parent").stringValue()).isEqualTo("base");
    }
    try (Response response = post(r, "/v1/load_lora_adapter",
        "{\"lora_name\":\"chat\",\"lora_path\":\"/adapters/chat\"}")) {
      assertThat(response.code()).isEqualTo(200);
      assertThat(response.body().string()).isEqualTo(
          "Success: LoRA adapter 'chat' added successfully.");
    }
    try (Response again = post(r, "/v1/load_lora_adapter",
        "{\"lora_name\":\"chat\",\"lora_path\":\"/adapters/chat\"}")) {
      assertThat(again.code()).isEqualTo(400);
    }
    try (Response noPath = post(r, "/v1/load_lora_adapter", "{\"lora_name\":\"x\"}")) {
      assertThat(noPath.code()).isEqualTo(400);
    }
    try (Response missing = post(r, "/v1/unload_lora_adapter", "{\"lora_name\":\"math\"}")) {
      assertThat(missing.code()).isEqualTo(404);
    }
    try (Response notJson = post(r, "/v1/unload_lora_adapter", "nonsense")) {
      assertThat(notJson.code()).isEqualTo(400);
    }
    assertThat(r.adapters()).containsExactly("sql", "chat");

    for (String model : List.of("sql", "chat", "sql", "base", "math")) {
      try (Response response = post(r, "/v1/chat/completions", "{\"model\":\"" + model
          + "\",\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}")) {
        assertThat(response.code()).as(model).isEqualTo(model.equals("math") ? 404 : 200);
      }
    }
    assertThat(r.loraLoads()).as("sql and chat, each once in two slots").isEqualTo(2);
    try (Response response = get(r, "/metrics")) {
      assertThat(response.body().string()).contains("vllm:lora_requests_info{max_lora=\"2\","
          + "running_lora_adapters=\"\",waiting_lora_adapters=\"\"}");
    }

    try (Response response = post(r, "/v1/unload_lora_adapter", "{\"lora_name\":\"sql\"}")) {
      assertThat(response.code()).isEqualTo(200);
    }
    try (Response response = post(r, "/v1/chat/completions",
        "{\"model\":\"sql\",\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}")) {
      assertThat(response.code()).isEqualTo(404);
    }
    assertThat(r.adapters()).containsExactly("chat");
    EmulatedReplica plain = start(EmulatedReplica.builder().instant());
    try (Response response = post(plain, "/v1/load_lora_adapter",
        "{\"lora_name\":\"chat\",\"lora_path\":\"/adapters/chat\"}")) {
      assertThat(response.code()).as("no adapters, no such endpoint").isEqualTo(404);
    }
    assertThat(plain.loraLoads()).isZero();
    assertThat(plain.adapters()).isEmpty();
  }

  @Test
  void idDefaultsToThePort() {
    EmulatedReplica r = start(EmulatedReplica.builder().instant());

    assertThat(r.id()).isEqualTo("emulated-" + r.port());
    assertThat(r.baseUrl()).isEqualTo("http://127.0.0.1:" + r.port());
    assertThat(r.stats().id()).isEqualTo(r.id());
  }

  @Test
  void healthAnswersTheConfiguredStatus() throws IOException {
    EmulatedReplica r = instant();

    try (Response response = get(r, "/health")) {
      assertThat(response.code()).isEqualTo(200);
    }
    r.faults().healthStatus(503);
    try (Response response = get(r, "/health")) {
      assertThat(response.code()).isEqualTo(503);
    }
    r.faults().clear();
    try (Response response = get(r, "/health")) {
      assertThat(response.code()).isEqualTo(200);
    }
    assertThat(r.stats().healthRequests()).isEqualTo(3);
    assertThat(r.stats().requests()).isZero();
  }

  @Test
  void metricsUseVllmNamesLabelsAndParseableNumbers() throws IOException {
    EmulatedReplica r = start(EmulatedReplica.builder().model("llama").instant());
    String body = chatBody("metrics", Map.of());
    postJson(r, "/v1/chat/completions", body);
    postJson(r, "/v1/chat/completions", body);

    Map<String, Double> samples = new HashMap<>();
    String text;
    try (Response response = get(r, "/metrics")) {
      assertThat(response.code()).isEqualTo(200);
      assertThat(response.header("Content-Type")).startsWith("text/plain");
      text = response.body().string();
      for (String line : text.split("\n")) {
        if (line.startsWith("#") || line.isBlank()) continue;
        int space = line.lastIndexOf(' ');
        String series = line.substring(0, space);
        // vLLM's configuration info carries the engine, not the model.
        if (!series.startsWith("vllm:cache_config_info")) {
          assertThat(series).contains("model_name=\"llama\"");
        }
        samples.put(series.substring(0, series.indexOf('{')),
            Double.parseDouble(line.substring(space + 1)));
      }
    }

    assertThat(samples).containsKeys("vllm:num_requests_waiting", "vllm:num_requests_running",
        "vllm:kv_cache_usage_perc", "vllm:prefix_cache_queries_total",
        "vllm:prefix_cache_hits_total", "vllm:request_queue_time_seconds_count",
        "vllm:request_queue_time_seconds_sum", "vllm:request_queue_time_seconds_bucket");
    assertThat(samples.get("vllm:request_queue_time_seconds_count")).isEqualTo(2.0);
    assertThat(samples.get("vllm:request_queue_time_seconds_bucket")).isEqualTo(2.0);
    assertThat(samples.get("vllm:request_queue_time_seconds_sum")).isGreaterThanOrEqualTo(0.0);
    assertThat(samples.get("vllm:num_requests_waiting")).isZero();
    assertThat(samples.get("vllm:num_requests_running")).isZero();
    int promptChars = EmulatedHandler.chatPrompt(JSON.readTree(body)).length();
    int blocks = promptChars / EmulatedReplica.DEFAULT_BLOCK_CHARS;
    assertThat(samples.get("vllm:kv_cache_usage_perc"))
        .isEqualTo((double) blocks / EmulatedReplica.DEFAULT_CACHE_BLOCKS);
    assertThat(samples.get("vllm:prefix_cache_queries_total"))
        .isEqualTo(2.0 * ((promptChars + 3) / 4));
    assertThat(samples.get("vllm:prefix_cache_hits_total"))
        .isEqualTo(blocks * EmulatedReplica.DEFAULT_BLOCK_CHARS / 4.0);
    assertThat(samples.get("vllm:cache_config_info")).isEqualTo(1.0);
    assertThat(DialectReader.read(io.github.llmrouter.load.EngineDialect.VLLM, 
            io.github.llmrouter.internal.load.PrometheusText.parse(text), "llama", 0).kvCapacityTokens())
        .as("the KV capacity a client reads, in tokens")
        .isEqualTo((long) EmulatedReplica.DEFAULT_CACHE_BLOCKS
            * EmulatedEngine.tokens(EmulatedReplica.DEFAULT_BLOCK_CHARS));
    assertThat(r.stats().metricsRequests()).isEqualTo(1);
  }

  @Test
  void metricsTextHasHelpAndTypeLinesPerFamily() {
    EmulatedReplica r = instant();

    String text = replicaMetrics(r);

    assertThat(text).contains("# HELP vllm:num_requests_waiting ",
        "# TYPE vllm:num_requests_waiting gauge",
        "# TYPE vllm:prefix_cache_queries_total counter",
        "# TYPE vllm:prefix_cache_hits_total counter",
        "# TYPE vllm:kv_cache_usage_perc gauge",
        "# TYPE vllm:request_queue_time_seconds histogram");
  }

  private String replicaMetrics(EmulatedReplica r) {
    try (Response response = get(r, "/metrics")) {
      return response.body().string();
    } catch (IOException e) {
      throw new AssertionError(e);
    }
  }

  @Test
  void loadMetricsHeaderIsSentWhenAskedFor() throws IOException {
    EmulatedReplica r = instant();

    try (Response response = client.newCall(new Request.Builder()
        .url(r.baseUrl() + "/v1/chat/completions")
        .header("endpoint-load-metrics-format", "TEXT")
        .post(RequestBody.create(chatBody("x", Map.of()), JSON_TYPE)).build()).execute()) {
      assertThat(response.header("endpoint-load-metrics"))
          .startsWith("TEXT named_metrics.kv_cache_usage_perc=")
          .contains("named_metrics.num_requests_waiting=0");
    }
    try (Response response = client.newCall(new Request.Builder()
        .url(r.baseUrl() + "/v1/chat/completions")
        .header("endpoint-load-metrics-format", "JSON")
        .post(RequestBody.create(chatBody("x", Map.of()), JSON_TYPE)).build()).execute()) {
      String json = response.header("endpoint-load-metrics");
      assertThat(json).startsWith("JSON {\"named_metrics\":");
      assertThat(io.github.llmrouter.internal.load.LoadHeaders.parseEndpointLoadMetrics(json, 0).waiting())
          .isZero();
    }
    try (Response response = post(r, "/v1/chat/completions", chatBody("x", Map.of()))) {
      assertThat(response.header("endpoint-load-metrics")).isNull();
    }
  }

  @Test
  void aRepeatedPromptIsServedFromThePrefixCache() throws IOException {
    EmulatedReplica r = instant();
    String body = chatBody("What is consistent hashing?", Map.of());
    int promptChars = EmulatedHandler.chatPrompt(JSON.readTree(body)).length();
    int cacheableChars = promptChars / 64 * 64;

    JsonNode first = postJson(r, "/v1/chat/completions", body);
    JsonNode second = postJson(r, "/v1/chat/completions", body);

    assertThat(first.at("/usage/prompt_tokens_details/cached_tokens").intValue()).isZero();
    assertThat(second.at("/usage/prompt_tokens_details/cached_tokens").intValue())
        .isEqualTo(cacheableChars / 4).isPositive();
    EmulatedReplicaStats stats = r.stats();
    assertThat(stats.promptChars()).isEqualTo(2L * promptChars);
    assertThat(stats.cachedChars()).isEqualTo(cacheableChars);
    assertThat(stats.hitRate()).isEqualTo((double) cacheableChars / (2 * promptChars));
    assertThat(stats.cacheBlocksUsed()).isEqualTo(promptChars / 64);
  }

  @Test
  void aSharedSystemPromptIsCachedAcrossConversations() throws IOException {
    EmulatedReplica r = instant();
    postJson(r, "/v1/chat/completions", chatBody("first conversation", Map.of()));

    JsonNode other = postJson(r, "/v1/chat/completions", chatBody("another one", Map.of()));

    // "system\n" + SYSTEM + "\n" is shared; the cache hit covers its full blocks.
    int sharedChars = ("system\n" + SYSTEM + "\nuser\n").length();
    assertThat(other.at("/usage/prompt_tokens_details/cached_tokens").intValue())
        .isEqualTo(sharedChars / 64 * 64 / 4);
  }

  @Test
  void aTinyCacheEvictsTheLeastRecentlyUsedBlocks() throws IOException {
    EmulatedReplica r = start(EmulatedReplica.builder().instant().blockChars(8).cacheBlocks(4));
    String a = JSON.writeValueAsString(Map.of("prompt", "A".repeat(32)));
    String b = JSON.writeValueAsString(Map.of("prompt", "B".repeat(32)));

    postJson(r, "/v1/completions", a);
    assertThat(postJson(r, "/v1/completions", a).at("/usage/prompt_tokens_details/cached_tokens")
        .intValue()).isEqualTo(8);
    postJson(r, "/v1/completions", b); // four new blocks push all of A's out
    JsonNode again = postJson(r, "/v1/completions", a);

    assertThat(again.at("/usage/prompt_tokens_details/cached_tokens").intValue()).isZero();
    assertThat(r.stats().cacheBlocksUsed()).isEqualTo(4);
    assertThat(r.stats().cacheUsage()).isEqualTo(1.0);
  }

  @Test
  void aZeroCapacityCacheNeverHits() throws IOException {
    EmulatedReplica r = start(EmulatedReplica.builder().instant().cacheBlocks(0));
    String body = chatBody("no cache", Map.of());

    postJson(r, "/v1/chat/completions", body);
    postJson(r, "/v1/chat/completions", body);

    assertThat(r.stats().cachedChars()).isZero();
    assertThat(r.stats().cacheUsage()).isZero();
  }

  @Test
  void failNextAnswersTheStatusWithRetryAfterThenRecovers() throws IOException {
    EmulatedReplica r = instant();
    r.faults().failNext(2, 503, "7").failNext(1, 429);
    String body = chatBody("x", Map.of());

    for (int i = 0; i < 2; i++) {
      try (Response response = post(r, "/v1/chat/completions", body)) {
        assertThat(response.code()).isEqualTo(503);
        assertThat(response.header("Retry-After")).isEqualTo("7");
        assertThat(JSON.readTree(response.body().string()).at("/error/message").stringValue())
            .isNotBlank();
      }
    }
    try (Response response = post(r, "/v1/chat/completions", body)) {
      assertThat(response.code()).isEqualTo(429);
      assertThat(response.header("Retry-After")).isNull();
    }
    postJson(r, "/v1/chat/completions", body);

    assertThat(r.faults().pending()).isZero();
    assertThat(r.stats().faultsInjected()).isEqualTo(3);
    assertThat(r.stats().chatRequests()).isEqualTo(4);
    assertThat(r.stats().completed()).isEqualTo(1);
  }

  @Test
  void faultsDoNotApplyToHealthMetricsOrModels() throws IOException {
    EmulatedReplica r = instant();
    r.faults().failNext(1, 500);

    try (Response response = get(r, "/health")) {
      assertThat(response.code()).isEqualTo(200);
    }
    try (Response response = get(r, "/v1/models")) {
      assertThat(response.code()).isEqualTo(200);
    }
    assertThat(r.faults().pending()).isEqualTo(1);
  }

  @Test
  void resetNextDropsTheConnectionWithoutAResponse() throws IOException {
    EmulatedReplica r = instant();
    r.faults().resetNext(1);
    String body = chatBody("x", Map.of());

    assertThatThrownBy(() -> post(r, "/v1/chat/completions", body).close())
        .isInstanceOf(IOException.class);
    postJson(r, "/v1/chat/completions", body);

    assertThat(r.stats().chatRequests()).isEqualTo(2);
    assertThat(r.stats().faultsInjected()).isEqualTo(1);
  }

  @Test
  void breakStreamAfterSendsSomeEventsThenEndsAbruptly() throws IOException {
    EmulatedReplica r = instant();
    r.faults().breakStreamAfter(1, 2);
    String body = chatBody("x", Map.of("stream", true, "max_tokens", 5));
    List<String> events = new ArrayList<>();

    try (Response response = post(r, "/v1/chat/completions", body)) {
      assertThat(response.code()).isEqualTo(200);
      assertThatThrownBy(() -> readEvents(response, events)).isInstanceOf(IOException.class);
    }
    assertThat(events).hasSize(2).doesNotContain("[DONE]");

    List<String> next = new ArrayList<>();
    try (Response response = post(r, "/v1/chat/completions", body)) {
      readEvents(response, next);
    }
    assertThat(next).hasSize(5 + 1 + 1).last().isEqualTo("[DONE]");
    assertThat(r.stats().completed()).isEqualTo(1);
  }

  @Test
  void breakStreamIsNotConsumedByNonStreamingRequests() throws IOException {
    EmulatedReplica r = instant();
    r.faults().breakStreamAfter(1, 0);

    postJson(r, "/v1/chat/completions", chatBody("x", Map.of()));
    assertThat(r.faults().pending()).isEqualTo(1);

    List<String> events = new ArrayList<>();
    try (Response response = post(r, "/v1/chat/completions",
        chatBody("x", Map.of("stream", true)))) {
      assertThatThrownBy(() -> readEvents(response, events)).isInstanceOf(IOException.class);
    }
    assertThat(events).isEmpty();
    assertThat(r.faults().pending()).isZero();
  }

  @Test
  void hangNextIsEndedByTheClientTimeout() throws IOException {
    EmulatedReplica r = instant();
    r.faults().hangNext(1);
    OkHttpClient impatient = client.newBuilder().callTimeout(Duration.ofSeconds(1)).build();
    String body = chatBody("x", Map.of());

    assertThatThrownBy(() -> impatient.newCall(new Request.Builder()
        .url(r.baseUrl() + "/v1/chat/completions")
        .post(RequestBody.create(body, JSON_TYPE)).build()).execute().close())
        .isInstanceOf(InterruptedIOException.class);
    // On a slow machine the client may give up before the server took the fault: let it first.
    awaitTrue(() -> r.faults().pending() == 0);
    postJson(r, "/v1/chat/completions", body);

    assertThat(r.stats().faultsInjected()).isEqualTo(1);
    assertThat(r.stats().completed()).isEqualTo(1);
  }

  @Test
  void delayNextStillAnswers() throws IOException {
    EmulatedReplica r = instant();
    r.faults().delayNext(1, Duration.ofMillis(20)).failNext(1, 500);
    String body = chatBody("x", Map.of());

    postJson(r, "/v1/chat/completions", body);
    try (Response response = post(r, "/v1/chat/completions", body)) {
      assertThat(response.code()).isEqualTo(500);
    }

    assertThat(r.stats().faultsInjected()).isEqualTo(2);
  }

  @Test
  void requestsBeyondMaxRunningWaitInLine() throws Exception {
    // 100 tokens 10 s apart keep the first stream in the batch until close().
    EmulatedReplica r = start(EmulatedReplica.builder().instant().maxRunning(1)
        .decodeInterval(Duration.ofSeconds(10)));
    String body = chatBody("x", Map.of("stream", true, "max_tokens", 100));

    Response holding = post(r, "/v1/chat/completions", body);
    assertThat(holding.body().source().readUtf8Line()).startsWith("data: "); // first token out
    Call queued = client.newCall(new Request.Builder().url(r.baseUrl() + "/v1/chat/completions")
        .post(RequestBody.create(body, JSON_TYPE)).build());
    CompletableFuture<Integer> queuedCode = CompletableFuture.supplyAsync(() -> {
      try (Response response = queued.execute()) {
        return response.code();
      } catch (IOException e) {
        return -1;
      }
    });
    awaitTrue(() -> r.stats().waiting() == 1);

    assertThat(r.stats().running()).isEqualTo(1);
    assertThat(replicaMetrics(r)).contains("vllm:num_requests_waiting{engine=\"0\","
        + "model_name=\"emulated-model\"} 1.0");

    r.close();
    assertThat(queuedCode.get(10, TimeUnit.SECONDS)).isEqualTo(-1);
    assertThatThrownBy(() -> readEvents(holding, new ArrayList<>()))
        .isInstanceOf(IOException.class);
    holding.close();
  }

  @Test
  void manyConcurrentStreamsAllCompleteThroughASmallBatch() throws Exception {
    EmulatedReplica r = start(EmulatedReplica.builder().instant().maxRunning(4));
    OkHttpClient wide = client.newBuilder().build();
    wide.dispatcher().setMaxRequests(64);
    wide.dispatcher().setMaxRequestsPerHost(64);
    int n = 48;
    List<CompletableFuture<Integer>> events = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      String body = chatBody("conversation " + (i % 6), Map.of("stream", true, "max_tokens", 8));
      CompletableFuture<Integer> f = new CompletableFuture<>();
      wide.newCall(new Request.Builder().url(r.baseUrl() + "/v1/chat/completions")
          .post(RequestBody.create(body, JSON_TYPE)).build()).enqueue(new okhttp3.Callback() {
            @Override
            public void onFailure(Call call, IOException e) {
              f.completeExceptionally(e);
            }

            @Override
            public void onResponse(Call call, Response response) {
              try (response) {
                f.complete(readEvents(response, new ArrayList<>()).size());
              } catch (IOException e) {
                f.completeExceptionally(e);
              }
            }
          });
      events.add(f);
    }

    for (CompletableFuture<Integer> f : events) {
      assertThat(f.get(30, TimeUnit.SECONDS)).isEqualTo(10);
    }
    EmulatedReplicaStats stats = r.stats();
    assertThat(stats.chatRequests()).isEqualTo(n);
    assertThat(stats.completed()).isEqualTo(n);
    assertThat(stats.waiting()).isZero();
    assertThat(stats.running()).isZero();
    // Six distinct conversations share the system prompt: most prefill came from the cache.
    assertThat(stats.hitRate()).isGreaterThan(0.5);
  }

  @Test
  void closeEndsHungAndStreamingRequestsPromptly() throws Exception {
    EmulatedReplica r = start(EmulatedReplica.builder().instant()
        .decodeInterval(Duration.ofSeconds(10)));
    r.faults().hangNext(1);
    String body = chatBody("x", Map.of("stream", true, "max_tokens", 100));
    CompletableFuture<Throwable> hung = CompletableFuture.supplyAsync(() -> {
      try {
        post(r, "/v1/chat/completions", body).close();
        return null;
      } catch (IOException e) {
        return e;
      }
    });
    awaitTrue(() -> r.stats().faultsInjected() == 1);
    Response streaming = post(r, "/v1/chat/completions", body);
    assertThat(streaming.body().source().readUtf8Line()).startsWith("data: ");

    r.close();

    assertThat(hung.get(10, TimeUnit.SECONDS)).isInstanceOf(IOException.class);
    assertThatThrownBy(() -> readEvents(streaming, new ArrayList<>()))
        .isInstanceOf(IOException.class);
    streaming.close();
    assertThatThrownBy(() -> get(r, "/health").close()).isInstanceOf(IOException.class);
    r.close(); // idempotent
  }

  @Test
  void malformedRequestsGet400AndUnknownPaths404() throws IOException {
    EmulatedReplica r = instant();

    try (Response response = post(r, "/v1/chat/completions", "{not json")) {
      assertThat(response.code()).isEqualTo(400);
      assertThat(JSON.readTree(response.body().string()).at("/error/message").stringValue())
          .contains("JSON");
    }
    try (Response response = post(r, "/v1/chat/completions", "{\"model\":\"m\"}")) {
      assertThat(response.code()).isEqualTo(400);
    }
    try (Response response = post(r, "/v1/completions", "{\"prompt\":\"p\",\"max_tokens\":-1}")) {
      assertThat(response.code()).isEqualTo(400);
    }
    try (Response response = get(r, "/v2/nothing")) {
      assertThat(response.code()).isEqualTo(404);
    }
    try (Response response = get(r, "/v1/chat/completions")) {
      assertThat(response.code()).isEqualTo(405);
    }
  }

  @Test
  void lifecycleMisuseFailsClearly() {
    EmulatedReplica r = instant();

    assertThatThrownBy(r::start).isInstanceOf(IllegalStateException.class);
    EmulatedReplica unstarted = EmulatedReplica.instant();
    assertThatThrownBy(unstarted::baseUrl).isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("not started");
    unstarted.close();
    assertThatThrownBy(unstarted::start).isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("closed");
  }

  @Test
  void badConfigurationNamesTheKnob() {
    EmulatedReplica.Builder b = EmulatedReplica.builder();

    assertThatThrownBy(() -> b.blockChars(0)).hasMessageContaining("blockChars");
    assertThatThrownBy(() -> b.cacheBlocks(-1)).hasMessageContaining("cacheBlocks");
    assertThatThrownBy(() -> b.maxRunning(0)).hasMessageContaining("maxRunning");
    assertThatThrownBy(() -> b.prefillNanosPerChar(-1)).hasMessageContaining("prefillNanosPerChar");
    assertThatThrownBy(() -> b.baseLatency(Duration.ofSeconds(-1)))
        .hasMessageContaining("baseLatency");
    assertThatThrownBy(() -> b.decodeInterval(Duration.ofHours(1)))
        .hasMessageContaining("decodeInterval");
    assertThatThrownBy(() -> b.defaultMaxTokens(EmulatedReplica.MAX_TOKENS_LIMIT + 1))
        .hasMessageContaining("defaultMaxTokens");
    assertThatThrownBy(() -> b.port(70000)).hasMessageContaining("port");
    EmulatedFaults faults = EmulatedReplica.instant().faults();
    assertThatThrownBy(() -> faults.failNext(1, 200)).hasMessageContaining("status");
    assertThatThrownBy(() -> faults.resetNext(-1)).hasMessageContaining("count");
  }

  @Test
  void randomFaultsFollowTheirRatesFromASeed() throws IOException {
    EmulatedReplica r = instant();
    r.faults().randomly(7, 1.0, 503, 0, 0);
    try (Response response = post(r, "/v1/chat/completions", chatBody("x", Map.of()))) {
      assertThat(response.code()).isEqualTo(503);
    }
    r.faults().randomly(7, 0, 503, 1.0, 0);
    assertThatThrownBy(() -> post(r, "/v1/chat/completions", chatBody("x", Map.of())).close())
        .isInstanceOf(IOException.class);
    r.faults().randomly(7, 0.5, 500, 0, 0);
    int failed = 0;
    for (int i = 0; i < 200; i++) {
      try (Response response = post(r, "/v1/chat/completions", chatBody("x", Map.of()))) {
        if (response.code() == 500) failed++;
      }
    }
    assertThat(failed).isBetween(70, 130);
    r.faults().clear();
    postJson(r, "/v1/chat/completions", chatBody("x", Map.of()));
    assertThat(r.stats().faultsInjected()).isEqualTo(2 + failed);
    assertThatThrownBy(() -> r.faults().randomly(1, 0.6, 503, 0.6, 0))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("at most 1");
  }

  @Test
  void closingAfterStreamsDropsTheConnectionOfEveryStreamAndOfNoWholeAnswer() throws IOException {
    EmulatedReplica r = start(EmulatedReplica.builder().id("closer").instant()
        .closeAfterStreams(true));
    for (int i = 0; i < 3; i++) postJson(r, "/v1/chat/completions", chatBody("whole " + i, Map.of()));
    assertThat(r.connectionsDropped()).as("whole answers keep their connection").isZero();
    // Each stream on a connection of its own: a pooled one would be dead after a stream.
    OkHttpClient unpooled = client.newBuilder()
        .connectionPool(new okhttp3.ConnectionPool(0, 1, TimeUnit.SECONDS)).build();
    for (int i = 0; i < 3; i++) {
      try (Response stream = unpooled.newCall(new Request.Builder()
          .url(r.baseUrl() + "/v1/chat/completions")
          .post(RequestBody.create(chatBody("stream " + i, Map.of("stream", true)), JSON_TYPE))
          .build()).execute()) {
        assertThat(stream.body().string()).endsWith("data: [DONE]\n\n");
        assertThat(stream.header("Connection")).as("nothing announces the close").isNull();
      }
      int expected = i + 1;
      awaitTrue(() -> r.connectionsDropped() == expected);
    }
    assertThat(r.stats().chatRequests()).isEqualTo(6);
  }

  @Test
  void anIdleConnectionIsClosedAfterTheTimeoutAndABusyOneIsNot() throws IOException {
    EmulatedReplica r = start(EmulatedReplica.builder().id("idle")
        .decodeInterval(Duration.ofMillis(60)).idleConnectionTimeout(Duration.ofMillis(50)));
    // A stream that takes longer than the idle timeout: busy, so kept.
    try (Response stream = post(r, "/v1/chat/completions",
        chatBody("slow", Map.of("stream", true, "max_tokens", 4)))) {
      assertThat(stream.body().string()).endsWith("data: [DONE]\n\n");
    }
    awaitTrue(() -> r.connectionsDropped() == 1); // then idle: closed
  }

  @Test
  void anIdleConnectionTimeoutOutOfRangeIsRefusedNamingTheKnob() {
    for (Duration bad : List.of(Duration.ofMillis(-1), Duration.ofNanos(1), Duration.ofHours(2))) {
      assertThatThrownBy(() -> EmulatedReplica.builder().idleConnectionTimeout(bad))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("idleConnectionTimeout");
    }
  }
}
