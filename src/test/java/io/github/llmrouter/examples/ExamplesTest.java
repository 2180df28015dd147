package io.github.llmrouter.examples;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.llmrouter.routing.PrefixHash;
import io.github.llmrouter.routing.RoutingPolicy;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Every example runs in the build, and the demo shows what it claims. */
class ExamplesTest {
  @Test
  void quickStartMakesABlockingAndAStreamedCall() {
    PrintStream original = System.out;
    ByteArrayOutputStream printed = new ByteArrayOutputStream();
    System.setOut(new PrintStream(printed, true, StandardCharsets.UTF_8));
    try {
      QuickStart.main(new String[0]);
    } finally {
      System.setOut(original);
    }
    List<String> lines = printed.toString(StandardCharsets.UTF_8).lines().toList();
    assertThat(lines).hasSize(2);
    // "blocking: <answer> Usage{...}", then "streamed from <replica id>: <answer>".
    assertThat(lines.get(0)).matches("blocking: \\S.* Usage\\{prompt=\\d+, completion=\\d+, total=\\d+.*\\}");
    assertThat(lines.get(1)).matches("streamed from 127\\.0\\.0\\.1:\\d+: \\S.*");
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
