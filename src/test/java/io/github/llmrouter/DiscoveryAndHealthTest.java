package io.github.llmrouter;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.github.llmrouter.api.ChatMessage;
import io.github.llmrouter.api.ChatRequest;
import io.github.llmrouter.api.ChatResponse;
import io.github.llmrouter.api.NoReplicaAvailableException;
import io.github.llmrouter.dispatch.CircuitBreakerPolicy;
import io.github.llmrouter.dispatch.RetryPolicy;
import io.github.llmrouter.load.LoadMonitoring;
import io.github.llmrouter.observe.CircuitBreakerEvent;
import io.github.llmrouter.observe.MembershipEvent;
import io.github.llmrouter.observe.PanicEvent;
import io.github.llmrouter.replica.AddressLookup;
import io.github.llmrouter.replica.DnsResolver;
import io.github.llmrouter.replica.HealthCheck;
import io.github.llmrouter.replica.OutlierDetection;
import io.github.llmrouter.replica.Replica;
import io.github.llmrouter.replica.ReplicaResolver;
import io.github.llmrouter.replica.ReplicaSet;
import io.github.llmrouter.routing.Ranking;
import io.github.llmrouter.routing.ReplicaPicker;
import io.github.llmrouter.routing.RoutingPolicy;
import io.github.llmrouter.routing.RoutingRequest;
import io.github.llmrouter.emulator.EmulatedReplica;
import io.github.llmrouter.testing.EventRecorder;
import io.github.llmrouter.testing.ManualTicker;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The client following a live fleet: resolvers, waiting for the first replica, health checks,
 * circuit breakers and panic, end to end on loopback.
 */
class DiscoveryAndHealthTest {
  private static final RetryPolicy FAST = RetryPolicy.builder()
      .initialBackoff(Duration.ofMillis(1)).maxBackoff(Duration.ofMillis(2)).build();

  private final List<EmulatedReplica> servers = new ArrayList<>();
  private final EventRecorder events = new EventRecorder();
  private final ExecutorService threads = Executors.newCachedThreadPool();

  @AfterEach
  void stop() throws InterruptedException {
    threads.shutdownNow();
    threads.awaitTermination(10, TimeUnit.SECONDS);
    servers.forEach(EmulatedReplica::close);
  }

  private Replica start(String id) {
    EmulatedReplica s = EmulatedReplica.builder().id(id).instant().build().start();
    servers.add(s);
    return Replica.builder(s.baseUrl()).id(id).build();
  }

  private static ChatRequest chat(String text) {
    return ChatRequest.builder("m").message(ChatMessage.user(text)).maxTokens(2).build();
  }

  /** A resolver the test drives by hand, as a push-based registry would. */
  private static final class HandResolver implements ReplicaResolver {
    final AtomicReference<Context> context = new AtomicReference<>();

    @Override
    public void start(Context c) {
      context.set(c);
    }

    void publish(Replica... replicas) {
      context.get().publish(ReplicaSet.of(List.of(replicas)));
    }

    @Override
    public String name() {
      return "by hand";
    }
  }

  private static void awaitWaiting(Thread t) {
    EventRecorder.await("the caller to wait", Duration.ofSeconds(10),
        () -> t.getState() == Thread.State.WAITING || t.getState() == Thread.State.TIMED_WAITING);
  }

  @Test
  void aCallWaitsForTheFirstReplicaAndWhenReadyCompletesWithIt() throws Exception {
    HandResolver resolver = new HandResolver();
    try (LlmClient client = LlmClient.builder().resolver(resolver).listener(events).build()) {
      CompletableFuture<List<Replica>> ready = client.whenReady();
      assertThat(ready).isNotDone();
      AtomicReference<Thread> caller = new AtomicReference<>();
      Future<ChatResponse> call = threads.submit(() -> {
        caller.set(Thread.currentThread());
        return client.chat(chat("hello"));
      });
      EventRecorder.await("the call to start", Duration.ofSeconds(10), () -> caller.get() != null);
      awaitWaiting(caller.get());
      CompletableFuture<ChatResponse> async = client.chatAsync(chat("hello again"));
      assertThat(call).isNotDone();
      assertThat(async).isNotDone();

      Replica r = start("first");
      resolver.publish(r);
      assertThat(call.get(10, TimeUnit.SECONDS).text()).isNotEmpty();
      assertThat(async.get(10, TimeUnit.SECONDS).text()).isNotEmpty();
      assertThat(ready.get(1, TimeUnit.SECONDS)).containsExactly(r);
      assertThat(events.membership).singleElement().satisfies(e -> {
        assertThat(e.replicaId()).isEqualTo("first");
        assertThat(e.change()).isEqualTo(MembershipEvent.Change.ADDED);
        assertThat(e.reason()).isEqualTo("by hand");
      });
    }
  }

  @Test
  void aWaitingCallFailsClearlyAtItsDeadline() {
    try (LlmClient client = LlmClient.builder().resolver(new HandResolver())
        .callTimeout(Duration.ofMillis(200)).build()) {
      long start = System.nanoTime();
      assertThatThrownBy(() -> client.chat(chat("anyone?")))
          .isInstanceOf(NoReplicaAvailableException.class)
          .hasMessageContaining("deadline");
      assertThat(Duration.ofNanos(System.nanoTime() - start)).isGreaterThan(Duration.ofMillis(150));
      assertThatThrownBy(() -> client.chatAsync(chat("anyone?")).get(10, TimeUnit.SECONDS))
          .isInstanceOf(ExecutionException.class)
          .hasCauseInstanceOf(NoReplicaAvailableException.class);
    }
  }

  @Test
  void waitingCallsAreBoundedAndClosingReleasesThem() throws Exception {
    LlmClient client = LlmClient.builder().resolver(new HandResolver()).maxWaitingCalls(1).build();
    AtomicReference<Thread> caller = new AtomicReference<>();
    Future<?> waiting = threads.submit(() -> {
      caller.set(Thread.currentThread());
      return client.chat(chat("first in line"));
    });
    EventRecorder.await("the call to start", Duration.ofSeconds(10), () -> caller.get() != null);
    awaitWaiting(caller.get());
    assertThatThrownBy(() -> client.chat(chat("second")))
        .isInstanceOf(NoReplicaAvailableException.class);
    client.close();
    assertThatThrownBy(() -> waiting.get(10, TimeUnit.SECONDS))
        .hasRootCauseMessage("client closed while waiting for replicas");
    assertThat(client.whenReady()).isCompletedExceptionally();

    try (LlmClient noWaiting = LlmClient.builder().resolver(new HandResolver()).maxWaitingCalls(0)
        .build()) {
      assertThatThrownBy(() -> noWaiting.chat(chat("now"))).isInstanceOf(NoReplicaAvailableException.class);
    }
  }

  @Test
  void membershipFollowsTheResolverAndReplicasKeepTheirIdentity() throws Exception {
    HandResolver resolver = new HandResolver();
    Replica a = start("a");
    Replica b = start("b");
    Replica c = start("c");
    try (LlmClient client = LlmClient.builder().resolver(resolver).slowStart(Duration.ZERO)
        .listener(events).build()) {
      resolver.publish(a, b);
      for (int i = 0; i < 40; i++) client.chat(chat("key " + i));
      resolver.publish(a, b, c.toBuilder().weight(3).build());
      assertThat(client.replicas()).extracting(Replica::id).containsExactly("a", "b", "c");
      assertThat(client.replicas().get(2).weight()).isEqualTo(3.0);
      for (int i = 0; i < 60; i++) client.chat(chat("key " + i));
      assertThat(events.answered("c")).isPositive();
      resolver.publish(b, c); // c back at weight 1: an update, not a new replica
      int aBefore = events.answered("a");
      for (int i = 0; i < 40; i++) client.chat(chat("key " + i));
      assertThat(events.answered("a")).isEqualTo(aBefore);
      assertThat(events.membership).extracting(e -> e.replicaId() + " " + e.change())
          .containsExactly("a ADDED", "b ADDED", "c ADDED", "c UPDATED", "a REMOVED");
    }
  }

  @Test
  void aReplicaJoiningALiveFleetTakesKeysOnlyForItself() throws Exception {
    HandResolver resolver = new HandResolver();
    Replica a = start("a");
    Replica b = start("b");
    Replica c = start("c");
    Replica d = start("d");
    // Consistent hashing: a joining replica takes only the keys whose ring points it now owns.
    // No load reports: a scrape or header read mid-call (a replica reporting its own running
    // request) would make the bounded load move a key for a reason other than membership.
    try (LlmClient client = LlmClient.builder().resolver(resolver).slowStart(Duration.ZERO)
        .routingPolicy(io.github.llmrouter.routing.RoutingPolicy.prefixHash())
        .loadMonitoring(LoadMonitoring.disabled()).build()) {
      resolver.publish(a, b, c);
      java.util.Map<Integer, String> before = new java.util.HashMap<>();
      for (int i = 0; i < 120; i++) before.put(i, answeredBy(client.chat(chat("session " + i))));
      resolver.publish(c, a, b, d); // another order, one more replica
      int moved = 0;
      for (int i = 0; i < 120; i++) {
        String now = answeredBy(client.chat(chat("session " + i)));
        if (!now.equals(before.get(i))) {
          assertThat(now).as("a key that moved went to the new replica").isEqualTo("d");
          moved++;
        }
      }
      assertThat(moved).isBetween(10, 60); // about a quarter of the keys
      for (int i = 0; i < 120; i++) {
        assertThat(answeredBy(client.chat(chat("session " + i)))).as("key %d again", i)
            .isEqualTo(answeredBy(client.chat(chat("session " + i))));
      }
    }
  }

  /**
   * A user-written policy: the newest replica first, and a request's affinity key is the session
   * tag at the end of its prompt, which the built-in 100-character prefix key never sees.
   */
  private static final class NewestFirstBySession implements RoutingPolicy {
    @Override
    public ReplicaPicker newPicker(ReplicaSet replicas) {
      int n = replicas.size();
      return (request, load) -> new Ranking() {
        int returned;

        @Override
        public int next() {
          return returned == n ? -1 : n - 1 - returned++;
        }

        @Override
        public String reason() {
          return "newest first";
        }
      };
    }

    @Override
    public long affinityKey(RoutingRequest request) {
      String prompt = String.valueOf(request.prompt());
      return prompt.substring(prompt.lastIndexOf('#')).hashCode();
    }
  }

  @Test
  void aSlowStartAdmitsByTheAffinityKeyOfAUserWrittenPolicy() throws Exception {
    HandResolver resolver = new HandResolver();
    ManualTicker ticker = new ManualTicker();
    Replica a = start("a");
    Replica b = start("b");
    Replica newcomer = start("new");
    try (LlmClient client = LlmClient.builder().resolver(resolver).ticker(ticker)
        .slowStart(Duration.ofSeconds(60)).routingPolicy(new NewestFirstBySession())
        .loadMonitoring(LoadMonitoring.disabled()).build()) {
      resolver.publish(a, b);
      client.chat(chat("warm up #0"));
      resolver.publish(a, b, newcomer);
      ticker.advance(Duration.ofSeconds(30)); // the newcomer takes part of the keys
      int sessionsOnNewcomer = 0;
      for (int session = 0; session < 30; session++) {
        java.util.Set<String> answeredBy = new java.util.HashSet<>();
        for (int turn = 0; turn < 6; turn++) {
          // Each turn's prompt differs from its first character on; its session tag does not.
          String prompt = "turn " + turn + " of conversation " + session + " " + "x".repeat(120)
              + " #" + session;
          answeredBy.add(answeredBy(client.chat(chat(prompt))));
        }
        assertThat(answeredBy).as("session %d: one answer for all its requests", session)
            .hasSize(1);
        if (answeredBy.contains("new")) sessionsOnNewcomer++;
      }
      assertThat(sessionsOnNewcomer).as("the slow start admits some keys, not all").isBetween(1, 29);
    }
  }

  private static String answeredBy(ChatResponse response) {
    return String.valueOf(response.extra().get("x_emulated_replica"));
  }

  @Test
  void aPollingResolverAndADnsResolverFeedTheClient() throws Exception {
    Replica r = start("polled");
    try (LlmClient client = LlmClient.builder()
        .resolver(ReplicaResolver.polling(() -> List.of(r), Duration.ofMillis(50))).build()) {
      assertThat(client.whenReady().get(10, TimeUnit.SECONDS)).containsExactly(r);
      assertThat(client.chat(chat("hi")).text()).isNotEmpty();
    }
    EmulatedReplica local = servers.get(0);
    try (LlmClient client = LlmClient.builder()
        .resolver(DnsResolver.builder("localhost", local.port()).lookup(AddressLookup.system()).build())
        .build()) {
      List<Replica> replicas = client.whenReady().get(10, TimeUnit.SECONDS);
      assertThat(replicas).extracting(Replica::id).contains("127.0.0.1:" + local.port());
      assertThat(client.chat(chat("via localhost")).text()).isNotEmpty();
    }
  }

  @Test
  void activeHealthChecksTakeAnUnhealthyReplicaOutAndBringItBack() throws Exception {
    List<Replica> replicas = List.of(start("h0"), start("h1"), start("h2"));
    EmulatedReplica sick = servers.get(0);
    HealthCheck checks = HealthCheck.builder().interval(Duration.ofMillis(20))
        .timeout(Duration.ofMillis(500)).build();
    try (LlmClient client = LlmClient.builder().replicas(replicas).healthCheck(checks)
        .slowStart(Duration.ZERO).listener(events).build()) {
      sick.faults().healthStatus(503);
      EventRecorder.await("h0 marked down", Duration.ofSeconds(10),
          () -> events.health.stream().anyMatch(e -> e.replicaId().equals("h0") && !e.healthy()));
      assertThat(events.health.get(0).reason()).isEqualTo("3 failed checks, last: HTTP 503");
      int before = events.answered("h0");
      for (int i = 0; i < 40; i++) client.chat(chat("key " + i));
      assertThat(events.answered("h0")).isEqualTo(before);

      sick.faults().healthStatus(200);
      EventRecorder.await("h0 marked up", Duration.ofSeconds(10),
          () -> events.health.stream().anyMatch(e -> e.replicaId().equals("h0") && e.healthy()));
      // New prompts: the earlier ones are cached where they went, and stay there.
      for (int i = 0; i < 40; i++) client.chat(chat("another key " + i));
      assertThat(events.answered("h0")).isGreaterThan(before);
    }
  }

  @Test
  void openBreakersAreSkippedAndWhenAllAreOpenTheClientPanicsAndStillTries() throws Exception {
    ManualTicker ticker = new ManualTicker();
    List<Replica> replicas = List.of(start("p0"), start("p1"));
    CircuitBreakerPolicy breaker = CircuitBreakerPolicy.builder().slidingWindowSize(2)
        .minimumCalls(2).openDuration(Duration.ofSeconds(10)).halfOpenCalls(1).build();
    try (LlmClient client = LlmClient.builder().replicas(replicas).retryPolicy(FAST)
        .outlierDetection(OutlierDetection.disabled()).circuitBreaker(breaker).ticker(ticker)
        .listener(events).build()) {
      servers.get(0).faults().failNext(2, 503);
      // p0 fails twice (each call fails over to p1): its breaker opens.
      for (int i = 0; i < 20 && events.breakers.isEmpty(); i++) client.chat(chat("key " + i));
      assertThat(events.breakers).extracting(CircuitBreakerEvent::replicaId, CircuitBreakerEvent::to)
          .containsExactly(org.assertj.core.groups.Tuple.tuple("p0", "OPEN"));
      int p0 = events.answered("p0");
      for (int i = 0; i < 20; i++) client.chat(chat("key " + i));
      assertThat(events.answered("p0")).as("skipped while open").isEqualTo(p0);

      servers.get(1).faults().failNext(2, 503);
      for (int i = 0; i < 20 && events.breakers.size() < 2; i++) {
        try {
          client.chat(chat("key " + i));
        } catch (RuntimeException expected) {
          // with p0 open, p1's failures have nowhere to fail over to
        }
      }
      assertThat(events.breakers).extracting(CircuitBreakerEvent::to).containsExactly("OPEN", "OPEN");

      // Both open: panic, and the call is still tried (and answered).
      assertThat(client.chat(chat("panic")).text()).isNotEmpty();
      assertThat(events.panics).extracting(PanicEvent::entered).containsExactly(true);

      ticker.advance(Duration.ofSeconds(11)); // half-open: probes allowed, panic over
      assertThat(client.chat(chat("probe")).text()).isNotEmpty();
      assertThat(events.panics).extracting(PanicEvent::entered).containsExactly(true, false);
      assertThat(events.breakers).extracting(CircuitBreakerEvent::to).contains("HALF_OPEN", "CLOSED");
    }
  }
}
