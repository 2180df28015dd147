package io.github.llmrouter;

import io.github.llmrouter.load.LoadMonitoring;
import static io.github.llmrouter.Fixtures.CHAT_JSON;
import static io.github.llmrouter.Fixtures.chat;
import static io.github.llmrouter.Fixtures.ok;
import static org.assertj.core.api.Assertions.assertThat;

import io.github.llmrouter.api.ChatMessage;
import io.github.llmrouter.api.ChatRequest;
import io.github.llmrouter.api.ChatResponse;
import io.github.llmrouter.api.CompletionRequest;
import io.github.llmrouter.api.CompletionResponse;
import io.github.llmrouter.api.EmbeddingRequest;
import io.github.llmrouter.api.EmbeddingResponse;
import io.github.llmrouter.internal.transport.Json;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import mockwebserver3.MockWebServer;
import mockwebserver3.RecordedRequest;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

class LlmClientTest {
  private final MockWebServer server = new MockWebServer();
  private LlmClient client;

  @BeforeEach
  void start() throws Exception {
    server.start(java.net.InetAddress.getLoopbackAddress(), 0);
    client = LlmClient.builder().replicas(server.url("/").toString()).apiKey("sk-test-secret")
        .loadMonitoring(LoadMonitoring.disabled())
        .modelDiscoveryInterval(Duration.ZERO).build(); // every exchange is scripted
  }

  @AfterEach
  void stop() {
    client.close();
    server.close();
  }

  @Test
  void chatSendsOpenAiJsonWithPassThroughFieldsAndBearerToken() throws Exception {
    server.enqueue(ok(CHAT_JSON));
    ChatRequest request = ChatRequest.builder("llama")
        .message(ChatMessage.system("sys"))
        .message(ChatMessage.user("hi"))
        .maxTokens(32)
        .temperature(0.5)
        .extra("top_k", 40)
        .extra("min_p", 0.05)
        .extra("repetition_penalty", 1.1)
        .extra("chat_template_kwargs", Map.of("enable_thinking", false))
        .routingKey("session-9")
        .build();

    client.chat(request);

    RecordedRequest recorded = server.takeRequest(5, TimeUnit.SECONDS);
    assertThat(recorded.getUrl().encodedPath()).isEqualTo("/v1/chat/completions");
    assertThat(recorded.getHeaders().get("Authorization")).isEqualTo("Bearer sk-test-secret");
    JsonNode body = Json.MAPPER.readTree(recorded.getBody().utf8());
    assertThat(body.get("model").asString()).isEqualTo("llama");
    assertThat(body.get("messages")).hasSize(2);
    assertThat(body.get("messages").get(1).get("role").asString()).isEqualTo("user");
    assertThat(body.get("max_tokens").asInt()).isEqualTo(32);
    assertThat(body.get("top_k").asInt()).isEqualTo(40);
    assertThat(body.get("min_p").asDouble()).isEqualTo(0.05);
    assertThat(body.get("repetition_penalty").asDouble()).isEqualTo(1.1);
    assertThat(body.get("chat_template_kwargs").get("enable_thinking").asBoolean()).isFalse();
    assertThat(body.has("stream")).isFalse();
    assertThat(body.has("routingKey")).isFalse();
    assertThat(body.has("routing_key")).isFalse();
    assertThat(body.has("extra")).isFalse();
  }

  @Test
  void chatResponseExposesUsageAndKeepsUnknownFields() throws Exception {
    server.enqueue(ok(CHAT_JSON));

    ChatResponse response = client.chat(chat("hi"));

    assertThat(response.text()).isEqualTo("hello");
    assertThat(response.choices().get(0).finishReason()).isEqualTo("stop");
    assertThat(response.usage().promptTokens()).isEqualTo(12);
    assertThat(response.usage().completionTokens()).isEqualTo(3);
    assertThat(response.usage().cachedTokens()).isEqualTo(8);
    assertThat(response.extra()).containsEntry("system_fingerprint", "fp")
        .containsKey("kv_transfer_params");
    assertThat(response.choices().get(0).message().extra())
        .containsEntry("reasoning_content", "hmm");

    // Unknown fields round-trip: writing the response back yields the same JSON tree.
    JsonNode original = Json.MAPPER.readTree(CHAT_JSON);
    JsonNode rewritten = Json.MAPPER.readTree(Json.MAPPER.writeValueAsString(response));
    assertThat(rewritten.get("kv_transfer_params")).isEqualTo(original.get("kv_transfer_params"));
    assertThat(rewritten.get("system_fingerprint")).isEqualTo(original.get("system_fingerprint"));
    assertThat(rewritten.get("usage")).isEqualTo(original.get("usage"));
    assertThat(rewritten.get("choices").get(0).get("message"))
        .isEqualTo(original.get("choices").get(0).get("message"));
  }

  @Test
  void chatAsyncCompletes() throws Exception {
    server.enqueue(ok(CHAT_JSON));
    ChatResponse response = client.chatAsync(chat("hi")).get(10, TimeUnit.SECONDS);
    assertThat(response.text()).isEqualTo("hello");
    assertThat(client.inFlight(client.replicas().get(0).id())).isZero();
  }

  @Test
  void completionAndEmbeddings() throws Exception {
    server.enqueue(ok("{\"id\":\"cmpl\",\"object\":\"text_completion\",\"choices\":[{\"index\":0,"
        + "\"text\":\" world\",\"finish_reason\":\"length\"}],\"usage\":{\"prompt_tokens\":1,"
        + "\"completion_tokens\":1,\"total_tokens\":2}}"));
    server.enqueue(ok("{\"object\":\"list\",\"model\":\"e\",\"data\":[{\"object\":\"embedding\","
        + "\"index\":0,\"embedding\":[0.25,-0.5]},{\"object\":\"embedding\",\"index\":1,"
        + "\"embedding\":[1.0,0.0]}],\"usage\":{\"prompt_tokens\":2,\"total_tokens\":2}}"));

    CompletionResponse completion = client.completion(
        CompletionRequest.builder("m", "hello").maxTokens(1).extra("top_k", 5).build());
    EmbeddingResponse embeddings = client.embeddings(
        EmbeddingRequest.builder("e", List.of("a", "b")).build());

    assertThat(completion.text()).isEqualTo(" world");
    assertThat(completion.choices().get(0).finishReason()).isEqualTo("length");
    RecordedRequest completionRequest = server.takeRequest(5, TimeUnit.SECONDS);
    assertThat(completionRequest.getUrl().encodedPath()).isEqualTo("/v1/completions");
    assertThat(Json.MAPPER.readTree(completionRequest.getBody().utf8()).get("top_k").asInt()).isEqualTo(5);
    assertThat(embeddings.data()).hasSize(2);
    assertThat(embeddings.data().get(0).vector()).containsExactly(0.25f, -0.5f);
    assertThat(server.takeRequest(5, TimeUnit.SECONDS).getUrl().encodedPath()).isEqualTo("/v1/embeddings");
  }

  @Test
  void replicaUrlMayEndInV1() throws Exception {
    LlmClient other = LlmClient.builder().replicas(server.url("/v1").toString())
        .loadMonitoring(LoadMonitoring.disabled()).modelDiscoveryInterval(Duration.ZERO).build();
    try {
      server.enqueue(ok(CHAT_JSON));
      other.chat(chat("x"));
      assertThat(server.takeRequest(5, TimeUnit.SECONDS).getUrl().encodedPath())
          .as("the /v1 of the base URL is not repeated").isEqualTo("/v1/chat/completions");
      assertThat(server.getRequestCount()).isEqualTo(1);
    } finally {
      other.close();
    }
  }

  @Test
  void manyConcurrentCallsReachOneReplicaAtOnce() throws Exception {
    // OkHttp's default dispatcher allows 5 concurrent calls per host; LLM streams need far more.
    int concurrent = 12;
    java.util.concurrent.CountDownLatch allArrived = new java.util.concurrent.CountDownLatch(concurrent);
    server.setDispatcher(new mockwebserver3.Dispatcher() {
      @Override
      public mockwebserver3.MockResponse dispatch(RecordedRequest request) throws InterruptedException {
        allArrived.countDown();
        allArrived.await(10, TimeUnit.SECONDS);
        return ok(CHAT_JSON);
      }
    });
    List<java.util.concurrent.CompletableFuture<ChatResponse>> calls = new java.util.ArrayList<>();
    for (int i = 0; i < concurrent; i++) calls.add(client.chatAsync(chat("hi " + i)));

    assertThat(allArrived.await(10, TimeUnit.SECONDS)).as("all requests in flight together").isTrue();
    for (var call : calls) assertThat(call.get(10, TimeUnit.SECONDS).text()).isEqualTo("hello");
  }

  @Test
  void aCallerSuppliedOkHttpClientSharesItsConnectionPool() {
    okhttp3.OkHttpClient shared = new okhttp3.OkHttpClient();
    server.enqueue(ok(CHAT_JSON));
    try (LlmClient sharing = LlmClient.builder().replicas(server.url("/").toString())
        .okHttpClient(shared).loadMonitoring(LoadMonitoring.disabled())
        .modelDiscoveryInterval(Duration.ZERO).build()) {
      sharing.chat(chat("hi"));
    }
    assertThat(shared.connectionPool().connectionCount()).isEqualTo(1);
    assertThat(shared.dispatcher().executorService().isShutdown())
        .as("closing the client leaves the caller's threads alone").isFalse();
    shared.connectionPool().evictAll();
  }

  @Test
  void inFlightReturnsToZeroAfterCalls() {
    server.enqueue(ok(CHAT_JSON));
    client.chat(chat("hi"));
    assertThat(client.inFlight(client.replicas().get(0).id())).isZero();
  }
}
