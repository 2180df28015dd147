package io.github.llmrouter;

import static io.github.llmrouter.Fixtures.answeredBy;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.github.llmrouter.api.ChatChunk;
import io.github.llmrouter.api.ChatMessage;
import io.github.llmrouter.api.ChatRequest;
import io.github.llmrouter.api.ChatResponse;
import io.github.llmrouter.api.NoReplicaAvailableException;
import io.github.llmrouter.api.ResponseStream;
import io.github.llmrouter.api.RetriesExhaustedException;
import io.github.llmrouter.emulator.EmulatedReplica;
import io.github.llmrouter.replica.Replica;
import io.github.llmrouter.routing.RoutingPolicy;
import io.github.llmrouter.testing.EventRecorder;
import io.github.llmrouter.testing.HandResolver;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Replicas that declare the models they serve get only requests for those: the fix for a fleet of
 * two models where a server answers any model with its own (llama.cpp's server does).
 */
class RoutingByModelTest {
  private final List<EmulatedReplica> servers = new ArrayList<>();

  @AfterEach
  void stop() {
    servers.forEach(EmulatedReplica::close);
  }

  private Replica start(String id, String... models) {
    EmulatedReplica s = EmulatedReplica.builder().id(id).instant().build().start();
    servers.add(s);
    Replica.Builder b = Replica.builder(s.baseUrl()).id(id);
    for (String m : models) b.model(m);
    return b.build();
  }

  private static ChatRequest ask(String model, int i) {
    return ChatRequest.builder(model).message(ChatMessage.user("question " + i)).maxTokens(2)
        .build();
  }

  @Test
  void everyCallReachesAReplicaOfItsModelWhateverThePolicy() {
    List<Replica> fleet = List.of(start("alpha-0", "alpha"), start("alpha-1", "alpha"),
        start("beta-0", "beta"));
    for (RoutingPolicy policy : List.of(RoutingPolicy.cacheAware(), RoutingPolicy.roundRobin())) {
      try (LlmClient client = LlmClient.builder().replicas(fleet).routingPolicy(policy).build()) {
        for (int i = 0; i < 60; i++) {
          String model = i % 3 == 0 ? "beta" : "alpha";
          String by = answeredBy(client.chat(ask(model, i)));
          assertThat(by).as("call %d for %s", i, model).startsWith(model + "-");
        }
        try (ResponseStream<ChatChunk> stream = client.chatStream(ask("beta", 99))) {
          assertThat(stream.replicaId()).isEqualTo("beta-0");
          stream.forEach(c -> { });
        }
      }
    }
  }

  @Test
  void aModelNoReplicaServesFailsAtOnceNamingItAndTheFleetsModels() {
    List<Replica> fleet = List.of(start("alpha-0", "alpha"), start("beta-0", "beta"));
    try (LlmClient client = LlmClient.builder().replicas(fleet).build()) {
      assertThatThrownBy(() -> client.chat(ask("gamma", 0)))
          .isInstanceOf(NoReplicaAvailableException.class)
          .hasMessage("no replica serves model 'gamma' (the fleet's replicas serve alpha, beta)");
    }
    assertThat(servers).allSatisfy(s -> assertThat(s.stats().chatRequests()).isZero());
  }

  @Test
  void aReplicaThatDeclaresNothingServesAnyModel() {
    List<Replica> fleet = List.of(start("alpha-0", "alpha"), start("any-0"));
    try (LlmClient client = LlmClient.builder().replicas(fleet)
        .routingPolicy(RoutingPolicy.roundRobin()).build()) {
      Set<String> gamma = new java.util.HashSet<>();
      Set<String> alpha = new java.util.HashSet<>();
      for (int i = 0; i < 8; i++) {
        gamma.add(answeredBy(client.chat(ask("gamma", i))));
        alpha.add(answeredBy(client.chat(ask("alpha", i))));
      }
      assertThat(gamma).containsExactly("any-0");
      assertThat(alpha).isNotEmpty().isSubsetOf("alpha-0", "any-0");
    }
  }

  @Test
  void aCallForAModelWhoseReplicasLeftWaitsForOneWithinItsDeadline() throws Exception {
    Replica alpha = start("alpha-0", "alpha");
    Replica beta = start("beta-0", "beta");
    HandResolver resolver = new HandResolver();
    try (LlmClient client = LlmClient.builder().resolver(resolver).build()) {
      resolver.publish(List.of(alpha, beta));
      assertThat(answeredBy(client.chat(ask("beta", 0)))).isEqualTo("beta-0");
      resolver.publish(List.of(alpha)); // beta's replica restarts
      CompletableFuture<ChatResponse> waiting = client.chatAsync(ask("beta", 1));
      Thread blocked = new Thread(() -> answeredBy(client.chat(ask("beta", 2))));
      blocked.start();
      EventRecorder.await("a blocking call waiting", Duration.ofSeconds(10),
          () -> blocked.getState() == Thread.State.WAITING
              || blocked.getState() == Thread.State.TIMED_WAITING);
      assertThat(waiting).isNotDone();
      assertThat(answeredBy(client.chat(ask("alpha", 3)))).as("other models go on")
          .isEqualTo("alpha-0");
      resolver.publish(List.of(alpha, beta));
      assertThat(answeredBy(waiting.get(10, TimeUnit.SECONDS))).isEqualTo("beta-0");
      blocked.join(10_000);
      assertThat(blocked.isAlive()).isFalse();
    }
    assertThat(servers.get(0).stats().chatRequests()).as("alpha-0 served only alpha")
        .isEqualTo(1);
  }

  @Test
  void aCallForAModelNoLongerServedFailsAtItsDeadlineNamingIt() {
    Replica alpha = start("alpha-0", "alpha");
    Replica beta = start("beta-0", "beta");
    HandResolver resolver = new HandResolver();
    try (LlmClient client = LlmClient.builder().resolver(resolver)
        .callTimeout(Duration.ofMillis(300)).build()) {
      resolver.publish(List.of(alpha, beta));
      client.chat(ask("beta", 0));
      resolver.publish(List.of(alpha));
      assertThatThrownBy(() -> client.chat(ask("beta", 1)))
          .isInstanceOf(NoReplicaAvailableException.class)
          .hasMessageStartingWith("no replica serves model 'beta' any more")
          .hasMessageEndingWith("the fleet's replicas serve alpha)");
      assertThatThrownBy(() -> client.chat(ask("gamma", 2))).as("never served: at once")
          .isInstanceOf(NoReplicaAvailableException.class)
          .hasMessage("no replica serves model 'gamma' (the fleet's replicas serve alpha)");
    }
  }

  @Test
  void aFailingReplicaOfAModelNeverFailsOverToAnotherModel() {
    List<Replica> fleet = List.of(start("alpha-0", "alpha"), start("beta-0", "beta"));
    servers.get(1).faults().failNext(100, 503);
    try (LlmClient client = LlmClient.builder().replicas(fleet).build()) {
      assertThatThrownBy(() -> client.chat(ask("beta", 0)))
          .isInstanceOf(RetriesExhaustedException.class);
    }
    assertThat(servers.get(0).stats().chatRequests()).isZero();
  }
}
