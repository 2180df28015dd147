package io.github.llmrouter;

import static io.github.llmrouter.Fixtures.answeredBy;
import static org.assertj.core.api.Assertions.assertThat;

import io.github.llmrouter.api.ChatChunk;
import io.github.llmrouter.api.ChatMessage;
import io.github.llmrouter.api.ChatRequest;
import io.github.llmrouter.api.ChatResponse;
import io.github.llmrouter.api.ReplicaUnreachableException;
import io.github.llmrouter.api.ResponseStream;
import io.github.llmrouter.emulator.EmulatedReplica;
import io.github.llmrouter.load.LoadMonitoring;
import io.github.llmrouter.observe.HealthChangedEvent;
import io.github.llmrouter.replica.HealthCheck;
import io.github.llmrouter.replica.Replica;
import io.github.llmrouter.routing.RoutingPolicy;
import io.github.llmrouter.testing.EventRecorder;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A replica that hangs (frozen as {@code SIGSTOP} freezes a process: connections accepted,
 * nothing answered): the stall watchdog takes it out once its scrapes or health checks go
 * unanswered past the stall bound, fails its byte-less attempts over long before the first-byte
 * timeout, leaves an answer under way alone, never mistakes a slow but answering replica for a
 * hung one, and takes the replica back at the first answered scrape.
 */
class HungReplicaTest {
  /** Far beyond anything the test waits for: an attempt that waits it out fails the test. */
  private static final Duration FIRST_BYTE = Duration.ofSeconds(60);
  private static final Duration STALL = Duration.ofSeconds(1);

  private final List<EmulatedReplica> servers = new ArrayList<>();
  private final EventRecorder events = new EventRecorder();
  private final ExecutorService caller = Executors.newSingleThreadExecutor();

  @AfterEach
  void stop() throws InterruptedException {
    servers.forEach(EmulatedReplica::thaw);
    caller.shutdownNow();
    caller.awaitTermination(10, TimeUnit.SECONDS);
    servers.forEach(EmulatedReplica::close);
  }

  private EmulatedReplica start(EmulatedReplica.Builder b) {
    EmulatedReplica s = b.build().start();
    servers.add(s);
    return s;
  }

  private static ChatRequest chat(int i) {
    return ChatRequest.builder("m").message(ChatMessage.user("call " + i)).maxTokens(4).build();
  }

  private List<Replica> fleet(EmulatedReplica... replicas) {
    List<Replica> fleet = new ArrayList<>();
    for (EmulatedReplica r : replicas) fleet.add(Replica.builder(r.baseUrl()).id(r.id()).build());
    return fleet;
  }

  private LlmClientBuilder client(List<Replica> fleet) {
    return LlmClient.builder().replicas(fleet).listener(events)
        .routingPolicy(RoutingPolicy.roundRobin()).slowStart(Duration.ZERO)
        .firstByteTimeout(FIRST_BYTE).stallTimeout(STALL);
  }

  @Test
  void aCallOnAFrozenReplicaFailsOverOnceItsScrapesGoUnansweredAndItIsBackAtTheFirstAnswer()
      throws Exception {
    EmulatedReplica victim = start(EmulatedReplica.builder().id("victim").instant());
    EmulatedReplica other = start(EmulatedReplica.builder().id("other").instant());
    victim.faults().delayNext(1, Duration.ofSeconds(30)); // in its prefill when it freezes
    try (LlmClient client = client(fleet(victim, other)).build()) {
      CompletableFuture<ChatResponse> caught =
          CompletableFuture.supplyAsync(() -> client.chat(chat(0)), caller);
      EventRecorder.await("the call reached the victim", Duration.ofSeconds(10),
          () -> victim.stats().chatRequests() == 1);

      victim.freeze();
      client.scrapeLoadNow();

      // Far sooner than the 60 s first-byte timeout: the watchdog fails it over.
      ChatResponse answer = caught.get(20, TimeUnit.SECONDS);
      assertThat(answeredBy(answer)).isEqualTo("other");
      assertThat(events.failedCalls).isEmpty();
      assertThat(events.failedAttempts).singleElement().satisfies(a -> {
        assertThat(a.replicaId()).isEqualTo("victim");
        assertThat(a.failure()).isInstanceOf(ReplicaUnreachableException.class)
            .hasMessageContaining("stopped answering before this attempt got any answer");
        assertThat(a.willRetry()).isTrue();
      });
      assertThat(events.health).singleElement().satisfies(e -> {
        assertThat(e.replicaId()).isEqualTo("victim");
        assertThat(e.healthy()).isFalse();
        assertThat(e.reason()).startsWith("stopped answering: nothing answered for ")
            .contains("last: load scrape");
      });
      for (int i = 1; i <= 6; i++) {
        assertThat(answeredBy(client.chat(chat(i)))).as("call %d", i).isEqualTo("other");
      }

      victim.thaw();
      EventRecorder.await("the victim back", Duration.ofSeconds(10), () -> {
        client.scrapeLoadNow();
        return events.health.stream().anyMatch(HealthChangedEvent::healthy);
      });
      assertThat(events.health).extracting(e -> e.healthy() + " " + e.reason())
          .last().isEqualTo("true reachable again");
      List<String> next = new ArrayList<>();
      for (int i = 10; i < 14; i++) next.add(answeredBy(client.chat(chat(i))));
      assertThat(next).contains("victim");
    }
  }

  @Test
  void aLongPrefillOnAReplicaThatAnswersItsScrapesIsNotFailedOver() throws Exception {
    EmulatedReplica slow = start(EmulatedReplica.builder().id("slow").instant());
    EmulatedReplica other = start(EmulatedReplica.builder().id("other").instant());
    // Three stall bounds without a first byte, while /metrics answers as usual.
    slow.faults().delayNext(1, STALL.multipliedBy(3));
    try (LlmClient client = client(fleet(slow, other)).build()) {
      CompletableFuture<ChatResponse> call =
          CompletableFuture.supplyAsync(() -> client.chat(chat(0)), caller);
      EventRecorder.await("the call reached the slow replica", Duration.ofSeconds(10),
          () -> slow.stats().chatRequests() == 1);
      while (!call.isDone()) {
        client.scrapeLoadNow().get(10, TimeUnit.SECONDS);
        Thread.sleep(100);
      }
      assertThat(answeredBy(call.get())).isEqualTo("slow");
      assertThat(events.failedAttempts).isEmpty();
      assertThat(events.health).isEmpty();
    }
  }

  @Test
  void aStreamUnderWayOnAFrozenReplicaIsLeftAloneAndEndsWhenTheReplicaThaws() throws Exception {
    EmulatedReplica victim = start(EmulatedReplica.builder().id("victim").instant()
        .decodeInterval(Duration.ofMillis(20)));
    EmulatedReplica other = start(EmulatedReplica.builder().id("other").instant());
    try (LlmClient client = client(fleet(victim, other)).build();
        ResponseStream<ChatChunk> stream = client.chatStream(ChatRequest.builder("m")
            .message(ChatMessage.user("a stream")).maxTokens(40).build())) {
      Iterator<ChatChunk> chunks = stream.iterator();
      assertThat(chunks.hasNext()).isTrue();
      chunks.next(); // the answer has begun
      victim.freeze();
      EventRecorder.await("the victim taken out", Duration.ofSeconds(20), () -> {
        client.scrapeLoadNow();
        return !events.health.isEmpty();
      });
      victim.thaw();
      int rest = 0;
      while (chunks.hasNext() && rest < 1_000) {
        chunks.next();
        rest++;
      }
      assertThat(rest).isPositive();
      assertThat(events.failedAttempts).isEmpty();
      assertThat(events.failedCalls).isEmpty();
    }
  }

  @Test
  void healthChecksAloneFindAFrozenReplicaWhenLoadScrapingIsOff() throws Exception {
    EmulatedReplica victim = start(EmulatedReplica.builder().id("victim").instant());
    EmulatedReplica other = start(EmulatedReplica.builder().id("other").instant());
    victim.faults().delayNext(1, Duration.ofSeconds(30));
    try (LlmClient client = client(fleet(victim, other)).loadMonitoring(LoadMonitoring.disabled())
        .healthCheck(HealthCheck.builder().interval(Duration.ofMillis(200))
            .timeout(Duration.ofMillis(200)).build()).build()) {
      CompletableFuture<ChatResponse> caught =
          CompletableFuture.supplyAsync(() -> client.chat(chat(0)), caller);
      EventRecorder.await("the call reached the victim", Duration.ofSeconds(10),
          () -> victim.stats().chatRequests() == 1);
      victim.freeze();

      assertThat(answeredBy(caught.get(20, TimeUnit.SECONDS))).isEqualTo("other");
      assertThat(events.health).anySatisfy(e -> {
        assertThat(e.replicaId()).isEqualTo("victim");
        assertThat(e.reason()).startsWith("stopped answering: ").contains("last: health check");
      });
      victim.thaw();
      EventRecorder.await("the victim back", Duration.ofSeconds(10),
          () -> events.health.stream().anyMatch(HealthChangedEvent::healthy));
    }
  }

  @Test
  void aStallTimeoutOfZeroLeavesTheCallToItsFirstByteTimeout() throws Exception {
    EmulatedReplica victim = start(EmulatedReplica.builder().id("victim").instant());
    EmulatedReplica other = start(EmulatedReplica.builder().id("other").instant());
    victim.faults().delayNext(1, Duration.ofSeconds(30));
    try (LlmClient client = client(fleet(victim, other)).stallTimeout(Duration.ZERO)
        .firstByteTimeout(Duration.ofSeconds(4)).build()) {
      CompletableFuture<ChatResponse> caught =
          CompletableFuture.supplyAsync(() -> client.chat(chat(0)), caller);
      EventRecorder.await("the call reached the victim", Duration.ofSeconds(10),
          () -> victim.stats().chatRequests() == 1);
      victim.freeze();
      for (int i = 0; i < 3; i++) client.scrapeLoadNow().get(10, TimeUnit.SECONDS);

      assertThat(caught).isNotDone();
      assertThat(events.health).isEmpty();
      assertThat(answeredBy(caught.get(20, TimeUnit.SECONDS))).isEqualTo("other");
      assertThat(events.failedAttempts).singleElement().satisfies(a ->
          assertThat(a.failure()).hasMessageContaining("timed out"));
    }
  }

  /** Reads a stream to its end; {@return which replica sent it} */
  private static String streamed(LlmClient client, ChatRequest request) {
    String id = null;
    int chunks = 0;
    try (ResponseStream<ChatChunk> stream = client.chatStream(request)) {
      for (ChatChunk c : stream) {
        if (id == null) id = c.id();
        if (++chunks > 1_000) break;
      }
    }
    // The emulator's ids are chatcmpl-<replica>-<sequence>.
    String rest = String.valueOf(id).substring("chatcmpl-".length());
    return rest.substring(0, rest.lastIndexOf('-'));
  }

  /** Streams calls until the client has timed enough of them to judge a replica by. */
  private static void learn(LlmClient client) {
    for (int i = 0; i < 24; i++) streamed(client, chat(1_000 + i));
  }

  @Test
  void aStreamWaitingOnAReplicaWhoseFrontAnswersWhileItsEngineIsWedgedFailsOver()
      throws Exception {
    EmulatedReplica victim = start(EmulatedReplica.builder().id("victim").instant());
    EmulatedReplica other = start(EmulatedReplica.builder().id("other").instant());
    try (LlmClient client = client(fleet(victim, other)).build()) {
      learn(client);
      victim.faults().stallNext(1_000); // headers, then nothing; /metrics answers throughout

      List<String> answeredBy = new ArrayList<>();
      for (int i = 0; i < 6; i++) {
        int n = i;
        answeredBy.add(CompletableFuture.supplyAsync(() -> streamed(client, chat(n)), caller)
            .get(20, TimeUnit.SECONDS)); // far below the 60 s first-byte timeout
      }
      assertThat(answeredBy).containsOnly("other");
      assertThat(events.failedCalls).isEmpty();
      assertThat(events.failedAttempts).isNotEmpty().allSatisfy(a -> {
        assertThat(a.replicaId()).isEqualTo("victim");
        assertThat(a.failure()).isInstanceOf(ReplicaUnreachableException.class)
            .hasMessageContaining("stopped answering before this attempt got any answer");
        assertThat(a.willRetry()).isTrue();
      });
      assertThat(events.health).first().satisfies(e -> {
        assertThat(e.replicaId()).isEqualTo("victim");
        assertThat(e.healthy()).isFalse();
        assertThat(e.reason()).startsWith("stopped answering: a call waited ")
            .contains("for its first chunk and nothing was delivered for ");
      });
    }
  }

  @Test
  void aReplicaThatHangsAgainAfterItsFrontBringsItBackIsEjected() throws Exception {
    EmulatedReplica victim = start(EmulatedReplica.builder().id("victim").instant());
    EmulatedReplica other = start(EmulatedReplica.builder().id("other").instant());
    try (LlmClient client = client(fleet(victim, other)).build()) {
      learn(client);
      victim.faults().stallNext(1_000);
      EventRecorder.await("the victim ejected", Duration.ofSeconds(30), () -> {
        assertThat(streamed(client, chat(0))).isEqualTo("other");
        client.scrapeLoadNow(); // its front answers: it is back, and hangs again
        return events.ejections.stream().anyMatch(e -> e.ejected()
            && e.replicaId().equals("victim"));
      });
      assertThat(events.ejections).last().satisfies(e ->
          assertThat(e.reason()).contains("stopped answering again"));
      assertThat(events.failedCalls).isEmpty();
    }
  }

  @Test
  void aLongPromptOfAKindNotYetTimedIsNotTakenForAHang() throws Exception {
    EmulatedReplica slow = start(EmulatedReplica.builder().id("slow").instant());
    EmulatedReplica other = start(EmulatedReplica.builder().id("other").instant());
    try (LlmClient client = client(fleet(slow, other)).build()) {
      learn(client); // short prompts only
      slow.faults().delayNext(1, STALL.multipliedBy(3));
      ChatRequest longPrompt = ChatRequest.builder("m")
          .message(ChatMessage.user("a long document ".repeat(2_000))).maxTokens(4).build();
      // Round robin: the next call goes to the slow replica.
      assertThat(streamed(client, longPrompt)).isEqualTo("slow");
      assertThat(events.failedAttempts).isEmpty();
      assertThat(events.health).isEmpty();
    }
  }

  @Test
  void withNothingScrapingOrCheckingAWedgedReplicaIsFoundByItsWaitingStreamsAndEjected()
      throws Exception {
    EmulatedReplica victim = start(EmulatedReplica.builder().id("victim").instant());
    EmulatedReplica other = start(EmulatedReplica.builder().id("other").instant());
    try (LlmClient client = client(fleet(victim, other))
        .loadMonitoring(LoadMonitoring.disabled()).build()) {
      learn(client);
      victim.faults().stallNext(1_000);
      for (int i = 0; i < 4; i++) {
        int n = i;
        assertThat(CompletableFuture.supplyAsync(() -> streamed(client, chat(n)), caller)
            .get(20, TimeUnit.SECONDS)).isEqualTo("other");
      }
      assertThat(events.failedAttempts).singleElement().satisfies(a ->
          assertThat(a.replicaId()).isEqualTo("victim"));
      assertThat(events.ejections).singleElement().satisfies(e -> {
        assertThat(e.replicaId()).isEqualTo("victim");
        assertThat(e.reason()).contains("stopped answering: a call waited ");
      });
      assertThat(events.health).isEmpty();
    }
  }
}
