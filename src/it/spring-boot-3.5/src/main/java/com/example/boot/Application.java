package com.example.boot;

import io.github.llmrouter.LlmClient;
import io.github.llmrouter.api.ChatChunk;
import io.github.llmrouter.api.ChatMessage;
import io.github.llmrouter.api.ChatRequest;
import io.github.llmrouter.api.ChatResponse;
import io.github.llmrouter.api.ResponseStream;
import io.github.llmrouter.emulator.EmulatedReplica;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.springframework.boot.CommandLineRunner;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.SpringBootVersion;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.context.annotation.Bean;

/**
 * A Spring Boot application with an {@link LlmClient} bean over two emulated replicas on
 * loopback; the runner makes one blocking, one asynchronous and one streamed call, and the
 * application exits non-zero if any of them fails.
 */
@SpringBootApplication
public class Application {

  public static void main(String[] args) {
    System.exit(SpringApplication.exit(SpringApplication.run(Application.class, args)));
  }

  @Bean
  EmulatedReplica replicaA() {
    return EmulatedReplica.builder().id("a").build().start();
  }

  @Bean
  EmulatedReplica replicaB() {
    return EmulatedReplica.builder().id("b").build().start();
  }

  @Bean
  LlmClient llmClient(List<EmulatedReplica> replicas) {
    return LlmClient.builder()
        .replicas(replicas.stream().map(EmulatedReplica::baseUrl).toArray(String[]::new))
        .build();
  }

  @Bean
  CommandLineRunner routedCalls(LlmClient client) {
    return args -> {
      ChatRequest request = ChatRequest.builder(EmulatedReplica.DEFAULT_MODEL)
          .message(ChatMessage.user("Which replica holds my prefix?"))
          .maxTokens(8)
          .build();
      ChatResponse blocking = client.chat(request);
      ChatResponse async = client.chatAsync(request).get(60, TimeUnit.SECONDS);
      StringBuilder streamed = new StringBuilder();
      try (ResponseStream<ChatChunk> stream = client.chatStream(request)) {
        for (ChatChunk chunk : stream) streamed.append(chunk.text());
      }
      String text = blocking.text();
      if (text == null || text.isEmpty() || !text.equals(async.text())
          || !text.equals(streamed.toString())) {
        throw new IllegalStateException("calls disagree: '" + blocking.text() + "', '"
            + async.text() + "', '" + streamed + "'");
      }
      System.out.println("Spring Boot " + SpringBootVersion.getVersion() + " on Java "
          + System.getProperty("java.version") + ": blocking, async and streaming calls routed ("
          + text + ")");
    };
  }
}
