package io.github.llmrouter.examples;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.llmrouter.routing.PrefixHash;
import io.github.llmrouter.routing.RoutingPolicy;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
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
  void theObservabilityExamplePrintsTheRoutersMetersAfterAReplicaStopped() {
    String scrape = ObservabilityExample.run();
    assertThat(scrape).doesNotContain("_bucket{")
        .contains("llm_router_calls_seconds_count{error_type=\"none\",model=\"emulated-model\","
            + "operation=\"chat\",outcome=\"success\"} 40")
        .contains("llm_router_calls_seconds_count{error_type=\"none\",model=\"emulated-model\","
            + "operation=\"chat.stream\",outcome=\"success\"} 20")
        .contains("llm_router_time_to_first_token_seconds_count{")
        .containsPattern("llm_router_attempts_seconds_count\\{error_type=\"ReplicaUnreachable"
            + "Exception\",model=\"emulated-model\",operation=\"chat(\\.stream)?\",outcome="
            + "\"failed\",replica=\"[^\"]+\"} [1-9]")
        .containsPattern("llm_router_retries_total\\{model=\"emulated-model\",operation=\"chat"
            + "(\\.stream)?\",reason=\"ReplicaUnreachableException\"} [1-9]")
        .contains("llm_router_replicas 3.0")
        .containsPattern("llm_router_tokens_total\\{model=\"emulated-model\",replica=\"[^\"]+\","
            + "type=\"input\"} [1-9]")
        .contains("llm_router_in_flight{").contains("llm_router_circuit_breaker_state{")
        .contains("llm_router_load_report_age_seconds{")
        .contains("llm_router_fleet_replicas_needed{target=\"2.0\"}");
  }

  @Test
  void theOpenAiJavaExampleAnswersAChatAndAStreamThroughTheRouter() {
    List<String> lines = OpenAiJavaExample.run().lines().toList();
    assertThat(lines).hasSize(2);
    assertThat(lines.get(0)).matches("chat: \\S.*");
    assertThat(lines.get(1)).matches("streamed: \\S.*");
  }

  @Test
  void theLangChain4jExampleAnswersAChatAndAStreamThroughTheRouter() throws Exception {
    List<String> lines = LangChain4jExample.run().lines().toList();
    assertThat(lines).hasSize(2);
    assertThat(lines.get(0)).matches("chat: \\S.*");
    assertThat(lines.get(1)).matches("streamed: \\S.*");
  }

  @Test
  void theModelsExampleSendsEveryCallToAReplicaOfItsModelFoundByDiscovery() {
    List<String> lines = ModelsExample.run().lines().toList();
    assertThat(lines).hasSize(4);
    // The replica the client loads chat-lora on follows from the replicas' ids (their ports).
    assertThat(lines.get(0)).matches("chat-lora: answered by small-[01]; 1 replica\\(s\\) serve it");
    assertThat(lines.subList(1, 4)).containsExactly(
        "llama-70b: answered by big-0; 1 replica(s) serve it",
        "llama-8b: answered by small-0, small-1; 2 replica(s) serve it",
        "sql-lora: answered by small-1; 1 replica(s) serve it");
  }

  @Test
  void demoShowsThePrefixAwarePoliciesBeatingRoundRobinAndTheReadmeShowsWhatItPrints()
      throws Exception {
    Demo.Result roundRobin = Demo.run(RoutingPolicy.roundRobin(), 16, 3);
    Demo.Result prefixHash = Demo.run(PrefixHash.builder().build(), 16, 3);
    Demo.Result byDefault = Demo.run(RoutingPolicy.defaultPolicy(), 16, 3);

    assertThat(roundRobin.requestsPerReplica()).containsOnly(12);
    // Hit rate decides the prefill work a replica does; TTFT follows from it, but is wall-clock
    // time, so the demo prints it rather than the test asserting it.
    assertThat(prefixHash.hitRate()).isGreaterThan(roundRobin.hitRate() + 0.1);
    assertThat(byDefault.hitRate()).isGreaterThan(roundRobin.hitRate() + 0.1);
    assertThat(byDefault.ttftMeanMs()).isPositive();

    String printed = Demo.summary(32, 5, List.of(roundRobin, prefixHash, byDefault));
    assertThat(shape(readmeDemoBlock())).isEqualTo(shape(printed));
  }

  /** The README's demo output: the first fenced block without a language in the set-up section. */
  private static String readmeDemoBlock() throws Exception {
    String readme = Files.readString(Path.of("README.md"));
    int section = readme.indexOf("\n## Set-up");
    int open = readme.indexOf("\n\n```\n", section) + 6;
    int close = readme.indexOf("\n```\n", open - 1);
    assertThat(open).as("the demo's output in the README's set-up section").isGreaterThan(section);
    return readme.substring(open, close + 1);
  }

  /** The text without its figures: what must not change between runs. */
  private static String shape(String text) {
    return text.replaceAll("\\[[0-9, ]*\\]", "[n]").replaceAll("[0-9]+(\\.[0-9]+)?", "n")
        .replaceAll("[ \\t]+", " ").strip();
  }
}
