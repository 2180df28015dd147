package io.github.llmrouter.examples;

import io.github.llmrouter.LlmClient;
import io.github.llmrouter.api.ChatChunk;
import io.github.llmrouter.api.ChatMessage;
import io.github.llmrouter.api.ChatRequest;
import io.github.llmrouter.api.ResponseStream;
import io.github.llmrouter.emulator.EmulatedReplica;
import io.github.llmrouter.micrometer.LlmRouterMetrics;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.util.stream.Collectors;

/**
 * The router's meters in a Prometheus scrape: three emulated replicas, one of them stopped half
 * way through, and what a Prometheus server would read from the application afterwards (the
 * histogram buckets left out, for brevity).
 */
public final class ObservabilityExample {
  private ObservabilityExample() {}

  public static void main(String[] args) {
    System.out.println(run());
  }

  /** Runs the example and returns the scrape's {@code llm_router_} lines. */
  static String run() {
    PrometheusMeterRegistry prometheus = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    try (EmulatedReplica a = EmulatedReplica.builder().id("a").build().start();
        EmulatedReplica b = EmulatedReplica.builder().id("b").build().start();
        EmulatedReplica c = EmulatedReplica.builder().id("c").build().start();
        LlmClient client = LlmClient.builder()
            .replicas(a.baseUrl(), b.baseUrl(), c.baseUrl())
            .listener(LlmRouterMetrics.of(prometheus))   // the one line it takes
            .build()) {
      for (int i = 0; i < 60; i++) {
        if (i == 30) b.close(); // a replica stops: its calls fail over to the others
        ChatRequest request = ChatRequest.builder("emulated-model")
            .message(ChatMessage.system("You are a support agent for ACME routers."))
            .message(ChatMessage.user("Question " + i + ": how do I reset my router?"))
            .maxTokens(8)
            .build();
        if (i % 3 == 0) {
          try (ResponseStream<ChatChunk> stream = client.chatStream(request)) {
            stream.forEach(chunk -> { });
          }
        } else {
          client.chat(request);
        }
      }
      return prometheus.scrape().lines()
          .filter(line -> line.contains("llm_router_") && !line.contains("_bucket{"))
          .collect(Collectors.joining("\n"));
    }
  }
}
