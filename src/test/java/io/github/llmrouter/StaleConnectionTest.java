package io.github.llmrouter;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.github.llmrouter.api.ChatChunk;
import io.github.llmrouter.api.ChatMessage;
import io.github.llmrouter.api.ChatRequest;
import io.github.llmrouter.api.ResponseStream;
import io.github.llmrouter.api.RetriesExhaustedException;
import io.github.llmrouter.dispatch.RetryPolicy;
import io.github.llmrouter.emulator.EmulatedReplica;
import io.github.llmrouter.load.LoadMonitoring;
import io.github.llmrouter.replica.Replica;
import io.github.llmrouter.testing.EventRecorder;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Replicas that close connections behind the client's back (after every streamed response, as
 * llama.cpp's server does; or when idle): a request that finds its pooled connection dead is sent
 * again on a fresh one, which is no failure of the replica. A failure on a fresh connection still
 * is.
 */
class StaleConnectionTest {
  private final List<EmulatedReplica> servers = new ArrayList<>();
  private final EventRecorder events = new EventRecorder();

  @AfterEach
  void stop() {
    servers.forEach(EmulatedReplica::close);
  }

  private Replica start(EmulatedReplica.Builder b) {
    EmulatedReplica s = b.instant().build().start();
    servers.add(s);
    return Replica.builder(s.baseUrl()).id(s.id()).build();
  }

  private LlmClient client(List<Replica> replicas) {
    return LlmClient.builder().replicas(replicas).listener(events)
        .loadMonitoring(LoadMonitoring.disabled()).modelDiscoveryInterval(Duration.ZERO).build();
  }

  private static ChatRequest chat(int i) {
    return ChatRequest.builder("m").message(ChatMessage.user("question " + i)).maxTokens(4)
        .build();
  }

  @Test
  void sequentialStreamsOnReplicasThatCloseAfterEachStreamNeverFail() {
    List<Replica> fleet = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      fleet.add(start(EmulatedReplica.builder().id("r" + i).closeAfterStreams(true)));
    }
    try (LlmClient client = client(fleet)) {
      for (int i = 0; i < 20; i++) {
        try (ResponseStream<ChatChunk> stream = client.chatStream(chat(i))) {
          stream.forEach(chunk -> { });
        }
        // Whole answers in between take the connections a stream left in the pool.
        client.chat(chat(100 + i));
      }
    }
    long dropped = servers.stream().mapToLong(EmulatedReplica::connectionsDropped).sum();
    assertThat(dropped).as("connections the replicas closed").isGreaterThanOrEqualTo(20);
    assertThat(events.failedAttempts).as("failed attempts").isEmpty();
    assertThat(events.breakers).isEmpty();
    assertThat(events.ejections).isEmpty();
    assertThat(events.resent).as("requests resent on a fresh connection").isNotEmpty()
        .allSatisfy(e -> assertThat(e.failure()).isNotBlank());
  }

  @Test
  void aConnectionClosedWhileIdleIsReplacedWithoutAFailedAttempt() {
    EmulatedReplica.Builder idleCloser = EmulatedReplica.builder().id("idle")
        .idleConnectionTimeout(Duration.ofMillis(100));
    try (LlmClient client = client(List.of(start(idleCloser)))) {
      client.chat(chat(0));
      EmulatedReplica server = servers.get(0);
      EventRecorder.await("the idle connection closed", Duration.ofSeconds(10),
          () -> server.connectionsDropped() > 0);
      client.chat(chat(1));
      try (ResponseStream<ChatChunk> stream = client.chatStream(chat(2))) {
        stream.forEach(chunk -> { });
      }
    }
    assertThat(events.failedAttempts).isEmpty();
    assertThat(events.resent).singleElement()
        .satisfies(e -> {
          assertThat(e.replicaId()).isEqualTo("idle");
          assertThat(e.operation()).isEqualTo("chat");
        });
  }

  @Test
  void aFailureOnAFreshConnectionIsStillTheReplicasAndIsNotResent() {
    Replica replica = start(EmulatedReplica.builder().id("resets"));
    servers.get(0).faults().resetNext(10);
    try (LlmClient client = LlmClient.builder().replica(replica).listener(events)
        .loadMonitoring(LoadMonitoring.disabled()).modelDiscoveryInterval(Duration.ZERO)
        .retryPolicy(RetryPolicy.builder().maxAttempts(2).initialBackoff(Duration.ZERO)
            .maxBackoff(Duration.ZERO).build()).build()) {
      assertThatThrownBy(() -> client.chat(chat(0)))
          .isInstanceOf(RetriesExhaustedException.class);
    }
    assertThat(events.failedAttempts).hasSize(2);
    assertThat(events.resent).isEmpty();
  }
}
