package io.github.llmrouter;

import static io.github.llmrouter.Fixtures.CHAT_JSON;
import static io.github.llmrouter.Fixtures.chat;
import static io.github.llmrouter.Fixtures.ok;
import static io.github.llmrouter.Fixtures.status;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.github.llmrouter.api.ReplicaHttpException;
import io.github.llmrouter.api.ReplicaUnreachableException;
import io.github.llmrouter.api.RetriesExhaustedException;
import io.github.llmrouter.api.Ticker;
import io.github.llmrouter.dispatch.RetryPolicy;
import io.github.llmrouter.internal.load.LocalLoad;
import io.github.llmrouter.load.LoadMonitoring;
import io.github.llmrouter.observe.AttemptFailedEvent;
import io.github.llmrouter.observe.RoutedEvent;
import io.github.llmrouter.replica.Replica;
import io.github.llmrouter.replica.ReplicaSet;
import io.github.llmrouter.routing.PrefixHash;
import io.github.llmrouter.routing.Ranking;
import io.github.llmrouter.routing.RoutingPolicy;
import io.github.llmrouter.routing.RoutingRequest;
import io.github.llmrouter.testing.EventRecorder;
import java.net.InetAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import mockwebserver3.MockResponse;
import mockwebserver3.MockWebServer;
import mockwebserver3.SocketEffect;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Failover goes to the key's next ring neighbour, on every kind of retryable failure. */
class FailoverTest {
  private static final RetryPolicy FAST = RetryPolicy.builder()
      .initialBackoff(Duration.ofMillis(1)).maxBackoff(Duration.ofMillis(2)).build();

  private final List<MockWebServer> servers = new ArrayList<>();
  private final Map<String, MockWebServer> byId = new HashMap<>();
  private final EventRecorder events = new EventRecorder();
  private List<Replica> replicas;

  @BeforeEach
  void startServers() throws Exception {
    replicas = new ArrayList<>();
    for (int i = 0; i < 4; i++) {
      MockWebServer s = new MockWebServer();
      s.start(InetAddress.getLoopbackAddress(), 0);
      servers.add(s);
      Replica r = Replica.builder(s.url("/").toString()).id("replica-" + i).build();
      replicas.add(r);
      byId.put(r.id(), s);
    }
  }

  @AfterEach
  void stopServers() {
    servers.forEach(MockWebServer::close);
  }

  private LlmClient client(RetryPolicy retry) {
    // Every exchange is scripted: no background /metrics scrapes.
    // The ranks are PrefixHash's ring walk: failover to the key's next ring neighbour.
    return LlmClient.builder().replicas(replicas).retryPolicy(retry).listener(events)
        .routingPolicy(RoutingPolicy.prefixHash()).loadMonitoring(LoadMonitoring.disabled())
        .modelDiscoveryInterval(Duration.ZERO)
        .firstByteTimeout(Duration.ofSeconds(5)).build();
  }

  /** The ids of the first {@code n} ranks for the chat prompt, computed independently of the client. */
  private List<String> expectedRanks(String userText, int n) {
    ReplicaSet set = ReplicaSet.of(replicas);
    Ranking ranking = PrefixHash.builder().build().newPicker(set)
        .rank(RoutingRequest.of("m", userText), LocalLoad.of(set));
    List<String> ids = new ArrayList<>();
    for (int i = 0; i < n; i++) ids.add(set.get(ranking.next()).id());
    return ids;
  }

  @Test
  void failsOverOn503ToTheNextRingNeighbour() throws Exception {
    List<String> ranks = expectedRanks("question", 2);
    byId.get(ranks.get(0)).enqueue(status(503));
    byId.get(ranks.get(1)).enqueue(ok(CHAT_JSON));

    try (LlmClient client = client(FAST)) {
      assertThat(client.chat(chat("question")).text()).isEqualTo("hello");
    }

    assertThat(events.routed).extracting(RoutedEvent::replicaId).containsExactlyElementsOf(ranks);
    assertThat(events.failedAttempts).singleElement().satisfies(e -> {
      assertThat(e.willRetry()).isTrue();
      assertThat(((ReplicaHttpException) e.failure()).status()).isEqualTo(503);
    });
  }

  @Test
  void failsOverOnConnectionRefused() throws Exception {
    List<String> ranks = expectedRanks("refused", 2);
    int dead = indexOf(ranks.get(0));
    replicas.set(dead, Replica.builder(Fixtures.closedPortUrl()).id(ranks.get(0)).build());
    byId.get(ranks.get(1)).enqueue(ok(CHAT_JSON));

    try (LlmClient client = client(FAST)) {
      assertThat(client.chat(chat("refused")).text()).isEqualTo("hello");
    }
    assertThat(events.failedAttempts).singleElement()
        .satisfies(e -> assertThat(e.failure()).isInstanceOf(ReplicaUnreachableException.class));
    assertThat(events.routed.get(1).replicaId()).isEqualTo(ranks.get(1));
  }

  @Test
  void failsOverOnConnectionResetBeforeAResponse() throws Exception {
    List<String> ranks = expectedRanks("reset", 2);
    byId.get(ranks.get(0)).enqueue(new MockResponse.Builder()
        .onRequestStart(new SocketEffect.CloseSocket(true, false, false)).build());
    byId.get(ranks.get(1)).enqueue(ok(CHAT_JSON));

    try (LlmClient client = client(FAST)) {
      assertThat(client.chat(chat("reset")).text()).isEqualTo("hello");
    }
    assertThat(events.failedAttempts).singleElement()
        .satisfies(e -> assertThat(e.failure()).isInstanceOf(ReplicaUnreachableException.class));
    assertThat(events.routed).extracting(RoutedEvent::replicaId).containsExactlyElementsOf(ranks);
  }

  @Test
  void doesNotRetryClientErrors() {
    List<String> ranks = expectedRanks("bad", 1);
    byId.get(ranks.get(0)).enqueue(status(400));

    try (LlmClient client = client(FAST)) {
      assertThatThrownBy(() -> client.chat(chat("bad")))
          .isInstanceOfSatisfying(ReplicaHttpException.class, e -> {
            assertThat(e.status()).isEqualTo(400);
            assertThat(e.bodyExcerpt()).contains("nope");
            assertThat(e.isRetryable()).isFalse();
          });
    }
    assertThat(events.routed).hasSize(1);
  }

  @Test
  void exhaustedRetriesCarryEveryAttemptsCause() {
    for (MockWebServer s : servers) s.enqueue(status(502));

    try (LlmClient client = client(FAST)) {
      assertThatThrownBy(() -> client.chat(chat("all down")))
          .isInstanceOfSatisfying(RetriesExhaustedException.class, e -> {
            assertThat(e.attempts()).hasSize(3)
                .allSatisfy(a -> assertThat(a.status()).hasValue(502));
            assertThat(e.getSuppressed()).hasSize(2);
            assertThat(e.getMessage()).contains("3 attempts");
          });
    }
    assertThat(events.routed).extracting(RoutedEvent::replicaId).doesNotHaveDuplicates().hasSize(3);
  }

  @Test
  void aRetryAfterDoesNotDelayFailoverItPausesTheReplicaThatSentIt() {
    List<String> ranks = expectedRanks("busy", 3);
    byId.get(ranks.get(0)).enqueue(new MockResponse.Builder().code(429)
        .setHeader("Retry-After", "3600").body("slow down").build());
    byId.get(ranks.get(1)).enqueue(new MockResponse.Builder().code(503)
        .setHeader("Retry-After", "0").body("").build());
    byId.get(ranks.get(1)).enqueue(ok(CHAT_JSON));
    byId.get(ranks.get(2)).enqueue(ok(CHAT_JSON));
    RetryPolicy retry = RetryPolicy.builder().initialBackoff(Duration.ofMillis(1))
        .maxBackoff(Duration.ofMillis(1)).jitter(0).maxRetryAfter(Duration.ofMinutes(1)).build();

    try (LlmClient client = client(retry)) {
      client.chat(chat("busy"));
      // The first replica asked for an hour (capped at a minute): the same key now skips it.
      events.routed.clear();
      client.chat(chat("busy"));
    }
    // Failover waits only the ordinary backoff, whatever Retry-After said.
    assertThat(events.failedAttempts).extracting(AttemptFailedEvent::backoff)
        .containsExactly(Duration.ofMillis(1), Duration.ofMillis(1));
    assertThat(events.routed).extracting(RoutedEvent::replicaId).doesNotContain(ranks.get(0));
  }

  @Test
  void a503WithRetryAfterZeroFailsOverInsteadOfBeingRepeatedByOkHttp() {
    for (MockWebServer s : servers) {
      s.setDispatcher(new mockwebserver3.Dispatcher() {
        @Override
        public MockResponse dispatch(mockwebserver3.RecordedRequest request) {
          return new MockResponse.Builder().code(503).setHeader("Retry-After", "0").body("").build();
        }
      });
    }
    try (LlmClient client = client(FAST)) {
      assertThatThrownBy(() -> client.chat(chat("zero"))).isInstanceOf(RetriesExhaustedException.class);
    }
    assertThat(events.routed).extracting(RoutedEvent::replicaId).doesNotHaveDuplicates().hasSize(3);
    for (RoutedEvent e : events.routed) assertThat(byId.get(e.replicaId()).getRequestCount()).isEqualTo(1);
    assertThat(servers.stream().mapToInt(MockWebServer::getRequestCount).sum()).isEqualTo(3);
  }

  @Test
  void retryBudgetStopsARetryStorm() {
    // Every replica fails every request. Without a budget, 40 calls x 3 attempts = 120 requests.
    for (MockWebServer s : servers) {
      s.setDispatcher(new mockwebserver3.Dispatcher() {
        @Override
        public MockResponse dispatch(mockwebserver3.RecordedRequest request) {
          return status(503);
        }
      });
    }
    RetryPolicy retry = RetryPolicy.builder().initialBackoff(Duration.ofNanos(1))
        .maxBackoff(Duration.ofNanos(1)).budgetRatio(0.2).minRetriesPerSecond(0).build();
    Ticker frozen = () -> 0L;
    int calls = 40;
    List<Integer> attemptsPerCall = new ArrayList<>();
    try (LlmClient client = LlmClient.builder().replicas(replicas).retryPolicy(retry)
        .listener(events).ticker(frozen).loadMonitoring(LoadMonitoring.disabled())
        .modelDiscoveryInterval(Duration.ZERO).build()) {
      for (int i = 0; i < calls; i++) {
        try {
          client.chat(chat("storm " + i));
          throw new AssertionError("every replica answers 503");
        } catch (RetriesExhaustedException e) {
          attemptsPerCall.add(e.attempts().size());
        }
      }
    }
    // Each call earns a fifth of a retry: every fifth call may retry once (its second failure
    // finds the budget empty again), the others not at all. 40 calls: 8 retries, 48 requests
    // instead of 120.
    List<Integer> expected = new ArrayList<>();
    for (int i = 1; i <= calls; i++) expected.add(i % 5 == 0 ? 2 : 1);
    assertThat(attemptsPerCall).containsExactlyElementsOf(expected);
    int requests = servers.stream().mapToInt(MockWebServer::getRequestCount).sum();
    assertThat(requests).isEqualTo(48);
    assertThat(events.failedAttempts).extracting(AttemptFailedEvent::whyNot).filteredOn(w -> !w.isEmpty())
        .hasSize(calls).containsOnly("retry budget exhausted");
  }

  @Test
  void asyncCallsFailOverToo() throws Exception {
    List<String> ranks = expectedRanks("async", 2);
    byId.get(ranks.get(0)).enqueue(status(500));
    byId.get(ranks.get(1)).enqueue(ok(CHAT_JSON));
    try (LlmClient client = client(RetryPolicy.builder().initialBackoff(Duration.ofMillis(5))
        .maxBackoff(Duration.ofMillis(5)).build())) {
      assertThat(client.chatAsync(chat("async")).get(10, TimeUnit.SECONDS).text()).isEqualTo("hello");
    }
    assertThat(events.routed).extracting(RoutedEvent::replicaId).containsExactlyElementsOf(ranks);
  }

  private int indexOf(String id) {
    for (int i = 0; i < replicas.size(); i++) if (replicas.get(i).id().equals(id)) return i;
    throw new AssertionError(id);
  }
}
