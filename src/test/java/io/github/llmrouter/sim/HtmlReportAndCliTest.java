package io.github.llmrouter.sim;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class HtmlReportAndCliTest {
  @TempDir Path dir;

  private static String run(String... args) throws IOException {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    int code = SimulatorCli.run(args, new PrintStream(bytes, true, StandardCharsets.UTF_8));
    assertThat(code).isZero();
    return bytes.toString(StandardCharsets.UTF_8);
  }

  /** The first {@code lines} lines of the bundled trace, as a trace file of its own. */
  private Path smallTrace(int lines) throws IOException {
    Path file = dir.resolve("small_trace.jsonl");
    List<String> head = Files.readAllLines(Path.of(SimulatorCli.DEFAULT_TRACE)).subList(0, lines);
    Files.write(file, head);
    return file;
  }

  @Test
  void theCliPrintsTheTableAndWritesASelfContainedReport() throws Exception {
    Path html = dir.resolve("report.html");
    String out = run("--synthetic", "shared-prefix", "--requests", "800", "--replicas", "4",
        "--sweep", "0.5,1,2", "--html", html.toString());
    assertThat(out).contains("hit-rate references: ideal", "CacheAware *", "PrefixHash", "SGLang",
        "llm-d", "Dynamo", "Oracle", "rate x2:",
        "* = the policy LlmClient uses by default (CacheAware)");
    String page = Files.readString(html);
    assertThat(page).startsWith("<!DOCTYPE html>").contains("<svg", "polyline",
        "TTFT p99 versus load multiplier", "CacheAware (default)");
    // Self-contained: no scripts, nothing fetched (the only URL is the SVG namespace).
    assertThat(page).doesNotContain("<script", "src=", "href=");
    assertThat(page.replace("http://www.w3.org/2000/svg", "")).doesNotContain("http");
  }

  @Test
  void theCsvHasTheHeaderAndOneLinePerPolicyAndRow() throws Exception {
    Path csv = dir.resolve("out/runs.csv");
    run("--synthetic", "multi-turn", "--requests", "300", "--replicas", "4", "--clients", "2",
        "--policies", "roundrobin,cacheaware,sglang", "--rate", "1", "--sweep", "1,2",
        "--csv", csv.toString());
    List<String> lines = Files.readAllLines(csv);
    assertThat(lines.get(0)).isEqualTo("policy,default,clients,rate,hit_rate,ttft_mean_s,ttft_p99_s,goodput");
    assertThat(lines).hasSize(1 + 2 * 3);
    assertThat(lines.subList(1, lines.size())).extracting(l -> l.split(",")[0] + "," + l.split(",")[1]
            + "," + l.split(",")[2] + "," + l.split(",")[3])
        .containsExactly("RoundRobin,false,2,1", "CacheAware,true,2,1", "SGLang,false,2,1",
            "RoundRobin,false,2,2", "CacheAware,true,2,2", "SGLang,false,2,2");
    for (String line : lines.subList(1, lines.size())) {
      String[] f = line.split(",");
      assertThat(f).hasSize(8);
      assertThat(Double.parseDouble(f[4])).isBetween(0.0, 1.0);
      assertThat(Double.parseDouble(f[5])).isPositive().isLessThanOrEqualTo(Double.parseDouble(f[6]));
      assertThat(Double.parseDouble(f[7])).isPositive();
    }
  }

  @Test
  void oneCommandRunsTheWholeTableWithOneCsvPerWorkloadTheSameOnOneThreadOrTwo() throws Exception {
    Path trace = smallTrace(300);
    Path csv = dir.resolve("table.csv");
    Path html = dir.resolve("table.html");
    String[] args = {"--table", "--trace", trace.toString(), "--requests", "150", "--replicas", "4",
        "--policies", "roundrobin,cacheaware,dynamo", "--csv", csv.toString(), "--html",
        html.toString(), "--threads", "2"};
    String out = run(args);
    assertThat(out).contains("small, 1, 4x", "shared-prefix, 8, 5x", "multi-turn, 1, 12x",
        "agentic, 8, 2x", "long-agent, 8, 0.5x", "mean TTFT / CacheAware's",
        "simulated 24 rows, 72 policy runs");
    for (String w : List.of("small", "shared-prefix", "multi-turn", "agentic", "long-agent")) {
      List<String> lines = Files.readAllLines(dir.resolve("table-" + w + ".csv"));
      int rates = w.equals("small") ? 4 : 2;
      assertThat(lines.get(0)).isEqualTo(Comparison.CSV_HEADER);
      assertThat(lines).as(w).hasSize(1 + rates * 2 * 3);
      assertThat(lines.stream().filter(l -> l.contains(",true,")).collect(Collectors.toList()))
          .allMatch(l -> l.startsWith("CacheAware,")).hasSize(rates * 2);
    }
    assertThat(Files.readString(html)).contains("CacheAware (default)", "Mean TTFT, s", "<svg");
    args[args.length - 1] = "1";
    assertThat(withoutTiming(run(args))).isEqualTo(withoutTiming(out));
  }

  private static String withoutTiming(String out) {
    return out.lines().filter(l -> !l.startsWith("simulated ")).collect(Collectors.joining("\n"));
  }

  @Test
  void theCliRejectsBadInputWithAClearMessage() throws Exception {
    assertThatThrownBy(() -> run("--frobnicate")).hasMessageStartingWith("unknown option '--frobnicate'");
    assertThatThrownBy(() -> run("--policies", "prefixhash,kubeai"))
        .hasMessageStartingWith("unknown policy 'kubeai'; known policies: roundrobin, random,");
    assertThatThrownBy(() -> run("--policies", "prefixhash,,sglang")).hasMessageContaining("empty name");
    assertThatThrownBy(() -> run("--rate", "0")).hasMessage("--rate rate multipliers must be in (0, 1000], got 0");
    assertThatThrownBy(() -> run("--sweep", "1,x")).hasMessage("--sweep expects a number, got 'x'");
    assertThatThrownBy(() -> run("--clients", "0")).hasMessage("--clients must be in [1, 10000], got 0");
    assertThatThrownBy(() -> run("--replicas", "2000")).hasMessage("--replicas must be in [1, 1024], got 2000");
    assertThatThrownBy(() -> run("--requests", "many")).hasMessage("--requests expects an integer, got 'many'");
    assertThatThrownBy(() -> run("--scrape-interval", "0.001"))
        .hasMessage("--scrape-interval must be 0 or in [0.01, 600] seconds, got 0.001");
    assertThatThrownBy(() -> run("--window", "50:10")).hasMessageContaining("0 <= FROM < TO");
    assertThatThrownBy(() -> run("--synthetic", "chat")).hasMessageContaining("unknown workload 'chat'");
    assertThatThrownBy(() -> run("--table", "--sweep", "1,2")).hasMessageContaining("--table");
    assertThatThrownBy(() -> run("--rate")).hasMessage("--rate needs a value");
    assertThatThrownBy(() -> run("--kv-cache-tokens", "100"))
        .hasMessage("--kv-cache-tokens must be in [1024, 1000000000], got 100");
  }

  @Test
  void aLargerKvCacheIsASettingOfTheProfile() {
    CliOptions o = CliOptions.parse(new String[] {"--profile", "l4-8b", "--kv-cache-tokens",
        "2000000"});
    EngineProfile profile = o.simulator.build().settings().profile();
    assertThat(profile.cacheTokens()).isEqualTo(2_000_000);
    assertThat(profile.name()).isEqualTo(EngineProfile.named("l4-8b").name());
    assertThat(profile.prefillTokensPerSecond())
        .isEqualTo(EngineProfile.named("l4-8b").prefillTokensPerSecond());
    assertThat(CliOptions.parse(new String[0]).simulator.build().settings().profile()
        .cacheTokens()).isEqualTo(EngineProfile.DEFAULT_CACHE_TOKENS);
  }

  @Test
  void aBadTraceLineIsReportedWithItsFileAndLineNumber() throws Exception {
    Path notJson = dir.resolve("broken.jsonl");
    Files.writeString(notJson, "{\"timestamp\": 0, \"input_length\": 10, \"output_length\": 1,"
        + " \"hash_ids\": [1]}\n{\"timestamp\": 5, oops}\n");
    assertThatThrownBy(() -> run("--trace", notJson.toString()))
        .isInstanceOf(TraceFormatException.class)
        .hasMessageStartingWith(notJson + ":2: not valid JSON");
    Path missing = dir.resolve("missing.jsonl");
    Files.writeString(missing, "{\"timestamp\": 0, \"input_length\": 10, \"hash_ids\": [1]}\n");
    assertThatThrownBy(() -> run("--trace", missing.toString()))
        .hasMessage(missing + ":1: missing field 'output_length'");
    assertThatThrownBy(() -> run("--trace", dir.resolve("absent.jsonl").toString()))
        .isInstanceOf(java.io.UncheckedIOException.class).hasMessageContaining("absent.jsonl");
  }
}
