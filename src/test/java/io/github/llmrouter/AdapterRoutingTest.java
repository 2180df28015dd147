package io.github.llmrouter;

import static io.github.llmrouter.Fixtures.answeredBy;
import static org.assertj.core.api.Assertions.assertThat;

import io.github.llmrouter.api.ChatMessage;
import io.github.llmrouter.api.ChatRequest;
import io.github.llmrouter.emulator.EmulatedReplica;
import io.github.llmrouter.load.LoadMonitoring;
import io.github.llmrouter.routing.RoutingPolicy;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * LoRA adapters listed by vLLM-like replicas (each with its base model as {@code parent}): an
 * adapter's calls keep to the replicas that have it loaded, until those carry more than their
 * share of the load.
 */
class AdapterRoutingTest {
  private static final String[] ADAPTERS = {"lora-0", "lora-1", "lora-2", "lora-3", "lora-4",
      "lora-5"};
  private final List<EmulatedReplica> servers = new ArrayList<>();

  @AfterEach
  void stop() {
    servers.forEach(EmulatedReplica::close);
  }

  private void startFleet(int replicas, EmulatedReplica.Builder template) {
    for (int i = 0; i < replicas; i++) {
      servers.add(template.id("r" + i).build().start());
    }
  }

  private static EmulatedReplica.Builder vllmLike() {
    return EmulatedReplica.builder().model("base").rejectUnknownModels()
        .loraAdapters(8, ADAPTERS);
  }

  private LlmClientBuilder client() {
    LlmClientBuilder b = LlmClient.builder();
    for (EmulatedReplica s : servers) b.replicas(s.baseUrl());
    return b;
  }

  private long loraLoads() {
    return servers.stream().mapToLong(EmulatedReplica::loraLoads).sum();
  }

  private static ChatRequest ask(String model, int i) {
    return ChatRequest.builder(model).message(ChatMessage.user("question " + i)).maxTokens(2)
        .build();
  }

  @Test
  void eachAdaptersCallsKeepToTheReplicaThatLoadedItWhateverThePolicy() {
    startFleet(4, vllmLike().instant());
    for (RoutingPolicy policy : List.of(RoutingPolicy.roundRobin(), RoutingPolicy.cacheAware())) {
      long before = loraLoads();
      Map<String, Set<String>> replicasOf = new HashMap<>();
      try (LlmClient client = client().routingPolicy(policy).build()) {
        for (int i = 0; i < 60; i++) {
          String adapter = ADAPTERS[i % ADAPTERS.length];
          replicasOf.computeIfAbsent(adapter, a -> new HashSet<>())
              .add(answeredBy(client.chat(ask(adapter, i))));
        }
        assertThat(answeredBy(client.chat(ask("base", 0)))).startsWith("r");
      }
      assertThat(replicasOf).as(policy.toString()).hasSize(ADAPTERS.length)
          .allSatisfy((adapter, replicas) -> assertThat(replicas).as(adapter).hasSize(1));
      // A new client keeps each adapter where the last one did (the same order for all), so
      // nothing loads again.
      assertThat(loraLoads() - before).as(policy.toString())
          .isEqualTo(before == 0 ? ADAPTERS.length : 0);
    }
    // Spread over the fleet, not all on one replica.
    Set<String> used = new HashSet<>();
    for (EmulatedReplica s : servers) {
      if (s.loraLoads() > 0) used.add(s.id());
    }
    assertThat(used).hasSizeGreaterThan(1);
  }

  @Test
  void aHotAdapterSpreadsToAnotherReplicaOnceItsReplicaIsPastItsShare() {
    startFleet(4, vllmLike().baseLatency(Duration.ofSeconds(2)).decodeInterval(Duration.ZERO));
    try (LlmClient client = client().routingPolicy(RoutingPolicy.roundRobin())
        .loadMonitoring(LoadMonitoring.disabled()).build()) {
      client.chat(ask("base", 0)); // the listings are in
      List<CompletableFuture<String>> calls = new ArrayList<>();
      for (int i = 0; i < 8; i++) {
        calls.add(client.chatAsync(ask("lora-0", i)).thenApply(Fixtures::answeredBy));
      }
      Set<String> replicas = new HashSet<>();
      calls.forEach(c -> replicas.add(c.join()));
      // In flight together, 8 calls: the first replica takes them while within 1.5 times the
      // mean plus one, then the adapter's next replica does; never all four.
      assertThat(replicas).hasSizeBetween(2, 3);
      assertThat(loraLoads()).isEqualTo(replicas.size());
    }
  }
}
