package io.github.llmrouter;

import static io.github.llmrouter.Fixtures.CHAT_JSON;
import static io.github.llmrouter.Fixtures.chat;
import static io.github.llmrouter.Fixtures.ok;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.github.llmrouter.api.LlmException;
import io.github.llmrouter.load.LoadMonitoring;
import io.github.llmrouter.replica.Replica;
import java.time.Duration;
import java.net.InetAddress;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import mockwebserver3.MockWebServer;
import mockwebserver3.RecordedRequest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Bad settings fail at build() naming the knob, the header and the replica, never showing a
 * secret; at call time nothing but an LlmException escapes, and async calls never throw.
 */
class SettingsValidationTest {
  private static final String SECRET = "s3cr3t-t0ken";

  @ParameterizedTest
  @ValueSource(strings = {SECRET + "\n", SECRET + "\r\n", "Bearer " + SECRET + "\u0000",
      SECRET + "\u00e9", "\u4e2d" + SECRET, " " + SECRET, SECRET + "\t", "a\nb" + SECRET})
  void aReplicaHeaderValueThatIsNotAFieldValueFailsAtBuildWithoutShowingIt(String value) {
    Replica.Builder builder = Replica.builder("http://10.0.0.7:8000").header("X-Token", value);

    assertThatThrownBy(builder::build).isInstanceOf(IllegalArgumentException.class)
        .message().contains("X-Token").contains("replica 10.0.0.7:8000")
        .doesNotContain(SECRET).doesNotContain(value.strip());
  }

  @ParameterizedTest
  @ValueSource(strings = {"", "X Token", "X-Token:", "X-T\u00f6ken", "X-Token\n"})
  void anInvalidHeaderNameFailsAtBuild(String name) {
    assertThatThrownBy(() -> Replica.builder("http://10.0.0.7:8000").header(name, "v").build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("replica 10.0.0.7:8000").hasMessageContaining("header name");
  }

  @Test
  void validHeadersPass() {
    Replica r = Replica.builder("http://10.0.0.7:8000").header("X-Tenant", "search team")
        .header("X-Empty", "").header("X-Tab", "a\tb").build();
    assertThat(r.headers()).containsEntry("X-Tenant", "search team");
  }

  @ParameterizedTest
  @ValueSource(strings = {SECRET + "\u0000", SECRET + "\u00e9", SECRET + "\n", " " + SECRET})
  void anApiKeyThatIsNotAHeaderValueFailsAtBuildWithoutShowingIt(String key) {
    assertThatThrownBy(() -> LlmClient.builder().replicas("http://127.0.0.1:1").apiKey(key)
        .build()).isInstanceOf(IllegalArgumentException.class)
        .message().contains("apiKey").doesNotContain(SECRET);
  }

  @Test
  void aNullApiKeyMeansNoKey() throws Exception {
    try (MockWebServer server = new MockWebServer()) {
      server.start(InetAddress.getLoopbackAddress(), 0);
      server.enqueue(ok(CHAT_JSON));
      try (LlmClient client = LlmClient.builder().replicas(server.url("/").toString())
          .apiKey(System.getenv("LLM_ROUTER_SURELY_UNSET_VARIABLE"))
          .loadMonitoring(LoadMonitoring.disabled())
          .modelDiscoveryInterval(Duration.ZERO).build()) {
        assertThat(client.toString()).contains("apiKey=none");
        client.chat(chat("hi"));
      }
      RecordedRequest request = server.takeRequest(5, TimeUnit.SECONDS);
      assertThat(request.getHeaders().get("Authorization")).isNull();
    }
  }

  @ParameterizedTest
  @ValueSource(strings = {"http://user:" + SECRET + "@10.0.0.7:8000",
      "https://" + SECRET + "@gw.example/v1", "http://user:" + SECRET + "@10.0.0.7:8000/v1?x=1",
      "htp://user:" + SECRET + "@10.0.0.7:8000", "user:" + SECRET + "@10.0.0.7:8000",
      "http://u:p?" + SECRET + "@host"})
  void credentialsInABaseUrlAreRejectedAndNeverShown(String url) {
    assertThatThrownBy(() -> Replica.of(url)).isInstanceOf(IllegalArgumentException.class)
        .message().doesNotContain(SECRET);
    assertThatThrownBy(() -> LlmClient.builder().replicas(url).build())
        .isInstanceOf(IllegalArgumentException.class).message().doesNotContain(SECRET);
  }

  @Test
  void credentialsInABaseUrlPointToAHeader() {
    assertThatThrownBy(() -> Replica.of("http://user:pw@10.0.0.7:8000"))
        .hasMessageContaining("must not carry credentials").hasMessageContaining("header");
  }

  @Test
  void aQueryInABaseUrlIsRejectedRatherThanDropped() {
    assertThatThrownBy(() -> Replica.of("http://10.0.0.7:8000/v1?api-version=2"))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("query");
  }

  @Test
  void aClosedClientFailsCallsWithAnLlmExceptionAndAsyncCallsWithAFailedFuture() {
    LlmClient client = LlmClient.builder().replicas("http://127.0.0.1:1")
        .loadMonitoring(LoadMonitoring.disabled()).modelDiscoveryInterval(Duration.ZERO).build();
    client.close();

    assertThatThrownBy(() -> client.chat(chat("x"))).isInstanceOf(LlmException.class)
        .hasMessageContaining("closed");
    CompletableFuture<?> future = client.chatAsync(chat("x"));
    assertThatThrownBy(() -> future.get(5, TimeUnit.SECONDS))
        .isInstanceOf(ExecutionException.class).hasCauseInstanceOf(LlmException.class);
    for (CompletableFuture<?> f : List.of(
        client.completionAsync(io.github.llmrouter.api.CompletionRequest.builder("m", "p").build()),
        client.embeddingsAsync(io.github.llmrouter.api.EmbeddingRequest.builder("m",
            List.of("p")).build()))) {
      assertThat(f).isCompletedExceptionally();
    }
  }
}
