package io.github.llmrouter.engine;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.llmrouter.LlmClient;
import io.github.llmrouter.LlmClientBuilder;
import io.github.llmrouter.api.ChatMessage;
import io.github.llmrouter.api.ChatRequest;
import io.github.llmrouter.api.ChatResponse;
import io.github.llmrouter.replica.Replica;
import io.github.llmrouter.routing.RoutingPolicy;
import io.github.llmrouter.testing.EventRecorder;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A fleet of two models on llama.cpp: two servers run model {@code alpha}, one {@code beta}
 * ({@code --alias}); llama.cpp's server answers a request for any model with its own, so only
 * routing by the models the replicas declare, or list, keeps each call on a server of its model.
 */
@Timeout(value = 5, unit = TimeUnit.MINUTES)
class ModelRoutingIT {
  private final List<LlamaServers.Server> servers = new ArrayList<>();

  @AfterEach
  void stop() {
    servers.forEach(LlamaServers.Server::close);
  }

  private void startFleet() {
    LlamaServers.engine();
    servers.add(LlamaServers.Server.start("alpha0", "--alias", "alpha"));
    servers.add(LlamaServers.Server.start("alpha1", "--alias", "alpha"));
    servers.add(LlamaServers.Server.start("beta0", "--alias", "beta"));
  }

  @Test
  void everyCallIsAnsweredByAServerOfItsDeclaredModel() {
    startFleet();
    List<Replica> fleet = new ArrayList<>();
    for (LlamaServers.Server s : servers) {
      fleet.add(Replica.builder(s.baseUrl()).id(s.name).model(s.name.substring(0, s.name.length() - 1))
          .build());
    }
    sixtyCalls("declared", LlmClient.builder().replicas(fleet), id -> id);
  }

  @Test
  void everyCallIsAnsweredByAServerOfItsModelFoundByDiscoveryAlone() {
    startFleet();
    LlmClientBuilder b = LlmClient.builder(); // plain URLs: each replica's id is its host:port
    Map<String, String> serverById = new HashMap<>();
    for (LlamaServers.Server s : servers) {
      b.replicas(s.baseUrl());
      serverById.put(Replica.builder(s.baseUrl()).build().id(), s.name);
    }
    sixtyCalls("found by discovery", b, serverById::get);
  }

  @Test
  void aRouterModeServerIsNotMadeToSwapModelsThatAnotherServerHasLoaded() throws Exception {
    LlamaServers.engine();
    LlamaServers.Server router = LlamaServers.Server.startRouter("router", 1, "alpha", "beta");
    servers.add(router);
    servers.add(LlamaServers.Server.start("plain", "--alias", "alpha"));
    // Routing by model alone: the models declared, nothing listed, round robin over alpha's two.
    List<Replica> declared = List.of(
        Replica.builder(router.baseUrl()).id("router").model("alpha").model("beta").build(),
        Replica.builder(servers.get(1).baseUrl()).id("plain").model("alpha").build());
    long before = router.modelLoads();
    int byModelOnly = fortyCalls(LlmClient.builder().replicas(declared)
        .routingPolicy(RoutingPolicy.roundRobin())); // declared replicas are never listed
    long swapsByModelOnly = router.modelLoads() - before;
    // Found by discovery, which reads which model the router has loaded.
    before = router.modelLoads();
    int byResidency = fortyCalls(LlmClient.builder().replicas(router.baseUrl(),
        servers.get(1).baseUrl()));
    long swapsByResidency = router.modelLoads() - before;
    System.out.printf(Locale.ROOT, "router-mode llama-server (--models-max 1) beside a plain one, "
        + "40 calls of alpha and beta: %d model loads routing by model alone (round robin), %d by "
        + "residency; wrong-model answers %d and %d%n", swapsByModelOnly, swapsByResidency,
        byModelOnly, byResidency);
    assertThat(byModelOnly + byResidency).as("calls answered by another model").isZero();
    assertThat(swapsByResidency).as("beta loaded once, at most").isLessThanOrEqualTo(1);
    assertThat(swapsByModelOnly).as("round robin sends alpha to the router too")
        .isGreaterThan(5 * Math.max(1, swapsByResidency));
  }

  /** 40 calls alternating alpha and beta; returns those answered by another model. */
  private static int fortyCalls(LlmClientBuilder builder) {
    int wrong = 0;
    try (LlmClient client = builder.build()) {
      for (int i = 0; i < 40; i++) {
        String model = i % 2 == 0 ? "alpha" : "beta";
        ChatResponse answer = client.chat(ChatRequest.builder(model)
            .message(ChatMessage.user("call " + i)).maxTokens(4).build());
        if (!model.equals(answer.model())) wrong++;
      }
    }
    return wrong;
  }

  /**
   * 60 interleaved calls, the first sent at once: none answered by a server of the other model,
   * none failed.
   *
   * @param serverName the llama.cpp server's name for a replica id of the client's
   */
  private void sixtyCalls(String how, LlmClientBuilder builder,
      UnaryOperator<String> serverName) {
    EventRecorder events = new EventRecorder();
    int wrong = 0;
    try (LlmClient client = builder.listener(events).build()) {
      for (int i = 0; i < 60; i++) {
        String model = i % 2 == 0 ? "alpha" : "beta";
        ChatResponse answer = client.chat(ChatRequest.builder(model)
            .message(ChatMessage.user("call " + i)).maxTokens(4).build());
        if (!model.equals(answer.model())) wrong++;
      }
    }
    assertThat(wrong).as("calls answered by a server of the other model").isZero();
    assertThat(events.failedCalls).isEmpty();
    assertThat(events.ended).hasSize(60).allSatisfy(e ->
        assertThat(serverName.apply(e.replicaId())).startsWith(e.model()));
    System.out.printf(Locale.ROOT, "two models on llama.cpp, %s: 60 calls, %d answered by the "
        + "other model, %d failed%n", how, wrong, events.failedCalls.size());
  }
}
