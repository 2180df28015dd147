package io.github.llmrouter;

import static io.github.llmrouter.Fixtures.answeredBy;
import static org.assertj.core.api.Assertions.assertThat;

import io.github.llmrouter.api.ChatMessage;
import io.github.llmrouter.api.ChatRequest;
import io.github.llmrouter.api.ChatResponse;
import io.github.llmrouter.api.ReplicaUnreachableException;
import io.github.llmrouter.dispatch.CircuitBreakerPolicy;
import io.github.llmrouter.dispatch.RetryPolicy;
import io.github.llmrouter.emulator.EmulatedReplica;
import io.github.llmrouter.observe.HealthChangedEvent;
import io.github.llmrouter.replica.Replica;
import io.github.llmrouter.routing.RoutingPolicy;
import io.github.llmrouter.testing.EventRecorder;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A replica that stops accepting connections while it serves a call, and never answers it (what
 * llama.cpp's server does on SIGTERM): the client notices at its next load scrape, fails the
 * unanswered call over at once instead of waiting out the first-byte timeout, and takes the
 * replica back as soon as a scrape reaches it again.
 */
class ReplicaGoneTest {
  private static final Duration FIRST_BYTE = Duration.ofSeconds(60);

  private final List<EmulatedReplica> servers = new ArrayList<>();
  private final EventRecorder events = new EventRecorder();
  private final ExecutorService caller = Executors.newSingleThreadExecutor();

  @AfterEach
  void stop() throws InterruptedException {
    caller.shutdownNow();
    caller.awaitTermination(10, TimeUnit.SECONDS);
    servers.forEach(EmulatedReplica::close);
  }

  private EmulatedReplica start(EmulatedReplica.Builder b) {
    EmulatedReplica s = b.instant().build().start();
    servers.add(s);
    return s;
  }

  private static ChatRequest chat(int i) {
    return ChatRequest.builder("m").message(ChatMessage.user("call " + i)).maxTokens(4).build();
  }

  @Test
  void aCallOnAReplicaThatStopsFailsOverAtTheNextScrapeAndTheReplicaComesBackAtTheOneAfter()
      throws Exception {
    EmulatedReplica victim = start(EmulatedReplica.builder().id("victim"));
    EmulatedReplica other = start(EmulatedReplica.builder().id("other"));
    victim.faults().hangNext(1);
    List<Replica> fleet = List.of(Replica.builder(victim.baseUrl()).id("victim").build(),
        Replica.builder(other.baseUrl()).id("other").build());
    try (LlmClient client = LlmClient.builder().replicas(fleet).listener(events)
        .routingPolicy(RoutingPolicy.roundRobin()).slowStart(Duration.ZERO)
        .firstByteTimeout(FIRST_BYTE)
        .circuitBreaker(CircuitBreakerPolicy.builder().slidingWindowSize(2).minimumCalls(1)
            .openDuration(Duration.ofMinutes(5)).build())
        .retryPolicy(RetryPolicy.builder().initialBackoff(Duration.ofMillis(1))
            .maxBackoff(Duration.ofMillis(2)).build()).build()) {
      CompletableFuture<ChatResponse> hanging =
          CompletableFuture.supplyAsync(() -> client.chat(chat(0)), caller);
      EventRecorder.await("the call reached the victim", Duration.ofSeconds(10),
          () -> victim.stats().chatRequests() == 1);

      victim.stopAccepting(); // SIGTERM: the listener closes, the call is never answered
      client.scrapeLoadNow().get(10, TimeUnit.SECONDS);

      // Far sooner than the 60 s first-byte timeout: the scrape's refused connect fails it over.
      ChatResponse answer = hanging.get(20, TimeUnit.SECONDS);
      assertThat(answeredBy(answer)).isEqualTo("other");
      assertThat(events.failedCalls).isEmpty();
      assertThat(events.failedAttempts).singleElement().satisfies(a -> {
        assertThat(a.replicaId()).isEqualTo("victim");
        assertThat(a.failure()).isInstanceOf(ReplicaUnreachableException.class)
            .hasMessageContaining("stopped accepting connections");
        assertThat(a.willRetry()).isTrue();
      });
      assertThat(events.health).extracting(HealthChangedEvent::healthy).containsExactly(false);
      for (int i = 1; i <= 6; i++) {
        assertThat(answeredBy(client.chat(chat(i)))).as("call %d", i).isEqualTo("other");
      }

      // Restarted on the same port: back at the next scrape, not when an ejection runs out.
      EmulatedReplica restarted = start(EmulatedReplica.builder().id("victim")
          .port(victim.port()));
      client.scrapeLoadNow().get(10, TimeUnit.SECONDS);
      assertThat(events.health).extracting(HealthChangedEvent::healthy)
          .containsExactly(false, true);
      List<String> next = new ArrayList<>();
      for (int i = 10; i < 14; i++) next.add(answeredBy(client.chat(chat(i))));
      assertThat(next).contains("victim");
      assertThat(restarted.stats().chatRequests()).isPositive();
    }
  }

  @Test
  void aScrapeWhosePooledConnectionNoLongerAnswersStillFindsTheReplicaGone() throws Exception {
    EmulatedReplica victim = start(EmulatedReplica.builder().id("victim"));
    EmulatedReplica other = start(EmulatedReplica.builder().id("other"));
    List<Replica> fleet = List.of(Replica.builder(victim.baseUrl()).id("victim").build(),
        Replica.builder(other.baseUrl()).id("other").build());
    try (LlmClient client = LlmClient.builder().replicas(fleet).listener(events).build()) {
      client.scrapeLoadNow().get(10, TimeUnit.SECONDS); // leaves a pooled connection to each
      victim.stopAccepting();
      client.scrapeLoadNow().get(10, TimeUnit.SECONDS);
      assertThat(events.health).singleElement().satisfies(e -> {
        assertThat(e.replicaId()).isEqualTo("victim");
        assertThat(e.healthy()).isFalse();
      });
      assertThat(answeredBy(client.chat(chat(0)))).isEqualTo("other");
    }
  }

  @Test
  void aHealthCheckFindsAStoppedReplicaGoneAtItsNextCheckAndBackAtTheOneAfterItsRestart()
      throws Exception {
    EmulatedReplica victim = start(EmulatedReplica.builder().id("victim"));
    EmulatedReplica other = start(EmulatedReplica.builder().id("other"));
    List<Replica> fleet = List.of(Replica.builder(victim.baseUrl()).id("victim").build(),
        Replica.builder(other.baseUrl()).id("other").build());
    try (LlmClient client = LlmClient.builder().replicas(fleet).listener(events)
        .slowStart(Duration.ZERO).loadMonitoring(io.github.llmrouter.load.LoadMonitoring.disabled())
        .healthCheck(io.github.llmrouter.replica.HealthCheck.builder()
            .interval(Duration.ofMillis(50)).build()).build()) {
      assertThat(answeredBy(client.chat(chat(0)))).isNotEmpty();
      victim.stopAccepting();
      EventRecorder.await("the victim refuses connections", Duration.ofSeconds(10),
          () -> events.health.stream().anyMatch(e -> !e.healthy()));
      assertThat(events.health).first().satisfies(e -> {
        assertThat(e.replicaId()).isEqualTo("victim");
        assertThat(e.reason()).startsWith("refuses connections: health check");
      });
      start(EmulatedReplica.builder().id("victim").port(victim.port()));
      EventRecorder.await("the victim back", Duration.ofSeconds(10),
          () -> events.health.stream().anyMatch(HealthChangedEvent::healthy));
    }
  }
}
