package io.github.llmrouter;

import static io.github.llmrouter.Fixtures.answeredBy;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.github.llmrouter.api.ChatChunk;
import io.github.llmrouter.api.ChatMessage;
import io.github.llmrouter.api.ChatRequest;
import io.github.llmrouter.api.ReplicaHttpException;
import io.github.llmrouter.api.ResponseStream;
import io.github.llmrouter.emulator.EmulatedReplica;
import io.github.llmrouter.micrometer.LlmRouterMetrics;
import io.github.llmrouter.observe.FleetSnapshot;
import io.github.llmrouter.replica.Replica;
import io.github.llmrouter.routing.RoutingPolicy;
import io.github.llmrouter.testing.EventRecorder;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Replicas given as plain URLs: the client asks each which models it serves ({@code
 * /v1/models}) and routes by the answers, from the first call on.
 */
class ModelDiscoveryTest {
  private static final Duration AWAIT = Duration.ofSeconds(20);
  private final List<EmulatedReplica> servers = new ArrayList<>();

  @AfterEach
  void stop() {
    servers.forEach(EmulatedReplica::close);
  }

  /** A replica that lists {@code models} and answers any model (as llama.cpp's server does). */
  private EmulatedReplica start(String id, String... models) {
    return start(EmulatedReplica.builder(), id, models);
  }

  private EmulatedReplica start(EmulatedReplica.Builder b, String id, String... models) {
    for (String m : models) b.model(m);
    EmulatedReplica s = b.id(id).instant().build().start();
    servers.add(s);
    return s;
  }

  private LlmClientBuilder client() {
    LlmClientBuilder b = LlmClient.builder();
    for (EmulatedReplica s : servers) b.replicas(s.baseUrl());
    return b;
  }

  private static ChatRequest ask(String model, int i) {
    return ChatRequest.builder(model).message(ChatMessage.user("question " + i)).maxTokens(2)
        .build();
  }

  @Test
  void everyCallFromTheFirstReachesAReplicaOfItsModelByDiscoveryAlone() {
    start("alpha-0", "alpha");
    start("alpha-1", "alpha");
    start("beta-0", "beta");
    for (RoutingPolicy policy : List.of(RoutingPolicy.cacheAware(), RoutingPolicy.roundRobin())) {
      try (LlmClient client = client().routingPolicy(policy).build()) {
        // Calls of both models at once, before any listing can have been answered.
        List<CompletableFuture<String>> first = new ArrayList<>();
        for (int i = 0; i < 6; i++) {
          String model = i % 2 == 0 ? "beta" : "alpha";
          first.add(client.chatAsync(ask(model, i)).thenApply(r -> model + ":" + answeredBy(r)));
        }
        assertThat(first).allSatisfy(f -> {
          String[] modelAndReplica = f.join().split(":");
          assertThat(modelAndReplica[1]).startsWith(modelAndReplica[0] + "-");
        });
        for (int i = 0; i < 60; i++) {
          String model = i % 3 == 0 ? "beta" : "alpha";
          assertThat(answeredBy(client.chat(ask(model, i)))).as("call %d for %s", i, model)
              .startsWith(model + "-");
        }
        long betaCalls = servers.get(2).stats().chatRequests();
        try (ResponseStream<ChatChunk> stream = client.chatStream(ask("beta", 99))) {
          stream.forEach(c -> { });
        }
        assertThat(servers.get(2).stats().chatRequests()).as("the stream").isEqualTo(betaCalls + 1);
      }
    }
  }

  @Test
  void theFleetViewShowsWhatEachReplicaServesAndEachModelsPart() {
    start("alpha-0", "alpha");
    start("alpha-1", "alpha");
    start("beta-0", "beta", "beta-lora");
    Replica declared = Replica.builder(start("gamma-0").baseUrl()).id("gamma-0").model("gamma")
        .build();
    try (LlmClient client = LlmClient.builder().replicas(servers.get(0).baseUrl(),
        servers.get(1).baseUrl(), servers.get(2).baseUrl()).replica(declared).build()) {
      client.chat(ask("alpha", 0)); // waits for the first listings
      FleetSnapshot fleet = client.fleet();
      assertThat(fleet.models()).containsExactly("alpha", "beta", "beta-lora", "gamma");
      assertThat(fleet.forModel("alpha").replicas()).hasSize(2)
          .allSatisfy(r -> assertThat(r.models()).containsExactly("alpha"));
      assertThat(fleet.forModel("beta-lora").replicas()).singleElement()
          .satisfies(r -> assertThat(r.models()).containsExactlyInAnyOrder("beta", "beta-lora"));
      assertThat(fleet.forModel("gamma").replicas()).singleElement()
          .satisfies(r -> assertThat(r.replicaId()).isEqualTo("gamma-0"));
      assertThat(fleet.forModel("delta").replicas()).as("every replica declares or lists")
          .isEmpty();
    }
  }

  @Test
  void eachModelAskedForHasGaugesOfItsPartOfTheFleet() {
    start("alpha-0", "alpha");
    start("alpha-1", "alpha");
    start("beta-0", "beta");
    MeterRegistry registry = new SimpleMeterRegistry();
    try (LlmClient client = client().listener(LlmRouterMetrics.of(registry)).build()) {
      client.chat(ask("alpha", 0));
      client.chat(ask("beta", 1));
      assertThat(registry.get("llm.router.model.replicas").tag("model", "alpha").gauge().value())
          .isEqualTo(2.0);
      assertThat(registry.get("llm.router.model.replicas").tag("model", "beta").gauge().value())
          .isEqualTo(1.0);
      assertThat(registry.get("llm.router.model.replicas_needed").tag("model", "alpha")
          .tag("target", "2.0").gauge().value())
          .isEqualTo(client.fleet().forModel("alpha").replicasFor(2.0));
      assertThat(registry.get("llm.router.model.waiting").tag("model", "beta").gauge().value())
          .isZero();
      assertThat(registry.find("llm.router.model.replicas").gauges()).as("a model each, no more")
          .hasSize(2);
    }
    assertThat(registry.find("llm.router.model.replicas").gauges()).as("removed on close")
        .isEmpty();
  }

  @Test
  void aModelNoReplicaListsGoesToTheReplicasAsWithoutDiscovery() {
    // llama.cpp's server lists its model file's path and answers any name with its model.
    start("a", "/models/tiny.gguf");
    start("b", "/models/tiny.gguf");
    Set<String> by = new HashSet<>();
    try (LlmClient client = client().routingPolicy(RoutingPolicy.roundRobin()).build()) {
      for (int i = 0; i < 6; i++) by.add(answeredBy(client.chat(ask("tiny", i))));
    }
    assertThat(by).containsExactlyInAnyOrder("a", "b");
    assertThat(servers).allSatisfy(s -> assertThat(s.stats().modelsRequests()).isPositive());
  }

  @Test
  void aModelNobodyListsInAFleetOfTwoModelsIsLeftToTheServers() {
    start("alpha-0", "alpha");
    start("beta-0", "beta");
    try (LlmClient client = client().build()) {
      assertThat(answeredBy(client.chat(ask("gamma", 0)))).isIn("alpha-0", "beta-0");
      assertThat(answeredBy(client.chat(ask("beta", 1)))).isEqualTo("beta-0");
    }
  }

  @Test
  void aFailedListingKeepsTheLastGoodOne() {
    start("alpha-0", "alpha");
    EmulatedReplica beta = start("beta-0", "beta");
    try (LlmClient client = client().modelDiscoveryInterval(Duration.ofSeconds(1)).build()) {
      assertThat(answeredBy(client.chat(ask("beta", 0)))).isEqualTo("beta-0");
      beta.faults().modelsStatus(500);
      long asked = beta.stats().modelsRequests();
      EventRecorder.await("two more listings of beta-0, failed", AWAIT,
          () -> beta.stats().modelsRequests() >= asked + 2);
      for (int i = 1; i < 20; i++) {
        assertThat(answeredBy(client.chat(ask("beta", i)))).isEqualTo("beta-0");
        assertThat(answeredBy(client.chat(ask("alpha", i)))).isEqualTo("alpha-0");
      }
    }
  }

  @Test
  void declaredModelsWinAndSuchReplicasAreNeverAsked() {
    EmulatedReplica lister = start("lists-beta", "beta");
    EmulatedReplica other = start("beta-0", "beta");
    Replica declared = Replica.builder(lister.baseUrl()).id("lists-beta").model("alpha").build();
    Replica plain = Replica.builder(other.baseUrl()).id("beta-0").build();
    try (LlmClient client = LlmClient.builder().replicas(List.of(declared, plain)).build()) {
      for (int i = 0; i < 10; i++) {
        assertThat(answeredBy(client.chat(ask("beta", i)))).isEqualTo("beta-0");
        assertThat(answeredBy(client.chat(ask("alpha", i)))).isEqualTo("lists-beta");
      }
    }
    assertThat(lister.stats().modelsRequests()).isZero();
    assertThat(other.stats().modelsRequests()).isPositive();
  }

  @Test
  void aReplicaThatChangesWhatItServesIsFollowedAfterAnUnknownModelAnswer() {
    EmulatedReplica r0 = start(EmulatedReplica.builder().rejectUnknownModels(), "r0", "alpha");
    EmulatedReplica r1 = start(EmulatedReplica.builder().rejectUnknownModels(), "r1", "beta");
    try (LlmClient client = client().build()) { // listed again every 30 s only
      assertThat(answeredBy(client.chat(ask("beta", 0)))).isEqualTo("r1");
      r1.serveModels("gamma"); // beta unloaded, gamma loaded
      // The stale listing sends beta to r1, which now answers 404: every replica is asked again.
      assertThatThrownBy(() -> client.chat(ask("beta", 1)))
          .isInstanceOfSatisfying(ReplicaHttpException.class,
              e -> assertThat(e.status()).isEqualTo(404));
      EventRecorder.await("r1 listed again", AWAIT, () -> r1.stats().modelsRequests() >= 2);
      EventRecorder.await("r0 listed again", AWAIT, () -> r0.stats().modelsRequests() >= 2);
      for (int i = 2; i < 12; i++) {
        assertThat(answeredBy(client.chat(ask("gamma", i)))).isEqualTo("r1");
        assertThat(answeredBy(client.chat(ask("alpha", i)))).isEqualTo("r0");
      }
    }
    assertThat(r0.stats().chatRequests()).as("r0 asked only for alpha").isEqualTo(10);
  }

  @Test
  void aReplicaThatStoppedServingAListedModelFailsOverToOneThatServesIt() {
    start(EmulatedReplica.builder().rejectUnknownModels(), "r0", "alpha");
    EmulatedReplica r1 = start(EmulatedReplica.builder().rejectUnknownModels(), "r1", "beta");
    start(EmulatedReplica.builder().rejectUnknownModels(), "r2", "beta");
    EventRecorder events = new EventRecorder();
    try (LlmClient client = client().routingPolicy(RoutingPolicy.roundRobin()).listener(events)
        .build()) {
      assertThat(answeredBy(client.chat(ask("alpha", 0)))).isEqualTo("r0");
      r1.serveModels("gamma"); // beta unloaded from r1, still listed until it is asked again
      for (int i = 1; i < 13; i++) {
        assertThat(answeredBy(client.chat(ask("beta", i)))).as("call %d", i).isEqualTo("r2");
      }
    }
    assertThat(events.failedCalls).isEmpty();
    assertThat(events.failedAttempts).as("r1's 404s, before its listing changed")
        .isNotEmpty().allSatisfy(e -> assertThat(e.willRetry()).isTrue());
    assertThat(r1.stats().modelsRequests()).as("asked again after the 404").isGreaterThan(1);
  }

  @Test
  void aModelIsSentWhereItIsLoadedRatherThanWhereItWouldBeLoadedFirst() {
    // Like llama.cpp's router mode with --models-max 1 beside a server of alpha alone.
    EmulatedReplica router = start(EmulatedReplica.builder().loadsModelsOnDemand(1), "router",
        "alpha", "beta");
    start("alpha-only", "alpha");
    for (RoutingPolicy policy : List.of(RoutingPolicy.cacheAware(), RoutingPolicy.roundRobin())) {
      try (LlmClient client = client().routingPolicy(policy).build()) {
        for (int i = 0; i < 40; i++) {
          String model = i % 2 == 0 ? "alpha" : "beta";
          String by = answeredBy(client.chat(ask(model, i)));
          assertThat(by).as("call %d for %s", i, model)
              .isEqualTo(model.equals("beta") ? "router" : "alpha-only");
        }
      }
    }
    assertThat(router.modelLoads()).as("beta, loaded once").isEqualTo(1);
  }

  @Test
  void withDiscoveryOffNoReplicaIsAsked() {
    start("alpha-0", "alpha");
    start("beta-0", "beta");
    Set<String> by = new HashSet<>();
    try (LlmClient client = client().modelDiscoveryInterval(Duration.ZERO)
        .routingPolicy(RoutingPolicy.roundRobin()).build()) {
      for (int i = 0; i < 4; i++) by.add(answeredBy(client.chat(ask("beta", i))));
    }
    assertThat(by).as("without routing by model, as before").contains("alpha-0");
    assertThat(servers).allSatisfy(s -> assertThat(s.stats().modelsRequests()).isZero());
  }
}
