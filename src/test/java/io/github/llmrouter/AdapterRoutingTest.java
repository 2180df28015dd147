package io.github.llmrouter;

import static io.github.llmrouter.Fixtures.answeredBy;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.github.llmrouter.api.ChatMessage;
import io.github.llmrouter.api.ChatRequest;
import io.github.llmrouter.api.NoReplicaAvailableException;
import io.github.llmrouter.emulator.EmulatedReplica;
import io.github.llmrouter.load.LoadMonitoring;
import io.github.llmrouter.replica.LoraAdapter;
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

  private static LoraAdapter adapter(String name) {
    return LoraAdapter.of(name, "base", "/adapters/" + name);
  }

  /** Waits, bounded, until every replica has been scraped twice (its max_lora is known). */
  private void awaitScrapes() {
    long until = System.nanoTime() + Duration.ofSeconds(20).toNanos();
    while (servers.stream().anyMatch(s -> s.stats().metricsRequests() < 2)) {
      assertThat(System.nanoTime() - until).as("scrapes within 20 s").isNegative();
      Thread.onSpinWait();
      try {
        Thread.sleep(20);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new AssertionError(e);
      }
    }
  }

  @Test
  void adaptersLoadedOnDemandStayWithinMaxLoraAndOnlyTheClientsOwnAreUnloaded() {
    // r0 holds an adapter someone else loaded; each replica runs two at once.
    servers.add(EmulatedReplica.builder().model("base").rejectUnknownModels()
        .loraAdapters(2, "theirs").id("r0").instant().build().start());
    servers.add(EmulatedReplica.builder().model("base").rejectUnknownModels()
        .loraAdapters(2).id("r1").instant().build().start());
    List<String> names = List.of("a1", "a2", "a3", "a4", "a1", "a3", "a2", "a4");
    try (LlmClient client = client().loadAdaptersOnDemand(adapter("a1"), adapter("a2"),
        adapter("a3"), adapter("a4")).build()) {
      client.chat(ask("base", 0)); // the listings are in
      awaitScrapes();
      for (int i = 0; i < names.size(); i++) {
        String name = names.get(i);
        String by = answeredBy(client.chat(ask(name, i)));
        EmulatedReplica answering = servers.get(by.equals("r0") ? 0 : 1);
        assertThat(answering.adapters()).as("call %d for %s", i, name).contains(name);
        assertThat(servers).allSatisfy(s -> assertThat(s.adapters()).hasSizeLessThanOrEqualTo(2));
        assertThat(servers.get(0).adapters()).contains("theirs");
      }
      assertThat(answeredBy(client.chat(ask("theirs", 99)))).isEqualTo("r0");
    }
    // Three of the client's adapters fit at once (one beside "theirs", two on r1): four took
    // unloading some of its own.
    assertThat(loraLoads()).isGreaterThanOrEqualTo(5);
  }

  @Test
  void anAdapterLoadedOnDemandIsLoadedOnOneMoreReplicaWhenItsReplicaIsPastItsShare() {
    startFleet(3, EmulatedReplica.builder().model("base").rejectUnknownModels().loraAdapters(4)
        .baseLatency(Duration.ofSeconds(2)).decodeInterval(Duration.ZERO));
    try (LlmClient client = client().loadMonitoring(LoadMonitoring.disabled())
        .loadAdaptersOnDemand(adapter("hot"), adapter("cold")).build()) {
      client.chat(ask("cold", 0));
      assertThat(servers.stream().filter(s -> s.adapters().contains("cold"))).hasSize(1);
      // Eight calls at once, on the replica that loaded it (the only one that lists it): past
      // its share of the fleet's load, so one more replica loads it. Batches until it has, at
      // most four (on a busy machine the calls of a batch may not all be in flight together).
      for (int batch = 0; batch < 4 && listing("hot") < 2; batch++) {
        hotCalls(client).forEach(CompletableFuture::join);
      }
      assertThat(listing("hot")).as("replicas that loaded the hot adapter").isGreaterThan(1);
      // The cold adapter stayed on one replica.
      assertThat(servers.stream().filter(s -> s.adapters().contains("cold"))).hasSize(1);
    }
  }

  private long listing(String adapter) {
    return servers.stream().filter(s -> s.adapters().contains(adapter)).count();
  }

  /** Eight calls of the hot adapter at once, each to the replica that answers it. */
  private static List<CompletableFuture<String>> hotCalls(LlmClient client) {
    List<CompletableFuture<String>> calls = new ArrayList<>();
    for (int i = 0; i < 8; i++) {
      calls.add(client.chatAsync(ask("hot", i)).thenApply(Fixtures::answeredBy));
    }
    return calls;
  }

  @Test
  void aCallForAnAdapterNoReplicaCanLoadWaitsUntilItsDeadlineAndNamesIt() {
    servers.add(EmulatedReplica.builder().model("base").rejectUnknownModels()
        .loraAdapters(1, "theirs").id("r0").instant().build().start());
    try (LlmClient client = client().callTimeout(Duration.ofSeconds(2))
        .loadAdaptersOnDemand(adapter("a1")).build()) {
      client.chat(ask("base", 0));
      awaitScrapes();
      assertThatThrownBy(() -> client.chat(ask("a1", 1)))
          .isInstanceOf(NoReplicaAvailableException.class).hasMessageContaining("'a1'");
      assertThat(servers.get(0).adapters()).containsExactly("theirs");
    }
  }

  @Test
  void aReplicaThatRefusesToLoadIsPassedOverForTheNext() {
    servers.add(EmulatedReplica.builder().model("base").rejectUnknownModels().id("plain")
        .instant().build().start()); // no adapters: no load endpoint (404)
    servers.add(EmulatedReplica.builder().model("base").rejectUnknownModels()
        .loraAdapters(4).id("lora").instant().build().start());
    try (LlmClient client = client().loadAdaptersOnDemand(adapter("a1"), adapter("a2"),
        adapter("a3")).build()) {
      for (String name : List.of("a1", "a2", "a3", "a1")) {
        assertThat(answeredBy(client.chat(ask(name, 0)))).as(name).isEqualTo("lora");
      }
    }
  }

  @Test
  void loadingOnDemandNeedsDiscoveryAndDistinctNames() {
    assertThatThrownBy(() -> LlmClient.builder().replicas("http://127.0.0.1:1")
        .modelDiscoveryInterval(Duration.ZERO).loadAdaptersOnDemand(adapter("a1")).build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("loadAdaptersOnDemand").hasMessageContaining("modelDiscoveryInterval");
    assertThatThrownBy(() -> LlmClient.builder().replicas("http://127.0.0.1:1")
        .loadAdaptersOnDemand(adapter("a1"), LoraAdapter.of("a1", "other", "/x")).build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("loadAdaptersOnDemand names adapter 'a1' twice");
    assertThatThrownBy(() -> LoraAdapter.of("a", "a", "/x"))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("own base model");
    assertThatThrownBy(() -> LoraAdapter.of("a", "b", " "))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("path");
    assertThat(adapter("a1")).isEqualTo(adapter("a1")).hasSameHashCodeAs(adapter("a1"))
        .hasToString("LoraAdapter{a1 on base from /adapters/a1}");
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
