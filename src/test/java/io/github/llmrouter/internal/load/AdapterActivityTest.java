package io.github.llmrouter.internal.load;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** vLLM's adapter gauge: the current sample's running and waiting adapters and max_lora. */
class AdapterActivityTest {
  private static AdapterActivity read(String text) {
    return AdapterActivity.of(PrometheusText.parse(text));
  }

  @Test
  void theSampleSetLastIsTheCurrentOne() {
    AdapterActivity a = read("""
        # HELP vllm:lora_requests_info Running stats on lora requests.
        # TYPE vllm:lora_requests_info gauge
        vllm:lora_requests_info{max_lora="8",running_lora_adapters="old",waiting_lora_adapters=""} 1.7e9
        vllm:lora_requests_info{max_lora="8",running_lora_adapters="sql,chat",waiting_lora_adapters="math"} 1.7000001e9
        vllm:lora_requests_info{max_lora="8",running_lora_adapters="",waiting_lora_adapters=""} 1.6e9
        vllm:num_requests_running{model_name="base"} 3
        """);
    assertThat(a).isNotNull();
    assertThat(a.active()).containsExactly("sql", "chat", "math");
    assertThat(a.maxLora()).isEqualTo(8);
  }

  @Test
  void noGaugeIsNoActivityAndMalformedLabelsReadAsAbsent() {
    assertThat(read("vllm:num_requests_running 3\n")).isNull();
    AdapterActivity a = read("vllm:lora_requests_info{max_lora=\"many\","
        + "running_lora_adapters=\" a ,,a, b \"} 1\n");
    assertThat(a).isNotNull();
    assertThat(a.active()).containsExactly("a", "b");
    assertThat(a.maxLora()).isZero();
    AdapterActivity negative = read("vllm:lora_requests_info{max_lora=\"-2\"} 1\n");
    assertThat(negative).isNotNull();
    assertThat(negative.active()).isEmpty();
    assertThat(negative.maxLora()).isZero();
  }

  @Test
  void atMostSoManyAdaptersAreRead() {
    StringBuilder names = new StringBuilder();
    for (int k = 0; k < AdapterActivity.MAX_ADAPTERS + 10; k++) names.append("a").append(k).append(',');
    AdapterActivity a = read("vllm:lora_requests_info{max_lora=\"4\",running_lora_adapters=\""
        + names + "\"} 1\n");
    assertThat(a).isNotNull();
    assertThat(a.active()).hasSize(AdapterActivity.MAX_ADAPTERS);
  }
}
