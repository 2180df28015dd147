package io.github.llmrouter;

import static io.github.llmrouter.Fixtures.CHAT_JSON;
import static io.github.llmrouter.Fixtures.chat;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.github.llmrouter.api.ChatResponse;
import io.github.llmrouter.api.FleetSaturatedException;
import io.github.llmrouter.dispatch.Admission;
import io.github.llmrouter.emulator.EmulatedReplica;
import io.github.llmrouter.internal.load.LocalLoad;
import io.github.llmrouter.load.LoadMonitoring;
import io.github.llmrouter.observe.FleetSnapshot;
import io.github.llmrouter.replica.Replica;
import io.github.llmrouter.replica.ReplicaSet;
import io.github.llmrouter.routing.PrefixHash;
import io.github.llmrouter.routing.Ranking;
import io.github.llmrouter.routing.RoutingRequest;
import java.net.InetAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import mockwebserver3.Dispatcher;
import mockwebserver3.MockResponse;
import mockwebserver3.MockWebServer;
import mockwebserver3.RecordedRequest;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

/**
 * Reported load end to end: scrapes and response headers feed the client's view, which drives
 * routing, admission and {@code client.fleet()}. Scrapes are triggered with {@code
 * scrapeLoadNow()} (the background schedule is 5 min away) and time is an injected ticker.
 */
class LoadMonitoringTest {
  /** Far enough that the background schedule never fires during a test. */
  private static final Duration NEVER = Duration.ofMinutes(5);

  private final List<Scripted> replicas = new ArrayList<>();
  private final AtomicLong now = new AtomicLong(1_000_000_000L);
  private LlmClient client;

  /** A replica whose /metrics and response headers the test sets. */
  static final class Scripted extends Dispatcher {
    final MockWebServer server = new MockWebServer();
    final AtomicReference<MockResponse> metrics = new AtomicReference<>(metrics(0, 0.1));
    final AtomicReference<String> loadHeader = new AtomicReference<>();
    final Queue<String> chatBodies = new ConcurrentLinkedQueue<>();
    final Queue<String> loadFormatHeaders = new ConcurrentLinkedQueue<>();

    Scripted() throws Exception {
      server.setDispatcher(this);
      server.start(InetAddress.getLoopbackAddress(), 0);
    }

    static MockResponse metrics(int waiting, double kv) {
      return new MockResponse.Builder().code(200)
          .body("# TYPE vllm:num_requests_waiting gauge\n"
              + "vllm:num_requests_waiting{engine=\"0\",model_name=\"m\"} " + waiting + ".0\n"
              + "vllm:num_requests_running{engine=\"0\",model_name=\"m\"} 2.0\n"
              + "vllm:kv_cache_usage_perc{engine=\"0\",model_name=\"m\"} " + kv + "\n")
          .build();
    }

    @Override
    public MockResponse dispatch(RecordedRequest request) {
      if (request.getUrl().encodedPath().equals("/metrics")) return metrics.get();
      chatBodies.add(request.getBody() == null ? "" : request.getBody().utf8());
      String format = request.getHeaders().get("endpoint-load-metrics-format");
      loadFormatHeaders.add(format == null ? "" : format);
      MockResponse.Builder ok = new MockResponse.Builder().code(200)
          .setHeader("Content-Type", "application/json").body(CHAT_JSON);
      String header = loadHeader.get();
      if (header != null) ok.setHeader("endpoint-load-metrics", header);
      return ok.build();
    }

    String url() {
      return server.url("/").toString();
    }
  }

  private LlmClient client(int n, LoadMonitoring reporting, Admission admission) throws Exception {
    for (int i = 0; i < n; i++) replicas.add(new Scripted());
    LlmClientBuilder b = LlmClient.builder().ticker(now::get).loadMonitoring(reporting)
        .admission(admission).routingPolicy(PrefixHash.builder().build())
        .modelDiscoveryInterval(Duration.ZERO); // every exchange is scripted
    for (Scripted s : replicas) b.replicas(s.url());
    client = b.build();
    return client;
  }

  private static LoadMonitoring scrapeOnDemand() {
    return LoadMonitoring.builder().scrapeInterval(NEVER).scrapeTimeout(Duration.ofSeconds(5))
        .build();
  }

  @AfterEach
  void close() {
    if (client != null) client.close();
    replicas.forEach(r -> r.server.close());
  }

  private void scrape() throws Exception {
    client.scrapeLoadNow().get(10, TimeUnit.SECONDS);
  }

  private int servedBy(String userText) {
    int before = 0;
    for (Scripted s : replicas) before += s.chatBodies.size();
    client.chat(chat(userText));
    for (int i = 0; i < replicas.size(); i++) {
      for (String body : replicas.get(i).chatBodies) {
        if (body.contains(userText)) {
          replicas.get(i).chatBodies.clear();
          return i;
        }
      }
    }
    throw new AssertionError("no replica served " + userText + " (" + before + " before)");
  }

  /**
   * The index of the replica that follows the key's owner on the ring (where failover goes, and
   * where a key goes when its owner is skipped), computed apart from the client.
   */
  private int ringNeighbourOf(String userText) {
    List<Replica> list = replicas.stream().map(s -> Replica.of(s.url())).toList();
    ReplicaSet set = ReplicaSet.of(list);
    Ranking ranking = PrefixHash.builder().build().newPicker(set)
        .rank(RoutingRequest.of("m", userText), LocalLoad.of(set));
    ranking.next();
    String id = set.get(ranking.next()).id();
    for (int i = 0; i < list.size(); i++) if (list.get(i).id().equals(id)) return i;
    throw new AssertionError(id);
  }

  @Nested
  class Scraping {
    @Test
    void scrapesFeedTheFleetSnapshot() throws Exception {
      client(2, scrapeOnDemand(), Admission.disabled());
      replicas.get(0).metrics.set(Scripted.metrics(3, 0.25));
      replicas.get(1).metrics.set(Scripted.metrics(5, 0.5));
      scrape();
      FleetSnapshot fleet = client.fleet();
      assertThat(fleet.replicas()).extracting(FleetSnapshot.ReplicaLoad::effectiveQueue)
          .containsExactly(3, 5);
      assertThat(fleet.replicas()).extracting(FleetSnapshot.ReplicaLoad::running)
          .containsExactly(2, 2);
      assertThat(fleet.replicas().get(1).kvUsage()).isEqualTo(0.5);
      assertThat(fleet.replicas().get(0).reportAge()).isEqualTo(Duration.ZERO);
      assertThat(fleet.totalWaiting()).isEqualTo(8);
      assertThat(fleet.meanWaiting()).isEqualTo(4.0);
      assertThat(fleet.reportingReplicas()).isEqualTo(2);
      assertThat(fleet.saturatedReplicas()).as("5 >= 4").isEqualTo(1);
      assertThat(fleet.saturated()).isFalse();
      assertThat(fleet.replicasFor(2.0)).isEqualTo(4);
      assertThat(fleet.replicasFor(4.0)).isEqualTo(2);
      assertThat(fleet.replicasFor(100)).isEqualTo(1);
    }

    @Test
    void aReplicaWithALongReportedQueueIsSkippedAlthoughItOwnsTheKey() throws Exception {
      client(3, scrapeOnDemand(), Admission.disabled());
      scrape();
      int owner = servedBy("route me");
      replicas.get(owner).metrics.set(Scripted.metrics(12, 0.3));
      scrape();
      assertThat(servedBy("route me")).as("the owner's ring neighbour")
          .isEqualTo(ringNeighbourOf("route me"));
      replicas.get(owner).metrics.set(Scripted.metrics(0, 0.3));
      scrape();
      assertThat(servedBy("route me")).as("affinity returns with the queue").isEqualTo(owner);
    }

    @Test
    void staleReportsAreIgnored() throws Exception {
      client(3, scrapeOnDemand(), Admission.disabled());
      int owner = servedBy("stale");
      replicas.get(owner).metrics.set(Scripted.metrics(12, 0.3));
      scrape();
      assertThat(servedBy("stale")).as("the owner's ring neighbour")
          .isEqualTo(ringNeighbourOf("stale"));
      now.addAndGet(NEVER.multipliedBy(3).toNanos() + 1); // staleAfter = 3 × interval
      assertThat(client.fleet().replicas().get(owner).fresh()).isFalse();
      assertThat(client.fleet().replicas().get(owner).effectiveQueue()).isEqualTo(-1);
      assertThat(client.fleet().replicas().get(owner).reportedWaiting()).isEqualTo(12);
      assertThat(servedBy("stale")).as("back to in-flight only").isEqualTo(owner);
    }

    @Test
    void scrapingFailuresLeaveTheReplicaRoutable() throws Exception {
      client(1, scrapeOnDemand(), Admission.disabled());
      Scripted only = replicas.get(0);
      List<MockResponse> broken = List.of(
          new MockResponse.Builder().code(500).body("oops").build(),
          new MockResponse.Builder().code(404).build(),
          new MockResponse.Builder().code(200).body("<html>not metrics</html>\n{{{\n").build(),
          new MockResponse.Builder().code(200).body("vllm:num_requests_waiting NaN\n").build());
      for (MockResponse r : broken) {
        only.metrics.set(r);
        scrape();
        ChatResponse answer = client.chat(chat("still routable"));
        assertThat(answer.text()).isEqualTo("hello");
      }
      FleetSnapshot fleet = client.fleet();
      assertThat(fleet.scrapeFailures()).isEqualTo(3);
      assertThat(fleet.malformedMetricsLines()).isEqualTo(2);
      assertThat(fleet.replicas().get(0).effectiveQueue())
          .as("a NaN queue is unknown, never negative").isEqualTo(-1);
    }

    @Test
    void anEmulatedVllmReplicaIsScrapedAndReportsOnResponses() throws Exception {
      try (EmulatedReplica replica = EmulatedReplica.builder().instant().build().start()) {
        client = LlmClient.builder().replicas(replica.baseUrl()).ticker(now::get)
            .loadMonitoring(scrapeOnDemand()).build();
        client.scrapeLoadNow().get(10, TimeUnit.SECONDS);
        FleetSnapshot.ReplicaLoad load = client.fleet().replicas().get(0);
        assertThat(load.fresh()).isTrue();
        assertThat(load.reportedWaiting()).isZero();
        assertThat(load.kvUsage()).isBetween(0.0, 1.0);
        // vllm:cache_config_info: the emulator's blocks × tokens per block.
        long capacity = (long) EmulatedReplica.DEFAULT_CACHE_BLOCKS
            * ((EmulatedReplica.DEFAULT_BLOCK_CHARS + 3) / 4);
        assertThat(load.kvCapacityTokens()).isEqualTo(capacity);
        now.addAndGet(1000);
        client.chat(chat("hello there"));
        assertThat(client.fleet().replicas().get(0).reportAge())
            .as("refreshed by the response header").isEqualTo(Duration.ZERO);
        assertThat(client.fleet().replicas().get(0).kvCapacityTokens())
            .as("kept through the header report").isEqualTo(capacity);
      }
    }

    @Test
    void anEmulatedSglangReplicaReportsTheSameFiguresInItsOwnNames() throws Exception {
      try (EmulatedReplica replica = EmulatedReplica.builder().instant()
          .metrics(EmulatedReplica.Metrics.SGLANG).build().start()) {
        client = LlmClient.builder().replicas(replica.baseUrl()).ticker(now::get)
            .loadMonitoring(scrapeOnDemand()).build();
        client.chat(chat("fill some of the cache ".repeat(40)));
        client.scrapeLoadNow().get(10, TimeUnit.SECONDS);
        FleetSnapshot.ReplicaLoad load = client.fleet().replicas().get(0);
        assertThat(load.fresh()).isTrue();
        assertThat(load.reportedWaiting()).isZero();
        assertThat(load.running()).isZero();
        assertThat(load.kvUsage()).isGreaterThan(0.0).isLessThan(1.0);
        assertThat(load.kvCapacityTokens()).isEqualTo((long) EmulatedReplica.DEFAULT_CACHE_BLOCKS
            * ((EmulatedReplica.DEFAULT_BLOCK_CHARS + 3) / 4));
      }
    }
  }

  @Nested
  class Headers {
    private LoadMonitoring headersOnly() {
      return LoadMonitoring.builder().scrapeInterval(Duration.ZERO).build();
    }

    @Test
    void anOrcaHeaderOnAResponseUpdatesTheView() throws Exception {
      client(1, headersOnly(), Admission.disabled());
      replicas.get(0).loadHeader.set(
          "TEXT named_metrics.kv_cache_usage_perc=0.4, named_metrics.num_requests_waiting=3");
      client.chat(chat("x"));
      assertThat(replicas.get(0).loadFormatHeaders).containsExactly("TEXT");
      FleetSnapshot.ReplicaLoad load = client.fleet().replicas().get(0);
      assertThat(load.effectiveQueue()).as("its own request left the baseline").isEqualTo(3);
      assertThat(load.kvUsage()).isEqualTo(0.4);
      assertThat(load.inFlight()).isZero();
    }

    @Test
    void theJsonFormIsReadToo() throws Exception {
      client(1, headersOnly(), Admission.disabled());
      replicas.get(0).loadHeader.set("JSON {\"named_metrics\":{\"num_requests_waiting\":6}}");
      client.chatAsync(chat("x")).get(10, TimeUnit.SECONDS);
      assertThat(client.fleet().replicas().get(0).effectiveQueue()).isEqualTo(6);
    }

    @Test
    void aMalformedHeaderNeverFailsTheCall() throws Exception {
      client(1, headersOnly(), Admission.disabled());
      replicas.get(0).loadHeader.set("JSON {\"named_metrics\": [");
      assertThat(client.chat(chat("x")).text()).isEqualTo("hello");
      assertThat(client.fleet().replicas().get(0).reportAge()).isNull();
    }

    @Test
    void aCustomQueueHeader() throws Exception {
      client(1, LoadMonitoring.builder().scrapeInterval(Duration.ZERO).loadMetricsHeader(false)
          .queueHeader("X-Queue-Depth").build(), Admission.disabled());
      Scripted only = replicas.get(0);
      only.server.setDispatcher(new Dispatcher() {
        @Override
        public MockResponse dispatch(RecordedRequest request) {
          only.loadFormatHeaders.add(String.valueOf(
              request.getHeaders().get("endpoint-load-metrics-format")));
          return new MockResponse.Builder().code(200).setHeader("Content-Type", "application/json")
              .setHeader("x-queue-depth", "9").body(CHAT_JSON).build();
        }
      });
      client.chat(chat("x"));
      assertThat(only.loadFormatHeaders).containsExactly("null");
      assertThat(client.fleet().replicas().get(0).effectiveQueue()).isEqualTo(9);
    }

    @Test
    void disabledReportingSendsAndReadsNothing() throws Exception {
      client(1, LoadMonitoring.disabled(), Admission.disabled());
      replicas.get(0).loadHeader.set("TEXT named_metrics.num_requests_waiting=3");
      client.chat(chat("x"));
      assertThat(replicas.get(0).loadFormatHeaders).containsExactly("");
      assertThat(client.fleet().replicas().get(0).effectiveQueue()).isEqualTo(-1);
    }
  }

  @Nested
  class AdmissionControl {
    private Admission admission(int capacity, Duration maxWait) {
      return Admission.builder().capacity(capacity).maxWait(maxWait).build();
    }

    @Test
    void withRoomRequestsPassStraightThrough() throws Exception {
      client(1, scrapeOnDemand(), admission(1, Duration.ofSeconds(10)));
      replicas.get(0).metrics.set(Scripted.metrics(3, 0.5));
      scrape();
      assertThat(client.chat(chat("x")).text()).isEqualTo("hello");
    }

    @Test
    void aSaturatedFleetHoldsRequestsAndGivesUpAfterMaxWait() throws Exception {
      client(1, scrapeOnDemand(), admission(4, Duration.ofMillis(200)));
      replicas.get(0).metrics.set(Scripted.metrics(10, 0.5));
      scrape();
      long start = System.nanoTime();
      assertThatThrownBy(() -> client.chat(chat("x")))
          .isInstanceOf(FleetSaturatedException.class)
          .hasMessage("every replica reports a queue of at least 4 or KV usage of at least 0.95; "
              + "not admitted within PT0.2S");
      // The wait is maxWait, as the gate's clock (the JVM's) measures it: never less, and
      // nowhere near the seconds that a mistaken unit would make it (a generous bound, for a
      // busy machine).
      Duration waited = Duration.ofNanos(System.nanoTime() - start);
      assertThat(waited).isGreaterThanOrEqualTo(Duration.ofMillis(200))
          .isLessThan(Duration.ofSeconds(5));
      assertThat(replicas.get(0).chatBodies).as("nothing piled onto the replica").isEmpty();
      long asyncStart = System.nanoTime();
      CompletableFuture<ChatResponse> async = client.chatAsync(chat("y"));
      assertThatThrownBy(() -> async.get(10, TimeUnit.SECONDS))
          .cause().isInstanceOf(FleetSaturatedException.class)
          .hasMessageEndingWith("not admitted within PT0.2S");
      assertThat(Duration.ofNanos(System.nanoTime() - asyncStart))
          .isGreaterThanOrEqualTo(Duration.ofMillis(200)).isLessThan(Duration.ofSeconds(5));
    }

    @Test
    void aKvCacheNearlyFullSaturatesToo() throws Exception {
      client(1, scrapeOnDemand(), admission(4, Duration.ofMillis(50)));
      replicas.get(0).metrics.set(Scripted.metrics(0, 0.99));
      scrape();
      assertThatThrownBy(() -> client.chat(chat("x"))).isInstanceOf(FleetSaturatedException.class);
      assertThat(client.fleet().saturated()).isTrue();
    }

    @Test
    void aFullQueueRefusesAtOnce() throws Exception {
      client(1, scrapeOnDemand(), admission(1, Duration.ofSeconds(30)));
      replicas.get(0).metrics.set(Scripted.metrics(10, 0.5));
      scrape();
      CompletableFuture<ChatResponse> waiting = client.chatAsync(chat("first"));
      assertThatThrownBy(() -> client.chat(chat("second")))
          .isInstanceOf(FleetSaturatedException.class).hasMessageContaining("queue is full");
      replicas.get(0).metrics.set(Scripted.metrics(0, 0.5));
      scrape();
      assertThat(waiting.get(10, TimeUnit.SECONDS).text()).isEqualTo("hello");
    }

    @Test
    void waitingRequestsAreServedInArrivalOrderAsRoomAppears() throws Exception {
      client(1, scrapeOnDemand(), admission(8, Duration.ofSeconds(30)));
      Scripted only = replicas.get(0);
      only.metrics.set(Scripted.metrics(10, 0.5));
      scrape();
      List<CompletableFuture<ChatResponse>> calls = new ArrayList<>();
      for (int i = 0; i < 4; i++) calls.add(client.chatAsync(chat("request-" + i)));
      assertThat(calls).noneMatch(CompletableFuture::isDone);
      // Room for exactly one: 3 waiting, threshold 4. Each completion makes room for the next.
      only.metrics.set(Scripted.metrics(3, 0.5));
      scrape();
      CompletableFuture.allOf(calls.toArray(new CompletableFuture<?>[0])).get(10, TimeUnit.SECONDS);
      List<String> order = new ArrayList<>(only.chatBodies);
      assertThat(order).hasSize(4);
      for (int i = 0; i < 4; i++) assertThat(order.get(i)).contains("request-" + i);
    }

    @Test
    void withoutReportsAdmissionNeverHoldsAnything() throws Exception {
      client(1, LoadMonitoring.disabled(), admission(1, Duration.ofMillis(1)));
      assertThat(client.chat(chat("x")).text()).isEqualTo("hello");
    }
  }

  @Test
  void theBuildersNameTheirKnobs() {
    assertThatThrownBy(() -> LoadMonitoring.builder().scrapeInterval(Duration.ofMillis(10)).build())
        .hasMessageContaining("scrapeInterval");
    assertThatThrownBy(() -> LoadMonitoring.builder().scrapeTimeout(Duration.ofSeconds(2)).build())
        .hasMessageContaining("scrapeTimeout");
    assertThatThrownBy(() -> LoadMonitoring.builder().scrapeJitter(0.9).build())
        .hasMessageContaining("scrapeJitter");
    assertThatThrownBy(() -> LoadMonitoring.builder().metricsPath("metrics").build())
        .hasMessageContaining("metricsPath");
    assertThatThrownBy(() -> LoadMonitoring.builder().staleAfter(Duration.ZERO).build())
        .hasMessageContaining("staleAfter");
    assertThatThrownBy(() -> LoadMonitoring.builder().queueHeader("bad header").build())
        .hasMessageContaining("queueHeader");
    assertThatThrownBy(() -> Admission.builder().capacity(0).build())
        .hasMessageContaining("capacity");
    assertThatThrownBy(() -> Admission.builder().maxWait(Duration.ZERO).build())
        .hasMessageContaining("maxWait");
    assertThatThrownBy(() -> Admission.builder().queueThreshold(0).build())
        .hasMessageContaining("queueThreshold");
    assertThatThrownBy(() -> Admission.builder().kvUsageThreshold(1.5).build())
        .hasMessageContaining("kvUsageThreshold");
    assertThat(LoadMonitoring.defaults().staleAfter()).isEqualTo(Duration.ofSeconds(3));
    assertThat(LoadMonitoring.defaults().scrapeInterval()).isEqualTo(Duration.ofSeconds(1));
    assertThat(LoadMonitoring.disabled().scraping()).isFalse();
    assertThat(Admission.disabled().enabled()).isFalse();
  }
}
