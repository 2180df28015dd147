package io.github.llmrouter.examples;

import io.github.llmrouter.LlmClient;
import io.github.llmrouter.api.ChatChunk;
import io.github.llmrouter.api.ChatMessage;
import io.github.llmrouter.api.ChatRequest;
import io.github.llmrouter.api.ChatResponse;
import io.github.llmrouter.api.ResponseStream;
import io.github.llmrouter.dispatch.RetryPolicy;
import io.github.llmrouter.routing.PrefixHash;
import io.github.llmrouter.emulator.EmulatedReplica;
import java.time.Duration;

/**
 * The smallest useful program: build a client for a fleet, make a blocking call and a streamed
 * one. Replace the emulated replicas with your servers' base URLs.
 */
public final class QuickStart {
  private QuickStart() {}

  public static void main(String[] args) {
    try (EmulatedReplica a = EmulatedReplica.builder().build().start();
        EmulatedReplica b = EmulatedReplica.builder().build().start();
        LlmClient client = LlmClient.builder()
            .replicas(a.baseUrl(), b.baseUrl())              // e.g. "http://10.0.0.7:8000"
            .routingPolicy(PrefixHash.builder().prefixChars(100).loadFactor(1.25).build())
            .retryPolicy(RetryPolicy.builder().maxAttempts(3).build())
            .firstByteTimeout(Duration.ofSeconds(30))
            .build()) {

      ChatRequest request = ChatRequest.builder("emulated-model")
          .message(ChatMessage.system("You are a helpful assistant."))
          .message(ChatMessage.user("What does a KV cache store?"))
          .maxTokens(16)
          .extra("top_k", 20) // vLLM sampling parameters pass through untouched
          .build();

      ChatResponse response = client.chat(request);
      System.out.println("blocking: " + response.text() + " " + response.usage());

      StringBuilder streamed = new StringBuilder();
      try (ResponseStream<ChatChunk> stream = client.chatStream(request)) {
        for (ChatChunk chunk : stream) streamed.append(chunk.text());
        System.out.println("streamed from " + stream.replicaId() + ": " + streamed);
      }
    }
  }
}
