package io.github.llmrouter.sim;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

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
  void longAgentSessionsGrowFromAPreambleToHundredsOfThousandsOfTokensAndFillTheFleetsMemory() {
    Trace t = SyntheticTraces.longAgent().build();
    assertThat(t.size()).isEqualTo(6000);
    assertThat(t.blockTokens()).isEqualTo(64);
    Map<String, TraceRequest> last = new HashMap<>();
    Map<String, Integer> turns = new HashMap<>();
    Map<Long, Integer> preambleUse = new HashMap<>();
    long[] prompts = new long[t.size()];
    int i = 0;
    for (TraceRequest r : t.requests()) {
      prompts[i++] = r.inputTokens();
      assertThat(r.inputTokens()).isLessThanOrEqualTo(400_000);
      assertThat(r.outputTokens()).isBetween(100, 500);
      TraceRequest previous = last.put(r.sessionId(), r);
      turns.merge(r.sessionId(), 1, Integer::sum);
      if (previous == null) {
        // A preamble of 10 K–30 K tokens (its full blocks in its own namespace), then the task.
        long first = r.blockIds()[0];
        assertThat(first >>> 62).isEqualTo(1);
        preambleUse.merge(first, 1, Integer::sum);
        assertThat(r.inputTokens()).isBetween(10_000 + 500, 30_000 + 4000);
        continue;
      }
      double think = r.arrivalSeconds() - previous.arrivalSeconds();
      assertThat(think).isBetween(2.0, 30.0);
      int growth = r.inputTokens() - previous.inputTokens() - previous.outputTokens();
      assertThat(growth).isBetween(500, 8000);
      int full = previous.inputTokens() / t.blockTokens();
      assertThat(Arrays.copyOf(r.blockIds(), full)).isEqualTo(Arrays.copyOf(previous.blockIds(), full));
    }
    assertThat(preambleUse).as("a few preambles, each shared by many sessions").hasSize(4)
        .allSatisfy((id, sessions) -> assertThat(sessions).isGreaterThan(20));
    assertThat(turns.values()).allMatch(n -> n <= 60);
    Arrays.sort(prompts);
    assertThat(prompts[prompts.length / 2]).as("median prompt").isBetween(80_000L, 140_000L);
    assertThat(prompts[prompts.length * 9 / 10]).as("p90 prompt").isBetween(150_000L, 300_000L);
    assertThat(prompts[prompts.length - 1]).as("largest prompt").isGreaterThan(300_000L);
    // Halfway through, the open sessions' contexts hold 1–2 times 8 H100/8B replicas' KV memory.
    double middle = t.requests().get(t.size() / 2).arrivalSeconds();
    Map<String, Integer> open = new HashMap<>();
    Map<String, Double> ends = new HashMap<>();
    for (TraceRequest r : t.requests()) ends.put(r.sessionId(), r.arrivalSeconds());
    for (TraceRequest r : t.requests()) {
      if (r.arrivalSeconds() <= middle && ends.get(r.sessionId()) >= middle) {
        open.put(r.sessionId(), r.inputTokens());
      }
    }
    long held = open.values().stream().mapToLong(Integer::longValue).sum();
    long fleet = 8L * EngineProfile.DEFAULT_CACHE_TOKENS;
    assertThat((double) held / fleet).isBetween(1.0, 2.0);
  }

  @Test
  void longAgentIsSeededAndRefusesBadKnobsByName() {
    assertThat(SyntheticTraces.longAgent().requests(300).seed(4).build().requests())
        .isEqualTo(SyntheticTraces.longAgent().requests(300).seed(4).build().requests());
    assertThat(SyntheticTraces.longAgent().requests(300).seed(5).build().requests())
        .isNotEqualTo(SyntheticTraces.longAgent().requests(300).seed(4).build().requests());
    assertThatThrownBy(() -> SyntheticTraces.longAgent().turns(0, 3).build())
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("turns");
    assertThatThrownBy(() -> SyntheticTraces.longAgent().stepTokens(900, 800).build())
        .hasMessageContaining("stepTokens");
    assertThatThrownBy(() -> SyntheticTraces.longAgent().thinkSeconds(-1, 3).build())
        .hasMessageContaining("thinkSeconds");
    assertThatThrownBy(() -> SyntheticTraces.longAgent().sessionsPerSecond(0).build())
        .hasMessageContaining("sessionsPerSecond");
    assertThatThrownBy(() -> SyntheticTraces.longAgent().maxContextTokens(20_000).build())
        .hasMessageContaining("maxContextTokens");
    assertThatThrownBy(() -> SyntheticTraces.longAgent().preambles(0).build())
        .hasMessageContaining("preambles");
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
