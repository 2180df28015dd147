package io.github.llmrouter;

import static io.github.llmrouter.Fixtures.CHAT_JSON;
import static io.github.llmrouter.Fixtures.chat;
import static io.github.llmrouter.Fixtures.chunk;
import static io.github.llmrouter.Fixtures.finalChunk;
import static io.github.llmrouter.Fixtures.ok;
import static io.github.llmrouter.Fixtures.sse;
import static org.assertj.core.api.Assertions.assertThat;

import io.github.llmrouter.api.ChatChunk;
import io.github.llmrouter.api.CompletionRequest;
import io.github.llmrouter.api.CompletionResponse;
import io.github.llmrouter.api.EmbeddingRequest;
import io.github.llmrouter.api.EmbeddingResponse;
import io.github.llmrouter.api.ResponseStream;
import io.github.llmrouter.load.LoadMonitoring;
import io.github.llmrouter.replica.HealthCheck;
import io.github.llmrouter.replica.Replica;
import io.github.llmrouter.testing.EventRecorder;
import io.github.llmrouter.internal.transport.Json;
import java.net.InetAddress;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import mockwebserver3.Dispatcher;
import mockwebserver3.MockResponse;
import mockwebserver3.MockWebServer;
import mockwebserver3.RecordedRequest;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import tools.jackson.databind.JsonNode;

/**
 * What reaches a replica, read off the wire: for every entry point (blocking, asynchronous and
 * streamed chat, completion and embeddings), for the metrics scrape and for the health check, the
 * exact path under the base URL's prefix (never {@code /v1/v1}), the API key, the replica's own
 * headers and the body fields that matter.
 */
class RequestsOnTheWireTest {
  private static final String COMPLETION_JSON = "{\"id\":\"cmpl\",\"object\":\"text_completion\","
      + "\"choices\":[{\"index\":0,\"text\":\" world\",\"finish_reason\":\"length\"}],"
      + "\"usage\":{\"prompt_tokens\":1,\"completion_tokens\":1,\"total_tokens\":2}}";
  private static final String EMBEDDING_JSON = "{\"object\":\"list\",\"model\":\"e\",\"data\":"
      + "[{\"object\":\"embedding\",\"index\":0,\"embedding\":[0.25,-0.5]}],"
      + "\"usage\":{\"prompt_tokens\":1,\"total_tokens\":1}}";

  private final MockWebServer server = new MockWebServer();
  private final List<RecordedRequest> recorded = new CopyOnWriteArrayList<>();

  @BeforeEach
  void start() throws Exception {
    server.setDispatcher(new Dispatcher() {
      @Override
      public MockResponse dispatch(RecordedRequest request) {
        recorded.add(request);
        String path = request.getUrl().encodedPath();
        if (path.endsWith("/metrics")) {
          return new MockResponse.Builder().code(200)
              .body("vllm:num_requests_waiting{model_name=\"m\"} 2\n").build();
        }
        if (path.endsWith("/health")) return new MockResponse.Builder().code(200).build();
        if (path.endsWith("/v1/models")) {
          return ok("{\"object\":\"list\",\"data\":[{\"id\":\"m\"},{\"id\":\"e\"}]}");
        }
        if (path.endsWith("/embeddings")) return ok(EMBEDDING_JSON);
        boolean stream = "text/event-stream".equals(request.getHeaders().get("Accept"));
        if (path.endsWith("/chat/completions")) {
          return stream ? sse(chunk("hi") + finalChunk() + "data: [DONE]\n\n") : ok(CHAT_JSON);
        }
        if (path.endsWith("/completions")) {
          return stream ? sse("data: " + COMPLETION_JSON + "\n\ndata: [DONE]\n\n")
              : ok(COMPLETION_JSON);
        }
        return new MockResponse.Builder().code(404).build();
      }
    });
    server.start(InetAddress.getLoopbackAddress(), 0);
  }

  @AfterEach
  void stop() {
    server.close();
  }

  /** The requests received on {@code path}, in arrival order. */
  private List<RecordedRequest> on(String path) {
    return recorded.stream().filter(r -> r.getUrl().encodedPath().equals(path)).toList();
  }

  @ParameterizedTest(name = "base URL path \"{0}\" -> requests under \"{1}\"")
  @CsvSource(value = {
      "/team-a/vllm/v1, /team-a/vllm",
      "/team-a/vllm/v1/, /team-a/vllm",
      "/team-a/vllm, /team-a/vllm",
      "/v1, ''",
      "/v1/, ''",
      "/, ''"})
  void everyEntryPointReachesItsPathUnderTheBaseUrlWithTheKeyAndTheReplicasHeaders(
      String basePath, String prefix) throws Exception {
    Replica replica = Replica.builder(server.url(basePath).toString())
        .header("X-Tenant", "search").build();
    try (LlmClient client = LlmClient.builder().replica(replica).apiKey("sk-wire")
        .healthCheck(HealthCheck.builder().interval(Duration.ofMillis(10)).build())
        .loadMonitoring(LoadMonitoring.builder().scrapeInterval(Duration.ofMinutes(5)).build())
        .build()) {
      assertThat(client.chat(chat("blocking")).text()).isEqualTo("hello");
      assertThat(client.chatAsync(chat("async")).get(10, TimeUnit.SECONDS).text())
          .isEqualTo("hello");
      try (ResponseStream<ChatChunk> stream = client.chatStream(chat("streamed"))) {
        assertThat(stream.stream().map(ChatChunk::text)).containsExactly("hi", "");
      }
      CompletionRequest completion = CompletionRequest.builder("m", "Once upon").maxTokens(1)
          .build();
      assertThat(client.completion(completion).text()).isEqualTo(" world");
      CompletionResponse async = client.completionAsync(completion).get(10, TimeUnit.SECONDS);
      assertThat(async.text()).isEqualTo(" world");
      assertThat(async.choices().get(0).finishReason()).isEqualTo("length");
      try (ResponseStream<CompletionResponse> stream = client.completionStream(completion)) {
        assertThat(stream.stream().map(CompletionResponse::text)).containsExactly(" world");
      }
      EmbeddingRequest embedding = EmbeddingRequest.builder("e", List.of("a text")).build();
      assertThat(client.embeddings(embedding).data().get(0).vector()).containsExactly(0.25f, -0.5f);
      EmbeddingResponse asyncEmbedding = client.embeddingsAsync(embedding).get(10, TimeUnit.SECONDS);
      assertThat(asyncEmbedding.data()).singleElement()
          .satisfies(d -> assertThat(d.vector()).containsExactly(0.25f, -0.5f));
      client.scrapeLoadNow().get(10, TimeUnit.SECONDS);
      EventRecorder.await("a health check", Duration.ofSeconds(10),
          () -> !on(prefix + "/health").isEmpty());
      assertThat(client.fleet().replicas().get(0).reportedWaiting()).as("the scrape was read")
          .isEqualTo(2);
    }

    List<RecordedRequest> chats = on(prefix + "/v1/chat/completions");
    List<RecordedRequest> completions = on(prefix + "/v1/completions");
    List<RecordedRequest> embeddings = on(prefix + "/v1/embeddings");
    assertThat(chats).hasSize(3);
    assertThat(completions).hasSize(3);
    assertThat(embeddings).hasSize(2);
    assertThat(on(prefix + "/metrics")).hasSize(1);
    assertThat(recorded).as("nothing but these paths: no /v1/v1, no lost prefix")
        .allSatisfy(r -> assertThat(r.getUrl().encodedPath()).isIn(
            prefix + "/v1/chat/completions", prefix + "/v1/completions",
            prefix + "/v1/embeddings", prefix + "/metrics", prefix + "/health",
            prefix + "/v1/models"));

    for (RecordedRequest r : recorded) {
      assertThat(r.getHeaders().get("X-Tenant")).as("replica header on %s", r.getUrl())
          .isEqualTo("search");
    }
    for (RecordedRequest r : concat(chats, completions, embeddings)) {
      assertThat(r.getMethod()).isEqualTo("POST");
      assertThat(r.getHeaders().get("Authorization")).isEqualTo("Bearer sk-wire");
      assertThat(r.getHeaders().get("Content-Type")).startsWith("application/json");
      assertThat(r.getHeaders().get("endpoint-load-metrics-format")).isEqualTo("TEXT");
    }
    assertThat(on(prefix + "/metrics")).singleElement().satisfies(r -> {
      assertThat(r.getMethod()).isEqualTo("GET");
      assertThat(r.getHeaders().get("Authorization")).isEqualTo("Bearer sk-wire");
      assertThat(r.getHeaders().get("Accept")).startsWith("text/plain");
    });
    assertThat(on(prefix + "/v1/models")).as("the model listing").isNotEmpty().allSatisfy(r -> {
      assertThat(r.getMethod()).isEqualTo("GET");
      assertThat(r.getHeaders().get("Authorization")).isEqualTo("Bearer sk-wire");
    });
    assertThat(on(prefix + "/health")).allSatisfy(r -> {
      assertThat(r.getMethod()).isEqualTo("GET");
      // vLLM serves /health outside its API-key check: the key is not sent where not needed.
      assertThat(r.getHeaders().get("Authorization")).isNull();
    });

    // Streams ask for events and for usage; the others do not.
    assertThat(chats).extracting(r -> r.getHeaders().get("Accept"))
        .containsExactly(null, null, "text/event-stream");
    assertThat(completions).extracting(r -> r.getHeaders().get("Accept"))
        .containsExactly(null, null, "text/event-stream");
    assertThat(bodies(chats)).extracting(b -> b.path("messages").get(1).get("content").asString())
        .containsExactly("blocking", "async", "streamed");
    assertThat(bodies(chats)).extracting(b -> b.path("stream").asBoolean(false))
        .containsExactly(false, false, true);
    assertThat(bodies(completions)).allSatisfy(b -> {
      assertThat(b.get("model").asString()).isEqualTo("m");
      assertThat(b.get("prompt").asString()).isEqualTo("Once upon");
      assertThat(b.get("max_tokens").asInt()).isEqualTo(1);
    });
    assertThat(bodies(completions).get(2).get("stream_options").get("include_usage").asBoolean())
        .isTrue();
    assertThat(bodies(embeddings)).allSatisfy(b -> {
      assertThat(b.get("model").asString()).isEqualTo("e");
      assertThat(b.get("input").get(0).asString()).isEqualTo("a text");
      assertThat(b.has("stream")).isFalse();
    });
  }

  @SafeVarargs
  private static List<RecordedRequest> concat(List<RecordedRequest>... lists) {
    return java.util.Arrays.stream(lists).flatMap(List::stream).toList();
  }

  private static List<JsonNode> bodies(List<RecordedRequest> requests) {
    return requests.stream().map(r -> Json.MAPPER.readTree(r.getBody().utf8())).toList();
  }
}
