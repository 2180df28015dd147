package io.github.llmrouter;

import static io.github.llmrouter.Fixtures.CHAT_JSON;
import static io.github.llmrouter.Fixtures.chat;
import static io.github.llmrouter.Fixtures.ok;
import static io.github.llmrouter.Fixtures.status;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.github.llmrouter.api.FailedAttempt;
import io.github.llmrouter.api.LlmException;
import io.github.llmrouter.api.ReplicaHttpException;
import io.github.llmrouter.api.RetriesExhaustedException;
import io.github.llmrouter.dispatch.RetryPolicy;
import io.github.llmrouter.internal.load.LocalLoad;
import io.github.llmrouter.load.LoadMonitoring;
import io.github.llmrouter.replica.Replica;
import io.github.llmrouter.replica.ReplicaSet;
import io.github.llmrouter.routing.PrefixHash;
import io.github.llmrouter.routing.RoutingRequest;
import io.github.llmrouter.testing.EventRecorder;
import java.net.InetAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import mockwebserver3.Dispatcher;
import mockwebserver3.MockResponse;
import mockwebserver3.MockWebServer;
import mockwebserver3.RecordedRequest;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A lone replica is retried; Retry-After pauses the replica that sent it instead of delaying
 * failover; and a call the router gave up on always ends in RetriesExhaustedException.
 */
class RetryRulesTest {
  private static final RetryPolicy FAST = RetryPolicy.builder()
      .initialBackoff(Duration.ofMillis(1)).maxBackoff(Duration.ofMillis(2)).build();

  private final List<MockWebServer> servers = new ArrayList<>();
  private final EventRecorder events = new EventRecorder();

  @AfterEach
  void stop() {
    servers.forEach(MockWebServer::close);
  }

  private MockWebServer server() throws Exception {
    MockWebServer s = new MockWebServer();
    s.start(InetAddress.getLoopbackAddress(), 0);
    servers.add(s);
    return s;
  }

  private LlmClientBuilder client(MockWebServer... fleet) {
    LlmClientBuilder b = LlmClient.builder().retryPolicy(FAST).listener(events)
        .loadMonitoring(LoadMonitoring.disabled()).modelDiscoveryInterval(Duration.ZERO);
    for (MockWebServer s : fleet) b.replicas(s.url("/").toString());
    return b;
  }

  private static MockResponse busy(String retryAfter) {
    return new MockResponse.Builder().code(503).setHeader("Retry-After", retryAfter)
        .body("{\"error\":{\"message\":\"busy\"}}").build();
  }

  @Test
  void aTransient503FromTheOnlyReplicaIsRetriedOnIt() throws Exception {
    MockWebServer only = server();
    only.enqueue(status(503));
    only.enqueue(status(502));
    only.enqueue(ok(CHAT_JSON));
    try (LlmClient client = client(only).build()) {
      assertThat(client.chat(chat("hi")).text()).isEqualTo("hello");
    }
    assertThat(only.getRequestCount()).isEqualTo(3);
  }

  @Test
  void retriesGoRoundTheRankingAgainOnceEveryReplicaWasTried() throws Exception {
    MockWebServer a = server();
    MockWebServer b = server();
    for (MockWebServer s : List.of(a, b)) s.enqueue(status(503));
    for (MockWebServer s : List.of(a, b)) s.enqueue(ok(CHAT_JSON));
    try (LlmClient client = client(a, b).build()) {
      assertThat(client.chat(chat("hi")).text()).isEqualTo("hello");
    }
    assertThat(a.getRequestCount() + b.getRequestCount()).isEqualTo(3);
  }

  @Test
  void aRetryAfterFailsOverAtOnceAndKeepsTheDeadline() throws Exception {
    MockWebServer a = server();
    MockWebServer b = server();
    Replica ra = Replica.of(a.url("/").toString());
    Replica rb = Replica.of(b.url("/").toString());
    ReplicaSet set = ReplicaSet.of(List.of(ra, rb));
    int home = PrefixHash.builder().build().newPicker(set)
        .rank(RoutingRequest.of("m", "key"), LocalLoad.of(set)).next();
    MockWebServer keyReplica = home == 0 ? a : b;
    MockWebServer other = home == 0 ? b : a;
    keyReplica.enqueue(busy("5"));
    other.enqueue(ok(CHAT_JSON));
    other.enqueue(ok(CHAT_JSON));

    // The key's replica is PrefixHash's ring owner, which a second call would try first again.
    try (LlmClient client = client(a, b).routingPolicy(PrefixHash.builder().build())
        .callTimeout(Duration.ofMillis(700)).build()) {
      // Answered within its 700 ms deadline although the key's replica asked for 5 s: the call
      // did not wait for it (waiting would have ended it at once: the pause outlasts the deadline).
      assertThat(client.chat(chat("key")).text()).isEqualTo("hello");
      // The paused replica is skipped by the next call for the same key, for every call.
      assertThat(client.chat(chat("key")).text()).isEqualTo("hello");
    }
    assertThat(keyReplica.getRequestCount()).isEqualTo(1);
    assertThat(other.getRequestCount()).isEqualTo(2);
    // It failed over after the ordinary backoff (at most 2 ms here), not after Retry-After.
    assertThat(events.failedAttempts).singleElement().satisfies(e -> {
      assertThat(e.willRetry()).isTrue();
      assertThat(e.backoff()).isLessThanOrEqualTo(Duration.ofMillis(2));
    });
  }

  @Test
  void withNoOtherReplicaTheCallWaitsOutTheRetryAfterWithinItsDeadline() throws Exception {
    MockWebServer only = server();
    only.enqueue(busy("1"));
    only.enqueue(ok(CHAT_JSON));
    try (LlmClient client = client(only).callTimeout(Duration.ofSeconds(20)).build()) {
      long start = System.nanoTime();
      assertThat(client.chat(chat("hi")).text()).isEqualTo("hello");
      assertThat(Duration.ofNanos(System.nanoTime() - start))
          .isGreaterThanOrEqualTo(Duration.ofMillis(900));
    }
    assertThat(only.getRequestCount()).isEqualTo(2);
  }

  @Test
  void aRetryAfterBeyondTheDeadlineGivesUpAtOnceWithoutCallingItATimeout() throws Exception {
    MockWebServer only = server();
    only.setDispatcher(new Dispatcher() {
      @Override
      public MockResponse dispatch(RecordedRequest request) {
        return busy("5");
      }
    });
    try (LlmClient client = client(only).callTimeout(Duration.ofMillis(700)).build()) {
      assertThatThrownBy(() -> client.chat(chat("hi")))
          .isInstanceOfSatisfying(RetriesExhaustedException.class, e -> {
            assertThat(e.getMessage()).contains("Retry-After").doesNotContain("expired");
            assertThat(e.attempts()).singleElement()
                .satisfies(a -> assertThat(a.status()).hasValue(503));
          });
      // A new call does not even try: the only replica asked for 5 s, past its deadline.
      assertThatThrownBy(() -> client.chat(chat("again")))
          .isInstanceOf(io.github.llmrouter.api.NoReplicaAvailableException.class)
          .hasMessageContaining("Retry-After");
    }
    assertThat(only.getRequestCount()).isEqualTo(1);
  }

  @Test
  void inA503StormEveryFailedCallIsRetriesExhaustedWithEveryAttempt() throws Exception {
    List<MockWebServer> fleet = new ArrayList<>();
    for (int i = 0; i < 4; i++) {
      MockWebServer s = server();
      s.setDispatcher(new Dispatcher() {
        @Override
        public MockResponse dispatch(RecordedRequest request) {
          return status(503);
        }
      });
      fleet.add(s);
    }
    RetryPolicy budgeted = RetryPolicy.builder().initialBackoff(Duration.ZERO)
        .maxBackoff(Duration.ZERO).minRetriesPerSecond(0).build();
    List<LlmException> failures = new ArrayList<>();
    try (LlmClient client = client(fleet.toArray(new MockWebServer[0])).retryPolicy(budgeted)
        .build()) {
      for (int i = 0; i < 40; i++) {
        try {
          client.chat(chat("storm " + i));
        } catch (LlmException e) {
          failures.add(e);
        }
        try {
          client.chatAsync(chat("async storm " + i)).get(10, TimeUnit.SECONDS);
        } catch (ExecutionException e) {
          failures.add((LlmException) e.getCause());
        }
      }
    }
    assertThat(failures).hasSize(80).allSatisfy(e -> {
      assertThat(e).isInstanceOf(RetriesExhaustedException.class);
      List<FailedAttempt> attempts = ((RetriesExhaustedException) e).attempts();
      assertThat(attempts).isNotEmpty().allSatisfy(a -> {
        assertThat(a.status()).hasValue(503);
        assertThat(a.replicaId()).isNotBlank();
        assertThat(a.duration().isNegative()).isFalse();
      });
    });
    assertThat(failures).extracting(e -> ((RetriesExhaustedException) e).attempts().size())
        .as("the budget allows some retries, not all").contains(1).anyMatch(n -> n > 1);
  }

  @Test
  void aNonRetryableAnswerIsThrownAsItIsWithEarlierAttemptsAttached() throws Exception {
    MockWebServer only = server();
    only.enqueue(status(503));
    only.enqueue(status(400));
    try (LlmClient client = client(only).build()) {
      assertThatThrownBy(() -> client.chat(chat("hi")))
          .isInstanceOfSatisfying(ReplicaHttpException.class, e -> {
            assertThat(e.status()).isEqualTo(400);
            assertThat(e.getSuppressed()).singleElement()
                .satisfies(s -> assertThat(((ReplicaHttpException) s).status()).isEqualTo(503));
          });
    }
  }
}
