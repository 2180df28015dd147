package io.github.llmrouter.sim;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

class SyntheticTracesTest {
  @Test
  void theSameSeedGivesTheSameTrace() {
    Trace a = SyntheticTraces.multiTurn().requests(300).seed(5).build();
    Trace b = SyntheticTraces.multiTurn().requests(300).seed(5).build();
    Trace c = SyntheticTraces.multiTurn().requests(300).seed(6).build();
    assertThat(a.requests()).isEqualTo(b.requests());
    assertThat(a.requests()).isNotEqualTo(c.requests());
  }

  @Test
  void eachTurnExtendsTheConversationSoFar() {
    Trace t = SyntheticTraces.multiTurn().requests(500).build();
    Map<String, TraceRequest> last = new HashMap<>();
    int followUps = 0;
    for (TraceRequest r : t.requests()) {
      TraceRequest previous = last.put(r.sessionId(), r);
      if (previous == null) continue;
      followUps++;
      int full = previous.inputTokens() / t.blockTokens();
      assertThat(r.inputTokens()).isGreaterThan(previous.inputTokens() + previous.outputTokens());
      assertThat(Arrays.copyOf(r.blockIds(), full)).isEqualTo(Arrays.copyOf(previous.blockIds(), full));
    }
    assertThat(followUps).isGreaterThan(250);
  }

  @Test
  void sharedPrefixGroupsShareTheirSystemPromptAndPopularityIsSkewed() {
    Trace t = SyntheticTraces.sharedPrefix().requests(2000).groups(8).usersPerGroup(4)
        .systemTokens(256).questionTokens(64).blockTokens(64).zipf(1.2).build();
    Map<Long, Integer> byFirstBlock = new HashMap<>();
    for (TraceRequest r : t.requests()) {
      assertThat(r.blockIds()).hasSize(5);
      byFirstBlock.merge(r.blockIds()[0], 1, Integer::sum);
    }
    assertThat(byFirstBlock).hasSize(8);
    int max = byFirstBlock.values().stream().max(Integer::compare).orElseThrow();
    int min = byFirstBlock.values().stream().min(Integer::compare).orElseThrow();
    assertThat(max).isGreaterThan(5 * min);
    assertThat(t.durationSeconds()).isBetween(80.0, 120.0); // 2000 requests at 20/s
  }

  @Test
  void everyGeneratorIsSeededAndReproducible() {
    for (String name : Workloads.SYNTHETIC) {
      Trace a = Workloads.synthetic(name, 400, 5).trace();
      Trace b = Workloads.synthetic(name, 400, 5).trace();
      Trace c = Workloads.synthetic(name, 400, 6).trace();
      assertThat(a.requests()).as(name).hasSize(400).isEqualTo(b.requests());
      assertThat(a.requests()).as(name).isNotEqualTo(c.requests());
    }
  }

  @Test
  void agenticSessionsShareTheToolPreambleAndGrowByAFewThousandTokensPerTurn() {
    Trace t = SyntheticTraces.agentic().requests(2000).build();
    int preambleBlocks = 8192 / t.blockTokens();
    Map<String, TraceRequest> last = new HashMap<>();
    Map<String, Integer> turns = new HashMap<>();
    Map<String, Double> starts = new HashMap<>();
    for (TraceRequest r : t.requests()) {
      // Every prompt starts with the same preamble blocks.
      for (int k = 0; k < preambleBlocks; k++) assertThat(r.blockIds()[k]).isEqualTo(k);
      assertThat(r.inputTokens()).isLessThanOrEqualTo(120_000);
      TraceRequest previous = last.put(r.sessionId(), r);
      turns.merge(r.sessionId(), 1, Integer::sum);
      starts.putIfAbsent(r.sessionId(), r.arrivalSeconds());
      if (previous == null) {
        assertThat(r.inputTokens() - 8192).isBetween(1000, 4000);
        continue;
      }
      int growth = r.inputTokens() - previous.inputTokens() - previous.outputTokens();
      assertThat(growth).isBetween(1000, 4000);
      int full = previous.inputTokens() / t.blockTokens();
      assertThat(Arrays.copyOf(r.blockIds(), full)).isEqualTo(Arrays.copyOf(previous.blockIds(), full));
    }
    // Dozens of turns per session (the last session may be cut short by the request count).
    long complete = turns.values().stream().filter(n -> n >= 20 && n <= 40).count();
    assertThat(complete).isGreaterThanOrEqualTo(turns.size() - 1);
    // Sessions start in bursts: 4 within a second, every 30 s.
    Map<Long, Long> perBurst = new HashMap<>();
    for (double start : starts.values()) {
      assertThat(start % 30).isLessThan(1.0);
      perBurst.merge((long) (start / 30), 1L, Long::sum);
    }
    assertThat(perBurst.values()).allMatch(n -> n <= 4);
  }

  @Test
  void sharedPrefixDefaultsToManyTenantsWithLongSystemPrompts() {
    Trace t = SyntheticTraces.sharedPrefix().requests(4000).build();
    Map<Long, Integer> tenants = new HashMap<>();
    for (TraceRequest r : t.requests()) {
      assertThat(r.inputTokens()).isEqualTo(4096 + 256);
      tenants.merge(r.blockIds()[0], 1, Integer::sum);
    }
    // 256 tenants, Zipf: more than one replica's 480,000-token cache holds all their prompts.
    assertThat(tenants.size()).isGreaterThan(150);
    assertThat(256L * 4096).isGreaterThan(EngineProfile.DEFAULT_CACHE_TOKENS);
  }
}
