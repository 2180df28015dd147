package io.github.llmrouter.internal.dispatch;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.tuple;

import io.github.llmrouter.api.ChatChunk;
import io.github.llmrouter.api.ChatMessage;
import io.github.llmrouter.api.ChatRequest;
import io.github.llmrouter.api.ChatResponse;
import io.github.llmrouter.api.RawRequest;
import io.github.llmrouter.api.FleetSaturatedException;
import io.github.llmrouter.api.LlmException;
import io.github.llmrouter.api.LlmTimeoutException;
import io.github.llmrouter.api.ResponseStream;
import io.github.llmrouter.dispatch.Admission;
import io.github.llmrouter.dispatch.CircuitBreakerPolicy;
import io.github.llmrouter.dispatch.HedgePolicy;
import io.github.llmrouter.dispatch.RetryPolicy;
import io.github.llmrouter.internal.health.StatusTracker;
import io.github.llmrouter.internal.transport.Endpoint;
import io.github.llmrouter.internal.transport.HttpTransport;
import io.github.llmrouter.internal.transport.OkHttpClients;
import io.github.llmrouter.load.LoadMonitoring;
import io.github.llmrouter.load.LoadReport;
import io.github.llmrouter.observe.AttemptFailedEvent;
import io.github.llmrouter.observe.CallFinishedEvent;
import io.github.llmrouter.observe.CircuitBreakerEvent;
import io.github.llmrouter.observe.PanicEvent;
import io.github.llmrouter.observe.RoutedEvent;
import io.github.llmrouter.observe.RoutingListener;
import io.github.llmrouter.replica.OutlierDetection;
import io.github.llmrouter.replica.Replica;
import io.github.llmrouter.replica.ReplicaSet;
import io.github.llmrouter.routing.Ranking;
import io.github.llmrouter.routing.ReplicaPicker;
import io.github.llmrouter.routing.RoutingRequest;
import io.github.llmrouter.testing.EventRecorder;
import io.github.llmrouter.testing.ManualScheduler;
import io.github.llmrouter.testing.ManualTicker;
import java.net.InetAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import mockwebserver3.MockResponse;
import mockwebserver3.MockWebServer;
import okhttp3.OkHttpClient;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The attempt loop through the dispatcher, against loopback servers: blocking and asynchronous
 * calls take the same steps; an asynchronous call holds no thread and can be cancelled.
 */
class AttemptLoopTest {
  private static final String ANSWER = "{\"choices\":[{\"index\":0,\"message\":"
      + "{\"role\":\"assistant\",\"content\":\"hi\"}}]}";
  private static final RetryPolicy IMMEDIATE = RetryPolicy.builder()
      .initialBackoff(Duration.ZERO).maxBackoff(Duration.ZERO).build();

  private final ManualTicker ticker = new ManualTicker();
  private final ManualScheduler scheduler = new ManualScheduler();
  private final EventRecorder events = new EventRecorder();
  private final OkHttpClient http = OkHttpClients.configure(null, 16, Duration.ofSeconds(5),
      Duration.ofSeconds(30));
  private final List<MockWebServer> servers = new ArrayList<>();
  private StatusTracker statuses;
  private FleetState fleet;
  private RequestDispatcher dispatcher;

  @BeforeEach
  void start() {
    configure(IMMEDIATE, Duration.ZERO, events);
  }

  /** A dispatcher with {@code retry}, {@code callTimeout} and {@code listener}; fleet empty. */
  private void configure(RetryPolicy retry, Duration callTimeout, RoutingListener listener) {
    configure(retry, callTimeout, Admission.disabled(), listener);
  }

  private void configure(RetryPolicy retry, Duration callTimeout, Admission admission,
      RoutingListener listener) {
    configure(retry, callTimeout, CircuitBreakerPolicy.disabled(), admission, listener);
  }

  private void configure(RetryPolicy retry, Duration callTimeout, CircuitBreakerPolicy breakers,
      Admission admission, RoutingListener listener) {
    if (fleet != null) fleet.close();
    DispatcherConfig config = new DispatcherConfig(AttemptLoopTest::inSnapshotOrder, retry,
        HedgePolicy.disabled(), callTimeout, breakers, admission, 16,
        Duration.ofSeconds(3), ticker, listener, () -> listener != RoutingListener.NONE, 0);
    statuses = new StatusTracker(OutlierDetection.disabled(), Duration.ZERO, Duration.ZERO, ticker,
        listener);
    fleet = new FleetState(config, statuses, () -> scheduler);
    HttpTransport transport = new HttpTransport(http, null, Duration.ofSeconds(30),
        retry::isRetryableStatus, LoadMonitoring.disabled(), fleet, ticker, listener);
    dispatcher = new RequestDispatcher(config, fleet, transport, () -> scheduler);
  }

  /** Retries after a 10 s backoff, without jitter. */
  private static final RetryPolicy TEN_SECOND_BACKOFF = RetryPolicy.builder().jitter(0)
      .initialBackoff(Duration.ofSeconds(10)).maxBackoff(Duration.ofSeconds(10)).build();

  /** Records into {@link #events}, then runs {@code onRouted} or {@code onFailed}. */
  private RoutingListener recording(Runnable onRouted, Runnable onFailed) {
    return new RoutingListener() {
      @Override
      public void onRouted(RoutedEvent e) {
        events.onRouted(e);
        onRouted.run();
      }

      @Override
      public void onAttemptFailed(AttemptFailedEvent e) {
        events.onAttemptFailed(e);
        onFailed.run();
      }

      @Override
      public void onCallFinished(CallFinishedEvent e) {
        events.onCallFinished(e);
      }
    };
  }

  @AfterEach
  void stop() {
    fleet.close();
    for (MockWebServer s : servers) s.close();
    scheduler.shutdownNow();
    OkHttpClients.release(http);
  }

  /** Two replicas, {@code r0} and {@code r1}; each answers its scripted statuses in turn. */
  private void fleetOf(int[] r0, int[] r1) throws Exception {
    List<Replica> replicas = new ArrayList<>();
    int[][] scripts = {r0, r1};
    for (int i = 0; i < 2; i++) {
      MockWebServer s = new MockWebServer();
      s.start(InetAddress.getLoopbackAddress(), 0);
      for (int status : scripts[i]) {
        s.enqueue(new MockResponse.Builder().code(status).body(status == 200 ? ANSWER : "")
            .build());
      }
      servers.add(s);
      replicas.add(Replica.builder(s.url("/").toString()).id("r" + i).build());
    }
    fleet.update(ReplicaSet.of(replicas));
  }

  /** A policy that ranks every request's replicas in snapshot order. */
  static ReplicaPicker inSnapshotOrder(ReplicaSet replicas) {
    return (request, load) -> new Ranking() {
      private int next;

      @Override
      public int next() {
        return next < replicas.size() ? next++ : -1;
      }

      @Override
      public String reason() {
        return "snapshot order";
      }
    };
  }

  private static RoutingRequest routing() {
    return RoutingRequest.of("m", "hello");
  }

  private static RawRequest body() {
    return Endpoint.CHAT.request(ChatRequest.builder("m").message(ChatMessage.user("hello")).build(),
        true);
  }

  private List<String> steps() {
    List<String> steps = new ArrayList<>();
    for (RoutedEvent e : events.routed) steps.add("routed " + e.attempt() + " " + e.replicaId());
    for (AttemptFailedEvent e : events.failedAttempts) {
      steps.add("failed " + e.attempt() + " " + e.replicaId() + " retry=" + e.willRetry());
    }
    return steps;
  }

  @Test
  void blockingAndAsynchronousCallsTakeTheSameSteps() throws Exception {
    fleetOf(new int[] {503, 503}, new int[] {200, 200});
    ChatResponse blocking = dispatcher.call(Endpoint.CHAT, routing(), body());
    List<String> blockingSteps = steps();
    events.routed.clear();
    events.failedAttempts.clear();

    ChatResponse async = dispatcher.callAsync(Endpoint.CHAT, routing(), body())
        .get(10, TimeUnit.SECONDS);
    assertThat(async.text()).isEqualTo(blocking.text()).isEqualTo("hi");
    assertThat(steps()).isEqualTo(blockingSteps)
        .containsExactly("routed 1 r0", "routed 2 r1", "failed 1 r0 retry=true");
    assertThat(fleet.inFlight("r0") + fleet.inFlight("r1")).as("counters released").isZero();
  }

  @Test
  void cancellingAnAsynchronousCallCancelsItsExchangeAndReleasesTheReplica() throws Exception {
    fleetOf(new int[] {}, new int[] {});
    for (MockWebServer s : servers) {
      s.enqueue(new MockResponse.Builder().code(200).body(ANSWER)
          .headersDelay(30, TimeUnit.SECONDS).build());
    }
    CompletableFuture<ChatResponse> call = dispatcher.callAsync(Endpoint.CHAT, routing(), body());
    assertThat(servers.get(0).takeRequest(10, TimeUnit.SECONDS)).as("the exchange started")
        .isNotNull();
    assertThat(fleet.inFlight("r0")).isEqualTo(1);
    call.cancel(true);
    EventRecorder.await("the replica's in-flight count to return to 0", Duration.ofSeconds(10),
        () -> fleet.inFlight("r0") == 0);
    assertThat(events.failedAttempts).as("a cancelled attempt says nothing about the replica")
        .isEmpty();
    assertThat(events.routed).hasSize(1);
  }

  @Test
  void anAsynchronousCallWaitingForReplicasFailsWithTheReasonWhenTheClientCloses() {
    CompletableFuture<ChatResponse> call = dispatcher.callAsync(Endpoint.CHAT, routing(), body());
    assertThat(call).as("waiting for the fleet's first replicas").isNotDone();
    fleet.close();
    assertThat(call).failsWithin(Duration.ofSeconds(5))
        .withThrowableOfType(ExecutionException.class)
        .havingCause().isExactlyInstanceOf(LlmException.class)
        .withMessage("client closed while waiting for replicas");
  }

  @Test
  void aDeadlineThatPassesAsTheAttemptIsRoutedEndsTheCallBeforeARequestIsSent() throws Exception {
    // Time passes between routing and sending (a slow listener, a pause of the JVM): exactly the
    // call's 5 s are gone when the exchange would start.
    configure(IMMEDIATE, Duration.ofSeconds(5),
        recording(() -> ticker.advance(Duration.ofSeconds(5)), () -> {}));
    fleetOf(new int[] {200}, new int[] {200});

    assertThatThrownBy(() -> dispatcher.call(Endpoint.CHAT, routing(), body()))
        .isExactlyInstanceOf(LlmTimeoutException.class)
        .hasMessage("call deadline of PT5S expired after 1 attempt");
    assertThat(servers.get(0).getRequestCount() + servers.get(1).getRequestCount()).isZero();
    assertThat(fleet.inFlight("r0")).isZero();
    assertThat(events.failedCalls).extracting(CallFinishedEvent::attempts,
        CallFinishedEvent::durationNanos).containsExactly(tuple(1, Duration.ofSeconds(5).toNanos()));
  }

  @Test
  void anInterruptDuringABackoffEndsTheBlockingCallAndIsKeptForTheCaller() throws Exception {
    // The listener runs on the caller's thread, just before the backoff starts.
    configure(TEN_SECOND_BACKOFF, Duration.ZERO,
        recording(() -> {}, () -> Thread.currentThread().interrupt()));
    fleetOf(new int[] {503}, new int[] {200});

    try {
      assertThatThrownBy(() -> dispatcher.call(Endpoint.CHAT, routing(), body()))
          .isExactlyInstanceOf(LlmException.class)
          .hasMessage("interrupted while waiting to retry");
    } finally {
      assertThat(Thread.interrupted()).as("the interrupt is kept").isTrue();
    }
    assertThat(servers.get(1).getRequestCount()).as("no retry").isZero();
  }

  @Test
  void anAsynchronousCallWhoseClientClosesDuringItsBackoffFailsWithTheReason() throws Exception {
    configure(TEN_SECOND_BACKOFF, Duration.ZERO, events);
    fleetOf(new int[] {503}, new int[] {200});
    scheduler.shutdownNow(); // closed with the client: the backoff cannot be scheduled

    assertThat(dispatcher.callAsync(Endpoint.CHAT, routing(), body()))
        .failsWithin(Duration.ofSeconds(10)).withThrowableOfType(ExecutionException.class)
        .havingCause().isExactlyInstanceOf(LlmException.class)
        .withMessage("client closed during a retry backoff");
    assertThat(servers.get(1).getRequestCount()).isZero();
  }

  @Test
  void panicIsReportedByTheFirstAttemptThatFindsNoEligibleReplicaAndWhenOneIsBack()
      throws Exception {
    fleetOf(new int[] {200}, new int[] {200});
    statuses.setHealthy("r0", false, "down");
    statuses.setHealthy("r1", false, "down");

    dispatcher.call(Endpoint.CHAT, routing(), body());
    assertThat(events.panics).containsExactly(new PanicEvent(true, 2,
        "no replica is eligible (unhealthy, ejected or circuit open): routing to all"));

    statuses.setHealthy("r1", true, "up");
    dispatcher.call(Endpoint.CHAT, routing(), body());
    assertThat(events.panics).hasSize(2).last()
        .isEqualTo(new PanicEvent(false, 2, "an eligible replica is back"));
    assertThat(steps()).containsExactly("routed 1 r0", "routed 1 r1");
  }

  @Test
  void aStreamHoldsItsReplicasInFlightCountUntilItIsClosed() throws Exception {
    fleetOf(new int[] {}, new int[] {});
    servers.get(0).enqueue(new MockResponse.Builder().code(200)
        .setHeader("Content-Type", "text/event-stream")
        .body("data: {\"id\":\"c\",\"choices\":[{\"index\":0,\"delta\":{\"content\":\"hi\"},"
            + "\"finish_reason\":\"stop\"}]}\n\ndata: [DONE]\n\n").build());
    RawRequest streamBody = Endpoint.CHAT_STREAM.request(
        ChatRequest.builder("m").message(ChatMessage.user("hello")).build(), true);

    try (ResponseStream<ChatChunk> stream = dispatcher.stream(Endpoint.CHAT_STREAM, routing(),
        streamBody, false)) {
      assertThat(fleet.inFlight("r0")).isEqualTo(1);
      for (ChatChunk ignored : stream) {
        // read to the end
      }
    }
    assertThat(fleet.inFlight("r0")).isZero();
  }

  @Test
  void everyKindOfCallWaitsForAdmissionWhileTheFleetIsSaturated() throws Exception {
    configure(IMMEDIATE, Duration.ZERO, Admission.builder().queueThreshold(1)
        .maxWait(Duration.ofNanos(1)).build(), events);
    fleetOf(new int[] {200}, new int[] {200});
    for (Replica r : fleet.replicas().replicas()) {
      fleet.report(r, new LoadReport(1, 8, 0.2, Double.NaN, Double.NaN, ticker.read(),
          LoadReport.Source.SCRAPE)); // a queue of one: saturated
    }
    RawRequest streamBody = Endpoint.CHAT_STREAM.request(
        ChatRequest.builder("m").message(ChatMessage.user("hello")).build(), true);

    assertThatThrownBy(() -> dispatcher.call(Endpoint.CHAT, routing(), body()))
        .isExactlyInstanceOf(FleetSaturatedException.class);
    assertThatThrownBy(() -> dispatcher.stream(Endpoint.CHAT_STREAM, routing(), streamBody, false))
        .isExactlyInstanceOf(FleetSaturatedException.class);
    CompletableFuture<ChatResponse> async = dispatcher.callAsync(Endpoint.CHAT, routing(), body());
    assertThat(async).isNotDone();
    scheduler.runNext(); // its wait's limit
    assertThat(async).failsWithin(Duration.ofSeconds(5))
        .withThrowableOfType(ExecutionException.class)
        .withCauseExactlyInstanceOf(FleetSaturatedException.class);
    assertThat(servers.get(0).getRequestCount() + servers.get(1).getRequestCount()).isZero();
  }

  @Test
  void cancellingAProbeCallHandsTheBreakersProbePermissionBack() throws Exception {
    configure(IMMEDIATE, Duration.ZERO, CircuitBreakerPolicy.builder().slidingWindowSize(1)
        .minimumCalls(1).failureRateThreshold(100).openDuration(Duration.ofSeconds(10))
        .halfOpenCalls(1).build(), Admission.disabled(), events);
    fleetOf(new int[] {503}, new int[] {200});
    dispatcher.call(Endpoint.CHAT, routing(), body()); // r0 fails: its breaker opens
    ticker.advance(Duration.ofSeconds(11));
    servers.get(0).enqueue(new MockResponse.Builder().code(200).body(ANSWER)
        .headersDelay(30, TimeUnit.SECONDS).build());

    CompletableFuture<ChatResponse> probe = dispatcher.callAsync(Endpoint.CHAT, routing(), body());
    assertThat(servers.get(0).takeRequest(10, TimeUnit.SECONDS)).as("the probe started")
        .isNotNull();
    probe.cancel(true);

    // Without it, r0 would stay half-open with its only probe taken, skipped for good.
    EventRecorder.await("the probe's permission to come back", Duration.ofSeconds(10),
        () -> fleet.table().eligibility.tryPermit(0));
    assertThat(events.breakers).extracting(CircuitBreakerEvent::to)
        .containsExactly("OPEN", "HALF_OPEN");
  }

  @Test
  void aBlockingCallWithoutADeadlineWaitsForTheFleetsFirstReplicas() throws Exception {
    CompletableFuture<ChatResponse> answer = new CompletableFuture<>();
    Thread caller = new Thread(() -> {
      try {
        answer.complete(dispatcher.call(Endpoint.CHAT, routing(), body()));
      } catch (RuntimeException e) {
        answer.completeExceptionally(e);
      }
    }, "blocked-caller");
    caller.start();
    EventRecorder.await("the call to block", Duration.ofSeconds(10),
        () -> caller.getState() == Thread.State.WAITING || !caller.isAlive());
    assertThat(answer).as("still waiting: there is no deadline").isNotDone();

    fleetOf(new int[] {200}, new int[] {});
    assertThat(answer.get(10, TimeUnit.SECONDS).text()).isEqualTo("hi");
    caller.join(10_000);
  }
}
