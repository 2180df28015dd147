package io.github.llmrouter.examples;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.llmrouter.routing.PrefixHash;
import io.github.llmrouter.routing.RoutingPolicy;
import org.junit.jupiter.api.Test;

/** Every example runs in the build, and the demo shows what it claims. */
class ExamplesTest {
  @Test
  void quickStartRuns() {
    QuickStart.main(new String[0]);
  }

  @Test
  void demoShowsPrefixHashBeatingRoundRobin() throws Exception {
    Demo.Result roundRobin = Demo.run(RoutingPolicy.roundRobin(), 16, 3);
    Demo.Result prefixHash = Demo.run(PrefixHash.builder().build(), 16, 3);

    assertThat(roundRobin.requestsPerReplica()).containsOnly(12);
    // Hit rate decides the prefill work a replica does; TTFT follows from it, but is wall-clock
    // time, so the demo prints it rather than the test asserting it.
    assertThat(prefixHash.hitRate()).isGreaterThan(roundRobin.hitRate() + 0.1);
    assertThat(prefixHash.ttftMeanMs()).isPositive();
  }
}
