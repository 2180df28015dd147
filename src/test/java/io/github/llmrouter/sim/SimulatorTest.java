package io.github.llmrouter.sim;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.github.llmrouter.replica.ReplicaSet;
import io.github.llmrouter.routing.PromptBlocks;
import io.github.llmrouter.routing.RoutedAttempt;
import io.github.llmrouter.routing.Ranking;
import io.github.llmrouter.routing.ReplicaPicker;
import io.github.llmrouter.routing.RoutingPolicy;
import io.github.llmrouter.routing.RoutingRequest;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The simulator end to end, on small traces. */
class SimulatorTest {
  private static Trace mooncake;
  private static Trace chat;
  private static SimulationReport mooncakeReport;
  private static SimulationReport chatReport;

  @BeforeAll
  static void traces() {
    // Five minutes of the real trace (about 1,000 requests), and a small synthetic chat workload.
    mooncake = MooncakeTraceReader.read(Path.of(SimulatorCli.DEFAULT_TRACE)).window(0, 300);
    chat = SyntheticTraces.multiTurn().requests(1500).sessionsPerSecond(3).seed(3).build();
    mooncakeReport = Simulator.builder().build().run(mooncake);
    chatReport = Simulator.builder().build().run(chat);
  }

  @Test
  void everyPolicyServesEveryRequest() {
    SimulationReport r = mooncakeReport;
    assertThat(r.results()).extracting(PolicyResult::policy)
        .containsExactly("RoundRobin", "Random", "LeastLoaded", "PrefixHash", "CacheAware",
            "Oracle");
    assertThat(r.results()).allSatisfy(p -> {
      assertThat(p.requests()).isEqualTo(mooncake.size());
      assertThat(p.ttftP50()).isPositive().isLessThanOrEqualTo(p.ttftP99());
      assertThat(p.loadImbalance()).isGreaterThanOrEqualTo(1.0);
    });
  }

  @Test
  void hedgingClientsServeEveryRequestOnceWithinTheirShareAndSayHowMany() {
    SimulationReport r = Simulator.builder().hedgePercentile(0.95).replicaSlowdown(3, 5)
        .policies(SimulatedPolicy.parse("cacheaware,roundrobin", 1)).build().run(mooncake);
    assertThat(r.results()).allSatisfy(p -> {
      assertThat(p.requests()).isEqualTo(mooncake.size());
      // 0.05 of a hedge earned per request: at most 5 % of requests, and some here.
      assertThat(p.hedgedShare()).isPositive().isLessThanOrEqualTo(0.05);
      assertThat(p.ttftP50()).isPositive().isLessThanOrEqualTo(p.ttftP99());
    });
    assertThat(r.toTable()).contains("hedged requests: CacheAware ");
    assertThat(Simulator.builder().policies(SimulatedPolicy.parse("cacheaware", 1)).build()
        .run(mooncake).results()).allSatisfy(p -> assertThat(p.hedgedShare()).isZero());
  }

  @Test
  void adaptersRunOnlyOnTheirBaseModelsReplicasAndAffinityLoadsThemFarLessOften() {
    Trace trace = SyntheticTraces.withAdapters(
        SyntheticTraces.multiTurn().requests(3000).sessionsPerSecond(4).seed(3).build(), 50, 1.1,
        2, 3);
    assertThat(trace.requests()).extracting(TraceRequest::baseModel)
        .containsOnly("base-0", "base-1");
    for (int clients : new int[] {1, 4}) {
      Simulator sim = Simulator.builder().clients(clients).seed(3).build();
      Simulator.Prepared prepared = sim.prepare(trace);
      SimulatedPolicy aware = SimulatedPolicy.named("cacheaware", 3);
      long[] loads = new long[2];
      int k = 0;
      for (SimulatedPolicy p : List.of(aware, aware.adapterUnaware())) {
        FleetRun run = new FleetRun(sim.settings(), p, trace, prepared);
        Job[] jobs = run.run();
        // base-0 on replicas 0-3, base-1 on 4-7.
        assertThat(jobs).allSatisfy(j -> assertThat(j.replica / 4)
            .isEqualTo(j.request.baseModel().equals("base-0") ? 0 : 1));
        loads[k++] = run.loraLoads();
      }
      assertThat(loads[0]).as("%d clients", clients).isPositive()
          .isLessThan(loads[1] / 2);
    }
    assertThat(SimulatedPolicy.named("cacheaware", 1).adapterUnaware().name())
        .isEqualTo("CacheAware adapter-unaware");
  }

  @Test
  void theSameSeedGivesTheSameReport() {
    Simulator sim = Simulator.builder().clients(4).seed(9).build();
    String first = sim.run(mooncake).toTable();
    String again = Simulator.builder().clients(4).seed(9).threads(1).build().run(mooncake).toTable();
    assertThat(again).isEqualTo(first);
    assertThat(Simulator.builder().clients(4).seed(10).build().run(mooncake).toTable())
        .isNotEqualTo(first);
  }

  /**
   * The ideal bound is exact (per request, an infinite shared cache holds everything any replica
   * could). The fleet-capacity reference is a realistic ceiling, not a theorem (LRU is not optimal),
   * but it must hold on ordinary traffic.
   */
  @Test
  void hitRateReferencesBoundEveryPolicy() {
    for (SimulationReport r : List.of(mooncakeReport, chatReport)) {
      assertThat(r.idealHitRate()).isGreaterThanOrEqualTo(r.fleetCapacityHitRate());
      assertThat(r.results()).allSatisfy(p ->
          assertThat(p.hitRate()).isLessThanOrEqualTo(r.fleetCapacityHitRate()));
    }
  }

  @Test
  void theOracleNeverLosesToRandomOnHitRate() {
    for (long seed = 1; seed <= 2; seed++) {
      for (Trace t : List.of(mooncake, chat)) {
        SimulationReport r = Simulator.builder().seed(seed).build().run(t);
        assertThat(r.result("Oracle").hitRate()).isGreaterThanOrEqualTo(r.result("Random").hitRate());
      }
    }
  }

  @Test
  void prefixHashBeatsRoundRobinOnHitRate() {
    SimulationReport r = chatReport;
    assertThat(r.result("PrefixHash").hitRate())
        .isGreaterThan(1.5 * r.result("RoundRobin").hitRate());
  }

  @Test
  void independentClientsRouteDifferentlyFromOneClient() {
    // Each client balances only its own in-flight requests, so K clients spread load differently.
    Simulator eight = Simulator.builder().clients(8).build();
    SimulationReport a = mooncakeReport;
    SimulationReport b = eight.run(mooncake);
    for (String p : List.of("RoundRobin", "LeastLoaded", "PrefixHash")) {
      assertThat(b.result(p)).as(p).isNotEqualTo(a.result(p));
    }
  }

  @Test
  void aPolicySeesTheLeadingBlocksAsTextButNeverTheCache() {
    TraceRequest a = new TraceRequest(0, 2000, 1, new long[] {0, 5, 6, 7}, "s1");
    TraceRequest b = new TraceRequest(0, 1500, 1, new long[] {0, 5, 9}, "s2");
    PromptBlocks none = PromptBlocks.empty();
    RoutingRequest ra = Simulator.routingRequest(a, 2, false, none);
    RoutingRequest rb = Simulator.routingRequest(b, 2, false, none);
    assertThat(ra.prompt()).isEqualTo(rb.prompt());
    assertThat(ra.model()).isEqualTo(Simulator.MODEL);
    assertThat(ra.routingKey()).isNull();
    assertThat(Simulator.routingRequest(a, 3, false, none).prompt())
        .isNotEqualTo(Simulator.routingRequest(b, 3, false, none).prompt());
    assertThat(Simulator.routingRequest(a, 2, true, none).routingKey()).isEqualTo("s1");
  }

  /** Records what reaches a policy and what comes back to it, for the two tests below. */
  private static final class RecordingPolicy implements RoutingPolicy {
    final List<RoutingRequest> requests = new ArrayList<>();
    final List<String> events = new ArrayList<>();
    final java.util.Set<Long> capacities = new java.util.HashSet<>();
    long cachedTokens;
    long promptTokens;
    long lastEventNanos;
    boolean timeWentBack;

    @Override
    public ReplicaPicker newPicker(ReplicaSet replicas) {
      return (request, load) -> {
        requests.add(request);
        capacities.add(load.kvCapacityTokens(0));
        int id = requests.size() - 1;
        return new Ranking() {
          private int served = -1;

          @Override
          public int next() {
            served = id % replicas.size();
            return served;
          }

          @Override
          public String reason() {
            return "recording";
          }

          @Override
          public RoutedAttempt sent(int index, long nanos, boolean streamed) {
            return new RoutedAttempt() {
              @Override
              public void firstToken(long at) {
                record("first " + id + "@" + index, at);
              }

              @Override
              public void completed(long prompt, long cached, long at) {
                record("done " + id + "@" + index, at);
                cachedTokens += cached;
                promptTokens += prompt;
              }
            };
          }

          private void record(String event, long now) {
            timeWentBack |= now < lastEventNanos;
            lastEventNanos = now;
            events.add(event);
          }
        };
      };
    }
  }

  @Test
  void aPolicySeesTheWholePromptAsChainedBlockHashesOfTheTracesBlockIds() {
    RecordingPolicy recording = new RecordingPolicy();
    Trace small = chat.first(200);
    Simulator.builder().policies(List.of(SimulatedPolicy.of("recording", c -> recording)))
        .build().run(small);
    assertThat(recording.requests).hasSize(small.size());
    for (int i = 0; i < small.size(); i++) {
      TraceRequest r = small.requests().get(i);
      PromptBlocks blocks = recording.requests.get(i).blocks();
      assertThat(blocks.promptTokens()).isEqualTo(r.inputTokens());
      assertThat(blocks.blockTokens()).isEqualTo(small.blockTokens());
      long[] chain = Simulator.chain(r.blockIds());
      assertThat(blocks.size()).isEqualTo(chain.length);
      for (int k = 0; k < chain.length; k++) assertThat(blocks.hash(k)).isEqualTo(chain[k]);
    }
    // Chained: equal leading block ids give equal leading hashes, and only those.
    PromptBlocks a = PromptBlocks.of(Simulator.chain(new long[] {0, 5, 6}), 64, 192);
    PromptBlocks b = PromptBlocks.of(Simulator.chain(new long[] {0, 5, 7}), 64, 192);
    PromptBlocks c = PromptBlocks.of(Simulator.chain(new long[] {1, 5, 6}), 64, 192);
    assertThat(a.hash(1)).isEqualTo(b.hash(1));
    assertThat(a.hash(2)).isNotEqualTo(b.hash(2));
    assertThat(a.hash(1)).isNotEqualTo(c.hash(1));
  }

  @Test
  void scrapesCarryEachReplicasKvCapacityAsVllmReportsIt() {
    RecordingPolicy recording = new RecordingPolicy();
    Trace small = chat.first(100);
    Simulator.builder().policies(List.of(SimulatedPolicy.of("recording", c -> recording)))
        .threads(1).build().run(small);
    long blocks = EngineProfile.DEFAULT_CACHE_TOKENS / small.blockTokens();
    // Unknown until the first scrape, then the profile's cache in whole blocks.
    assertThat(recording.capacities).containsOnly(-1L, blocks * small.blockTokens());
  }

  @Test
  void aLibraryPolicySeesALongPromptAsAClientKeepsItAndAPeerModelSeesEveryBlock() {
    Trace longOnes = SyntheticTraces.longAgent().requests(60).seed(3).build();
    RecordingPolicy library = new RecordingPolicy();
    RecordingPolicy peer = new RecordingPolicy();
    Simulator.builder().policies(List.of(SimulatedPolicy.of("library", c -> library),
        SimulatedPolicy.peer("peer", c -> peer))).threads(1).build().run(longOnes);
    int longPrompts = 0;
    for (int i = 0; i < longOnes.size(); i++) {
      TraceRequest r = longOnes.requests().get(i);
      long[] chain = Simulator.chain(r.blockIds());
      PromptBlocks kept = library.requests.get(i).blocks();
      PromptBlocks every = peer.requests.get(i).blocks();
      assertThat(every).isEqualTo(PromptBlocks.of(chain, longOnes.blockTokens(), r.inputTokens()));
      assertThat(kept)
          .isEqualTo(PromptBlocks.sampled(chain, longOnes.blockTokens(), r.inputTokens()));
      if (chain.length > PromptBlocks.DENSE_BLOCKS) {
        longPrompts++;
        assertThat(kept.size()).isLessThan(every.size());
      }
    }
    assertThat(longPrompts).as("agent prompts past the dense blocks").isGreaterThan(30);
  }

  @Test
  void everyResponseReportsItsFirstTokenThenItsCachedPromptTokensToThePolicyInTimeOrder() {
    RecordingPolicy recording = new RecordingPolicy();
    Trace small = chat.first(300);
    SimulationReport r = Simulator.builder().clients(2)
        .policies(List.of(SimulatedPolicy.of("recording", c -> recording))).build().run(small);
    assertThat(recording.events).hasSize(2 * small.size());
    for (int id = 0; id < small.size(); id++) {
      String at = "@" + (id % 8);
      int first = recording.events.indexOf("first " + id + at);
      int done = recording.events.indexOf("done " + id + at);
      assertThat(first).as("request %d", id).isNotNegative().isLessThan(done);
    }
    assertThat(recording.timeWentBack).isFalse();
    // What the rankings heard is what the engines cached: the report's hit rate.
    assertThat((double) recording.cachedTokens / recording.promptTokens)
        .isCloseTo(r.result("recording").hitRate(), org.assertj.core.api.Assertions.within(1e-12));
    assertThat(recording.cachedTokens).isPositive();
  }

  @Test
  void badSettingsFailAtBuildNamingTheKnob() {
    assertThatThrownBy(() -> Simulator.builder().replicas(0).build())
        .hasMessage("Simulator.replicas must be in [1, 1024], got 0");
    assertThatThrownBy(() -> Simulator.builder().keyBlocks(0).build())
        .hasMessageContaining("Simulator.keyBlocks");
    assertThatThrownBy(() -> EngineProfile.builder().prefillTokensPerSecond(0).build())
        .hasMessageContaining("EngineProfile.prefillTokensPerSecond");
  }

  @Test
  void withoutLoadReportsQueueAwarePrefixHashIsTheInFlightOnlyWalk() {
    SimulationReport r = Simulator.builder().clients(2).scrapeIntervalSeconds(0)
        .policies(SimulatedPolicy.queueAwareComparison()).build().run(mooncake);
    PolicyResult blind = r.result("PrefixHash in-flight only");
    PolicyResult aware = r.result("PrefixHash queue-aware");
    assertThat(aware.hitRate()).isEqualTo(blind.hitRate());
    assertThat(aware.ttftP99()).isEqualTo(blind.ttftP99());
    assertThat(r.settings()).contains("no load reports");
  }

  @Test
  void aSlowReplicaIsSlowerAndScrapesAreDeterministic() {
    Simulator.Builder b = Simulator.builder().clients(3).scrapeIntervalSeconds(0.5)
        .policies(List.of(SimulatedPolicy.of("RoundRobin", c -> RoutingPolicy.roundRobin())));
    double even = b.build().run(mooncake).result("RoundRobin").ttftP99();
    Simulator slow = b.replicaSlowdown(0, 4).build();
    SimulationReport once = slow.run(mooncake);
    assertThat(once.result("RoundRobin").ttftP99()).isGreaterThan(even);
    assertThat(once.settings()).contains("replica-0 4.0x slower", "scrape every 0.5 s");
    SimulationReport aware = Simulator.builder().clients(3).scrapeIntervalSeconds(0.5)
        .replicaSlowdown(0, 4).policies(SimulatedPolicy.queueAwareComparison()).build()
        .run(mooncake);
    assertThat(Simulator.builder().clients(3).scrapeIntervalSeconds(0.5).replicaSlowdown(0, 4)
        .policies(SimulatedPolicy.queueAwareComparison()).threads(1).build().run(mooncake)
        .toTable()).isEqualTo(aware.toTable());
  }

  @Test
  void theNewKnobsAreValidatedByName() {
    assertThatThrownBy(() -> Simulator.builder().scrapeIntervalSeconds(-1).build())
        .hasMessageContaining("scrapeIntervalSeconds");
    assertThatThrownBy(() -> Simulator.builder().staleAfterSeconds(-1).build())
        .hasMessageContaining("staleAfterSeconds");
    assertThatThrownBy(() -> Simulator.builder().replicaSlowdown(8, 2).build())
        .hasMessageContaining("replicaSlowdown");
    assertThatThrownBy(() -> Simulator.builder().replicaSlowdown(0, 0.5).build())
        .hasMessageContaining("replicaSlowdown");
  }
}
