package io.github.llmrouter;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.github.llmrouter.api.ChatMessage;
import io.github.llmrouter.api.ChatRequest;
import io.github.llmrouter.dispatch.RetryPolicy;
import io.github.llmrouter.replica.Replica;
import io.github.llmrouter.routing.PrefixHash;
import java.time.Duration;
import java.util.List;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.Test;

/** Invalid configuration fails at build() with a message naming the knob and its range. */
class ConfigurationTest {
  private static void rejects(UnaryOperator<LlmClientBuilder> config, String... messageParts) {
    assertThatThrownBy(() -> config.apply(LlmClient.builder().replicas("http://127.0.0.1:1")).build())
        .isInstanceOf(IllegalArgumentException.class)
        .message().contains(messageParts);
  }

  @Test
  void clientKnobs() {
    rejects(b -> b.connectTimeout(Duration.ZERO), "connectTimeout", "(0, 5 min]");
    rejects(b -> b.connectTimeout(Duration.ofMinutes(6)), "connectTimeout");
    rejects(b -> b.firstByteTimeout(Duration.ofSeconds(-1)), "firstByteTimeout", "(0, 1 h]");
    rejects(b -> b.streamIdleTimeout(Duration.ZERO), "streamIdleTimeout");
    rejects(b -> b.stallTimeout(Duration.ofSeconds(-1)), "stallTimeout", "[0, 10 min]");
    rejects(b -> b.stallTimeout(Duration.ofMinutes(11)), "stallTimeout");
    rejects(b -> b.maxStreamResumptions(-1), "maxStreamResumptions", "[0, 10]");
    rejects(b -> b.maxStreamResumptions(11), "maxStreamResumptions");
    rejects(b -> b.callTimeout(Duration.ofDays(2)), "callTimeout", "[0, 24 h]");
    rejects(b -> b.maxConcurrentRequests(0), "maxConcurrentRequests", "[1, 65536]");
    rejects(b -> b.apiKey(" "), "apiKey");
  }

  @Test
  void withoutARoutingPolicyTheClientRoutesWithTheDefaultPolicy() {
    try (LlmClient client = LlmClient.builder().replicas("http://127.0.0.1:1").build()) {
      assertThat(client.toString())
          .contains("policy=" + io.github.llmrouter.routing.RoutingPolicy.defaultPolicy().name() + ",");
    }
  }

  @Test
  void replicas() {
    assertThatThrownBy(() -> LlmClient.builder().build())
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("replicas");
    assertThatThrownBy(() -> LlmClient.builder().replicas("not a url").build())
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("baseUrl");
    assertThatThrownBy(() -> LlmClient.builder()
            .replicas(List.of(Replica.of("http://a:1"), Replica.builder("http://b:1").id("a:1").build()))
            .build())
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("unique");
    assertThatThrownBy(() -> Replica.builder("http://a:1").weight(0))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("weight");
  }

  @Test
  void retryKnobs() {
    assertThatThrownBy(() -> RetryPolicy.builder().maxAttempts(0).build())
        .hasMessageContaining("maxAttempts").hasMessageContaining("[1, 10]");
    assertThatThrownBy(() -> RetryPolicy.builder().budgetRatio(1.5).build())
        .hasMessageContaining("budgetRatio");
    assertThatThrownBy(() -> RetryPolicy.builder().jitter(1.0).build())
        .hasMessageContaining("jitter");
    assertThatThrownBy(() -> RetryPolicy.builder().initialBackoff(Duration.ofSeconds(5))
            .maxBackoff(Duration.ofSeconds(1)).build())
        .hasMessageContaining("maxBackoff");
    assertThatThrownBy(() -> RetryPolicy.builder().retryableStatuses(java.util.Set.of(200)).build())
        .hasMessageContaining("retryableStatuses");
  }

  @Test
  void hedgeKnobs() {
    assertThatThrownBy(() -> io.github.llmrouter.dispatch.HedgePolicy.builder().percentile(0.4)
        .build()).hasMessageContaining("percentile").hasMessageContaining("[0.5, 0.999]");
    assertThatThrownBy(() -> io.github.llmrouter.dispatch.HedgePolicy.builder()
        .minDelay(Duration.ZERO).build()).hasMessageContaining("minDelay");
    assertThatThrownBy(() -> io.github.llmrouter.dispatch.HedgePolicy.builder()
        .maxHedgedShare(0.6).build()).hasMessageContaining("maxHedgedShare");
    assertThatThrownBy(() -> io.github.llmrouter.dispatch.HedgePolicy.builder()
        .percentile(Double.NaN).build()).hasMessageContaining("percentile");
    assertThat(io.github.llmrouter.dispatch.HedgePolicy.disabled().enabled()).isFalse();
    assertThat(io.github.llmrouter.dispatch.HedgePolicy.defaults()).hasToString(
        "HedgePolicy{percentile=0.95, minDelay=PT0.05S, maxHedgedShare=0.05}");
  }

  @Test
  void policyKnobs() {
    assertThatThrownBy(() -> PrefixHash.builder().loadFactor(0.9).build())
        .hasMessageContaining("loadFactor").hasMessageContaining("[1.0, 100]");
    assertThatThrownBy(() -> PrefixHash.builder().prefixChars(0).build())
        .hasMessageContaining("prefixChars");
  }

  @Test
  void requests() {
    assertThatThrownBy(() -> ChatRequest.builder("m").build())
        .hasMessageContaining("at least one message");
    assertThatThrownBy(() -> ChatRequest.builder("m").message(ChatMessage.user("x"))
            .extra("stream", true))
        .hasMessageContaining("stream");
  }
}
