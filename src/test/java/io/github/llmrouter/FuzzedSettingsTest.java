package io.github.llmrouter;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.catchThrowable;

import io.github.llmrouter.internal.load.DialectReader;
import io.github.llmrouter.internal.load.ParsedMetrics;
import io.github.llmrouter.internal.load.PrometheusText;
import io.github.llmrouter.load.EngineDialect;
import io.github.llmrouter.load.LoadReport;
import io.github.llmrouter.replica.Replica;
import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import okhttp3.Request;

/**
 * Property-based fuzzing of what users and replicas configure or report without a call: header
 * values (and API keys), and metrics texts. A header either fails at build() without showing its
 * value or is one OkHttp sends; a metrics page never throws and never yields a nonsensical report.
 */
class FuzzedSettingsTest {
  private static final String MARK = "SECRETMARK";

  @Property(tries = 500)
  void aHeaderValueFailsAtBuildWithoutShowingItOrIsSendable(@ForAll("values") String raw) {
    String value = MARK + raw;
    Throwable failure = catchThrowable(() ->
        Replica.builder("http://10.0.0.7:8000").header("X-Key", value).build());
    if (failure != null) {
      assertThat(failure).isInstanceOf(IllegalArgumentException.class);
      assertThat(failure.getMessage()).contains("X-Key").doesNotContain(MARK);
    } else {
      assertThatCode(() -> new Request.Builder().url("http://10.0.0.7:8000/")
          .header("X-Key", value).build()).doesNotThrowAnyException();
    }
    Throwable keyFailure = catchThrowable(() -> LlmClient.builder()
        .replicas("http://127.0.0.1:1").apiKey(value)
        .loadMonitoring(io.github.llmrouter.load.LoadMonitoring.disabled()).build().close());
    if (keyFailure != null) {
      assertThat(keyFailure).isInstanceOf(IllegalArgumentException.class);
      assertThat(keyFailure.getMessage()).contains("apiKey").doesNotContain(MARK);
    }
    assertThat(keyFailure == null).isEqualTo(failure == null);
  }

  @Provide
  Arbitrary<String> values() {
    return Arbitraries.oneOf(
        Arbitraries.strings().ofMaxLength(20),
        Arbitraries.strings().ascii().ofMaxLength(20),
        Arbitraries.strings().withCharRange(' ', '~').ofMaxLength(20),
        Arbitraries.of("\n", "\r\n", " ", "\t", "\u0000", "\u007f", "\u00e9", "\ud83d\ude00"));
  }

  @Property(tries = 300)
  void anyMetricsTextParsesWithoutThrowingIntoASaneReport(@ForAll("metrics") String text) {
    ParsedMetrics metrics = PrometheusText.parse(text);
    for (EngineDialect dialect : List.of(EngineDialect.AUTO, EngineDialect.VLLM,
        EngineDialect.SGLANG, EngineDialect.TGI, EngineDialect.LLAMA_CPP)) {
      LoadReport report = DialectReader.read(dialect, metrics, null, 0L);
      if (report != null) {
        assertThat(report.waiting()).isGreaterThanOrEqualTo(-1);
        assertThat(report.running()).isGreaterThanOrEqualTo(-1);
        assertThat(Double.isNaN(report.kvUsage()) || report.kvUsage() >= 0).isTrue();
      }
      assertThatCode(() -> DialectReader.read(dialect, metrics, "m", 0L)).doesNotThrowAnyException();
    }
  }

  @Provide
  Arbitrary<String> metrics() {
    Arbitrary<String> name = Arbitraries.of("vllm:num_requests_waiting",
        "vllm:num_requests_running", "vllm:kv_cache_usage_perc", "vllm:gpu_cache_usage_perc",
        "sglang:num_queue_reqs", "sglang:num_running_reqs", "sglang:token_usage",
        "tgi_queue_size", "tgi_batch_current_size", "llamacpp:requests_deferred",
        "llamacpp:requests_processing", "other_metric");
    Arbitrary<String> labels = Arbitraries.of("", "{model_name=\"m\"}", "{model_name=\"x\"}",
        "{model_name=\"m\",engine=\"0\"}", "{", "{model_name=}", "{a=\"\\\"\"}");
    Arbitrary<String> value = Arbitraries.of("0", "1", "-1", "3.5", "1e308", "1e999", "NaN",
        "+Inf", "-Inf", "abc", "", "9223372036854775808", "2147483648");
    Arbitrary<String> sample = net.jqwik.api.Combinators.combine(name, labels, value)
        .as((n, l, v) -> n + l + " " + v);
    Arbitrary<String> line = Arbitraries.oneOf(sample, sample, Arbitraries.strings().ofMaxLength(30),
        Arbitraries.of("# HELP x y", "# TYPE vllm:num_requests_waiting gauge", "", "#"));
    return line.list().ofMaxSize(15).map(lines -> String.join("\n", lines));
  }
}
