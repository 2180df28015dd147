package io.github.llmrouter.sim;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class HtmlReportAndCliTest {
  @TempDir Path dir;

  @Test
  void theCliPrintsTheTableAndWritesASelfContainedReport() throws Exception {
    Path html = dir.resolve("report.html");
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    int code = SimulatorCli.run(new String[] {
        "--synthetic", "shared-prefix", "--requests", "800", "--replicas", "4",
        "--sweep", "0.5,1,2", "--html", html.toString()},
        new PrintStream(bytes, true, StandardCharsets.UTF_8));
    String out = bytes.toString(StandardCharsets.UTF_8);
    assertThat(code).isZero();
    assertThat(out).contains("hit-rate references: ideal", "PrefixHash", "Oracle", "rate x2:");
    String page = Files.readString(html);
    assertThat(page).startsWith("<!DOCTYPE html>").contains("<svg", "polyline",
        "TTFT p99 versus load multiplier", "PrefixHash");
    // Self-contained: no scripts, nothing fetched (the only URL is the SVG namespace).
    assertThat(page).doesNotContain("<script", "src=", "href=");
    assertThat(page.replace("http://www.w3.org/2000/svg", "")).doesNotContain("http");
  }

  @Test
  void theCliRejectsUnknownOptions() {
    org.assertj.core.api.Assertions.assertThatThrownBy(
            () -> SimulatorCli.run(new String[] {"--frobnicate"}, System.out))
        .hasMessageStartingWith("unknown option '--frobnicate'");
  }
}
