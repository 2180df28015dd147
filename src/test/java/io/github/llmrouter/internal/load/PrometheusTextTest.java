package io.github.llmrouter.internal.load;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;

import io.github.llmrouter.load.EngineDialect;
import io.github.llmrouter.load.LoadReport;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

/** The Prometheus text parser and the engine dialects, on each engine's exposition format. */
class PrometheusTextTest {
  static String fixture(String name) {
    try (InputStream in = PrometheusTextTest.class.getResourceAsStream("/metrics/" + name)) {
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
  }

  @Nested
  class Parsing {
    @Test
    void helpTypeAndCommentLinesAreNotSamplesAndNotMalformed() {
      ParsedMetrics m = PrometheusText.parse(fixture("vllm.txt"));
      assertThat(m.malformedLines()).isZero();
      assertThat(m.samples(PrometheusTextTest.VLLM_WAITING)).hasSize(2);
      assertThat(m.has("vllm:time_to_first_token_seconds_bucket")).isTrue();
    }

    @Test
    void edgeCasesParseOrAreSkippedAndCounted() {
      ParsedMetrics m = PrometheusText.parse(fixture("edge-cases.txt"));
      MetricSample first = m.samples("weird").get(0);
      assertThat(first.labels()).containsExactly(Map.entry("path", "C:\\dir\\"),
          Map.entry("quote", "say \"hi\""), Map.entry("nl", "a\nb"));
      assertThat(first.value()).isEqualTo(1.5);
      assertThat(m.samples("weird")).extracting(MetricSample::value)
          .containsExactly(1.5, Double.NaN, Double.POSITIVE_INFINITY, Double.NEGATIVE_INFINITY,
              0.0015);
      assertThat(m.samples("weird").get(1).label("empty")).isEmpty();
      assertThat(m.samples("spaced").get(0).labels()).containsEntry("a", "x").containsEntry("b", "y");
      assertThat(m.sum("windows_line_ending", null, null)).isEqualTo(3.0);
      assertThat(m.sum("exemplar_total", null, null)).isEqualTo(17.0);
      // no_value, unterminated label, duplicate label, 1.0d, hex, leading digit, trailing garbage
      assertThat(m.malformedLines()).isEqualTo(7);
      assertThat(m.has("bad")).isFalse();
      assertThat(m.has("after_eof")).as("nothing after # EOF").isFalse();
    }

    @Test
    void sumAndMeanIgnoreNonFiniteValuesAndAreNaNWhenNothingMatches() {
      ParsedMetrics m = PrometheusText.parse("a 1\na NaN\na +Inf\na 2\n");
      assertThat(m.sum("a", null, null)).isEqualTo(3.0);
      assertThat(m.mean("a", null, null)).isEqualTo(1.5);
      assertThat(m.sum("missing", null, null)).isNaN();
      assertThat(m.sum("a", "model_name", "x")).isNaN();
    }

    @Test
    void emptyAndGarbageInputGiveNoSamples() {
      assertThat(PrometheusText.parse("").samples()).isEmpty();
      ParsedMetrics garbage = PrometheusText.parse("<html><body>502 Bad Gateway</body></html>");
      assertThat(garbage.samples()).isEmpty();
      assertThat(garbage.malformedLines()).isEqualTo(1);
    }

    @Test
    void anOverlongLineIsSkipped() {
      String huge = "big{a=\"" + "x".repeat(PrometheusText.MAX_LINE_CHARS) + "\"} 1\nsmall 2\n";
      ParsedMetrics m = PrometheusText.parse(huge);
      assertThat(m.malformedLines()).isEqualTo(1);
      assertThat(m.sum("small", null, null)).isEqualTo(2.0);
    }
  }

  static final String VLLM_WAITING = "vllm:num_requests_waiting";

  @Nested
  class Dialects {
    @Test
    void vllmSumsQueuesOverEnginesAndAveragesKvUsage() {
      LoadReport r = DialectReader.read(EngineDialect.AUTO, PrometheusText.parse(fixture("vllm.txt")), null, 7);
      // Queue-time histogram: _sum and _count summed over engines, buckets ignored.
      // KV capacity: each engine's num_gpu_blocks × block_size, summed.
      assertThat(r).isEqualTo(new LoadReport(5, 22, 5, 0.6, 20.0, 100.0, 7,
          LoadReport.Source.SCRAPE, (27_000 + 26_500) * 16L));
      assertThat(DialectReader.detect(EngineDialect.AUTO, PrometheusText.parse(fixture("vllm.txt"))))
          .isSameAs(EngineDialect.VLLM);
    }

    @Test
    void olderVllmNamesAndAModelNameFilter() {
      ParsedMetrics m = PrometheusText.parse(fixture("vllm-v0-two-models.txt"));
      assertThat(DialectReader.read(EngineDialect.VLLM, m, null, 0))
          .isEqualTo(new LoadReport(8, 6, 0.5, 0, LoadReport.Source.SCRAPE));
      assertThat(DialectReader.read(EngineDialect.VLLM, m, "llama-8b_sql-lora", 0))
          .isEqualTo(new LoadReport(1, 2, 0.75, 0, LoadReport.Source.SCRAPE));
    }

    @Test
    void sglang() {
      ParsedMetrics m = PrometheusText.parse(fixture("sglang.txt"));
      assertThat(DialectReader.detect(EngineDialect.AUTO, m)).isSameAs(EngineDialect.SGLANG);
      assertThat(DialectReader.read(EngineDialect.AUTO, m, null, 0))
          .isEqualTo(new LoadReport(6, 28, 6, 0.28, 2.0, 8.0, 0, LoadReport.Source.SCRAPE,
              161_721));
    }

    @Test
    void kvCapacityThatIsAbsentMalformedOrPartialIsUnknown() {
      String vllm = "vllm:num_requests_waiting 1\n";
      String info = "vllm:cache_config_info{block_size=\"%s\",engine=\"%s\",num_gpu_blocks=\"%s\"} 1\n";
      assertThat(capacity(EngineDialect.VLLM, vllm)).as("absent").isEqualTo(-1);
      assertThat(capacity(EngineDialect.VLLM, vllm + String.format(info, "16", "0", "100")))
          .isEqualTo(1600);
      for (String[] bad : new String[][] {{"16", "None"}, {"x", "100"}, {"0", "100"},
          {"16", "-5"}, {"16", "1.5"}, {"16", ""}, {"4611686018427387904", "4"}}) {
        assertThat(capacity(EngineDialect.VLLM, vllm + String.format(info, bad[0], "0", bad[1])))
            .as("block_size %s, num_gpu_blocks %s", bad[0], bad[1]).isEqualTo(-1);
      }
      assertThat(capacity(EngineDialect.VLLM, vllm + String.format(info, "16", "0", "100")
          + "vllm:cache_config_info{engine=\"1\",block_size=\"16\"} 1\n"))
          .as("one engine's capacity missing").isEqualTo(-1);
      String sglang = "sglang:num_queue_reqs 1\n";
      assertThat(capacity(EngineDialect.SGLANG, sglang)).isEqualTo(-1);
      for (String bad : new String[] {"NaN", "-1", "0", "+Inf", "0.5"}) {
        assertThat(capacity(EngineDialect.SGLANG, sglang + "sglang:max_total_num_tokens " + bad
            + "\n")).as(bad).isEqualTo(-1);
      }
      assertThat(capacity(EngineDialect.SGLANG, sglang + "sglang:max_total_num_tokens 1e6\n"))
          .isEqualTo(1_000_000);
      assertThat(capacity(EngineDialect.SGLANG, sglang + "sglang:max_total_num_tokens 1\n"))
          .as("the smallest cache there is").isEqualTo(1);
      assertThat(capacity(EngineDialect.SGLANG, sglang + "sglang:max_total_num_tokens{e=\"0\"} 9e18\n"
          + "sglang:max_total_num_tokens{e=\"1\"} 9e18\n")).as("a sum past Long.MAX_VALUE")
          .isEqualTo(-1);
      assertThat(capacity(EngineDialect.LLAMA_CPP, "llamacpp:requests_deferred 0\n"))
          .isEqualTo(-1);
      // With a model filter, only that model's series count, where the metric carries the label.
      String two = "sglang:num_queue_reqs{model_name=\"a\"} 1\n"
          + "sglang:max_total_num_tokens{model_name=\"a\"} 1000\n"
          + "sglang:max_total_num_tokens{model_name=\"b\"} 3000\n";
      assertThat(DialectReader.read(EngineDialect.SGLANG, PrometheusText.parse(two), "a", 0).kvCapacityTokens())
          .isEqualTo(1000);
      assertThat(DialectReader.read(EngineDialect.SGLANG, PrometheusText.parse(two), null, 0)
          .kvCapacityTokens())
          .isEqualTo(4000);
    }

    private long capacity(EngineDialect d, String text) {
      return DialectReader.read(d, PrometheusText.parse(text), null, 0).kvCapacityTokens();
    }

    @Test
    void tgiHasNoKvUsageAndNoModelLabelSoAModelFilterIsIgnored() {
      ParsedMetrics m = PrometheusText.parse(fixture("tgi.txt"));
      assertThat(DialectReader.detect(EngineDialect.AUTO, m)).isSameAs(EngineDialect.TGI);
      LoadReport r = DialectReader.read(EngineDialect.AUTO, m, "any-model", 0);
      assertThat(r.waiting()).isEqualTo(9);
      assertThat(r.running()).isEqualTo(32);
      assertThat(r.kvUsage()).isNaN();
      assertThat(r.queueTimeSum()).isEqualTo(21.0);
      assertThat(r.queueTimeCount()).isEqualTo(100.0);
    }

    @Test
    void llamaCpp() {
      ParsedMetrics m = PrometheusText.parse(fixture("llamacpp.txt"));
      assertThat(DialectReader.detect(EngineDialect.AUTO, m)).isSameAs(EngineDialect.LLAMA_CPP);
      assertThat(DialectReader.read(EngineDialect.AUTO, m, null, 0))
          .isEqualTo(new LoadReport(2, 4, 0.12, 0, LoadReport.Source.SCRAPE));
    }

    @Test
    void aCustomMappingAndAnOverrideThatDoesNotMatch() {
      ParsedMetrics m = PrometheusText.parse("queue_depth 3\nactive 5\n");
      assertThat(DialectReader.read(EngineDialect.AUTO, m, null, 0)).isNull();
      EngineDialect mine = EngineDialect.custom("mine", "queue_depth", "active", null);
      assertThat(DialectReader.read(mine, m, null, 0)).isEqualTo(
          new LoadReport(3, 5, Double.NaN, 0, LoadReport.Source.SCRAPE));
      assertThat(DialectReader.read(EngineDialect.SGLANG, PrometheusText.parse(fixture("vllm.txt")),
          null, 0))
          .as("a forced dialect does not read another engine's names").isNull();
      ParsedMetrics h = PrometheusText.parse("queue_depth 3\nwait_sum 1.5\nwait_count 6\n");
      LoadReport withWait = DialectReader.read(
          EngineDialect.custom("mine", "queue_depth", null, null, "wait"), h, null, 0);
      assertThat(withWait.queueTimeSum()).isEqualTo(1.5);
      assertThat(withWait.queueTimeCount()).isEqualTo(6.0);
    }

    @Test
    void negativeNonFiniteAndOverfullValuesBecomeUnknownOrCapped() {
      ParsedMetrics m = PrometheusText.parse("vllm:num_requests_waiting -3\n"
          + "vllm:num_requests_running +Inf\nvllm:kv_cache_usage_perc 1.7\n");
      LoadReport r = DialectReader.read(EngineDialect.AUTO, m, null, 0);
      assertThat(r.waiting()).isEqualTo(-1);
      assertThat(r.running()).isEqualTo(-1);
      assertThat(r.kvUsage()).isEqualTo(1.0);
      LoadReport badWait = DialectReader.read(EngineDialect.AUTO, PrometheusText.parse(
          "vllm:num_requests_waiting 1\nvllm:request_queue_time_seconds_sum -2\n"
              + "vllm:request_queue_time_seconds_count 5\n"), null, 0);
      assertThat(badWait.queueTimeSum()).isNaN();
      assertThat(badWait.queueTimeCount()).isNaN();
    }
  }

  /** Random and mutated input: the parser never throws and no report carries a bad number. */
  @Nested
  class Fuzz {
    private static final String ALPHABET = "abvlm:_{}=\",\\ \t\n\r#.0123456789eE+-InfNa\u00e9\u2028";

    @Test
    void randomInputNeverThrowsAndNeverYieldsABadQueue() {
      SplittableRandom random = new SplittableRandom(42);
      for (int round = 0; round < 3000; round++) {
        StringBuilder b = new StringBuilder();
        int len = random.nextInt(200);
        for (int k = 0; k < len; k++) b.append(ALPHABET.charAt(random.nextInt(ALPHABET.length())));
        check(b.toString());
      }
    }

    @Test
    void mutatedFixturesNeverThrowAndNeverYieldABadQueue() {
      String[] fixtures = {fixture("vllm.txt"), fixture("sglang.txt"), fixture("tgi.txt"),
          fixture("llamacpp.txt"), fixture("edge-cases.txt"), fixture("vllm-v0-two-models.txt")};
      SplittableRandom random = new SplittableRandom(7);
      for (int round = 0; round < 3000; round++) {
        StringBuilder b = new StringBuilder(fixtures[random.nextInt(fixtures.length)]);
        int mutations = 1 + random.nextInt(8);
        for (int k = 0; k < mutations && b.length() > 0; k++) {
          int at = random.nextInt(b.length());
          switch (random.nextInt(4)) {
            case 0 -> b.deleteCharAt(at);
            case 1 -> b.insert(at, ALPHABET.charAt(random.nextInt(ALPHABET.length())));
            case 2 -> b.setCharAt(at, ALPHABET.charAt(random.nextInt(ALPHABET.length())));
            default -> b.setLength(at); // truncated body
          }
        }
        check(b.toString());
      }
    }

    private void check(String text) {
      assertThatCode(() -> {
        ParsedMetrics m = PrometheusText.parse(text);
        assertThat(m.malformedLines()).isNotNegative();
        LoadReport r = DialectReader.read(EngineDialect.AUTO, m, null, 0);
        if (r != null) {
          assertThat(r.waiting()).isGreaterThanOrEqualTo(-1);
          assertThat(r.running()).isGreaterThanOrEqualTo(-1);
          assertThat(Double.isNaN(r.kvUsage()) || (r.kvUsage() >= 0 && r.kvUsage() <= 1)).isTrue();
        }
        LoadReport h = LoadHeaders.parseEndpointLoadMetrics(text, 0);
        if (h != null) assertThat(h.waiting()).isGreaterThanOrEqualTo(-1);
        LoadHeaders.parseEndpointLoadMetrics("JSON " + text, 0);
        LoadHeaders.parseEndpointLoadMetrics("TEXT " + text, 0);
      }).doesNotThrowAnyException();
    }
  }
}
