package io.github.llmrouter;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.llmrouter.api.ChatChunk;
import io.github.llmrouter.api.ChatMessage;
import io.github.llmrouter.api.ChatRequest;
import io.github.llmrouter.api.ChatResponse;
import io.github.llmrouter.api.ResponseStream;
import io.github.llmrouter.dispatch.HedgePolicy;
import io.github.llmrouter.emulator.EmulatedReplica;
import io.github.llmrouter.observe.AttemptEndedEvent;
import io.github.llmrouter.observe.HedgeEvent;
import io.github.llmrouter.replica.Replica;
import io.github.llmrouter.routing.RoutingPolicy;
import io.github.llmrouter.testing.EventRecorder;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Hedged calls end to end, over sockets, against two emulated replicas one of which holds its next
 * request for seconds: a blocking call, an asynchronous call and a stream are each answered by
 * their hedge long before the slow replica would have answered, the slow attempt is let go as
 * abandoned, and a stream's text comes from the winner alone.
 */
class HedgingTest {
  private static final Duration HELD = Duration.ofSeconds(20);

  private final EventRecorder events = new EventRecorder();
  private EmulatedReplica slow;
  private EmulatedReplica fast;
  private LlmClient client;

  @BeforeEach
  void start() {
    slow = EmulatedReplica.builder().id("slow").instant().decodeInterval(Duration.ofMillis(1))
        .build().start();
    fast = EmulatedReplica.builder().id("fast").instant().decodeInterval(Duration.ofMillis(1))
        .build().start();
    client = LlmClient.builder().replicas(List.of(Replica.builder(slow.baseUrl()).id("slow")
        .build(), Replica.builder(fast.baseUrl()).id("fast").build()))
        .routingPolicy(RoutingPolicy.roundRobin()).listener(events)
        .hedgePolicy(HedgePolicy.builder().minDelay(Duration.ofMillis(50)).build()).build();
  }

  @AfterEach
  void stop() {
    client.close();
    slow.close();
    fast.close();
  }

  private static ChatRequest chat(int i) {
    return ChatRequest.builder("m").message(ChatMessage.user("call " + i)).maxTokens(8).build();
  }

  /**
   * Calls until the client has learnt the hedge delay of this kind of call, then until the slow
   * replica has taken its held request; returns what the last calls gave.
   */
  private <T> List<T> untilTheSlowReplicaIsHit(Supplier<T> call) {
    for (int i = 0; i < HedgePolicy.MIN_SAMPLES; i++) call.get();
    assertThat(events.hedges).isEmpty();
    slow.faults().delayNext(1, HELD);
    List<T> answers = new ArrayList<>();
    for (int i = 0; i < 2; i++) answers.add(call.get()); // round robin: one of two is the slow one
    return answers;
  }

  private void theSlowAttemptWasHedgedAndLetGo() {
    assertThat(events.hedges).singleElement().satisfies(h -> {
      assertThat(h.replicaId()).isEqualTo("slow");
      assertThat(h.hedgeReplicaId()).isEqualTo("fast");
      assertThat(h.winner()).isEqualTo(HedgeEvent.Winner.HEDGE);
      assertThat(h.delay()).isGreaterThanOrEqualTo(Duration.ofMillis(50)).isLessThan(HELD);
    });
    EventRecorder.await("the slow attempt let go", Duration.ofSeconds(10), () -> events.ended
        .stream().anyMatch(e -> e.replicaId().equals("slow")
            && e.outcome() == AttemptEndedEvent.Outcome.ABANDONED));
    assertThat(events.failedCalls).isEmpty();
    assertThat(events.failedAttempts).isEmpty();
    EventRecorder.await("every count released", Duration.ofSeconds(10),
        () -> client.inFlight("slow") + client.inFlight("fast") == 0);
  }

  @Test
  void aBlockingCallHeldByASlowReplicaIsAnsweredByItsHedge() {
    long t0 = System.nanoTime();
    List<ChatResponse> answers = untilTheSlowReplicaIsHit(() -> client.chat(chat(100)));
    assertThat(Duration.ofNanos(System.nanoTime() - t0)).isLessThan(HELD);
    assertThat(answers).extracting(Fixtures::answeredBy)
        .containsOnly("fast");
    theSlowAttemptWasHedgedAndLetGo();
  }

  @Test
  void anAsynchronousCallHeldByASlowReplicaIsAnsweredByItsHedge() {
    List<ChatResponse> answers = untilTheSlowReplicaIsHit(
        () -> client.chatAsync(chat(100)).orTimeout(10, TimeUnit.SECONDS).join());
    assertThat(answers).extracting(Fixtures::answeredBy)
        .containsOnly("fast");
    theSlowAttemptWasHedgedAndLetGo();
  }

  @Test
  void aStreamHeldByASlowReplicaIsServedWholeByItsHedgeAlone() {
    String expected;
    try (ResponseStream<ChatChunk> reference = client.chatStream(chat(100))) {
      StringBuilder text = new StringBuilder();
      reference.forEach(c -> text.append(c.text()));
      expected = text.toString();
    }
    List<String> texts = untilTheSlowReplicaIsHit(() -> {
      try (ResponseStream<ChatChunk> stream = client.chatStream(chat(100))) {
        StringBuilder text = new StringBuilder();
        stream.forEach(c -> text.append(c.text()));
        return text.toString();
      }
    });
    assertThat(texts).as("the emulated replicas answer one prompt with one text, each once")
        .containsOnly(expected);
    theSlowAttemptWasHedgedAndLetGo();
  }

  @Test
  void aRequestMarkedNotHedgeableWaitsForItsReplica() {
    for (int i = 0; i < HedgePolicy.MIN_SAMPLES; i++) client.chat(chat(i));
    slow.faults().delayNext(1, Duration.ofMillis(500));
    List<String> answeredBy = new ArrayList<>();
    for (int i = 0; i < 2; i++) {
      answeredBy.add(Fixtures.answeredBy(client.chat(chat(100).toBuilder().hedgeable(false)
          .build())));
    }
    assertThat(answeredBy).containsExactlyInAnyOrder("slow", "fast");
    assertThat(events.hedges).isEmpty();
  }
}
