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
}
