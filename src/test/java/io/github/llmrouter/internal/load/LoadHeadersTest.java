package io.github.llmrouter.internal.load;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.llmrouter.load.LoadReport;
import org.junit.jupiter.api.Test;

/** Load reports carried on responses: ORCA {@code endpoint-load-metrics} and a custom header. */
class LoadHeadersTest {
  @Test
  void vllmTextForm() {
    LoadReport r = LoadHeaders.parseEndpointLoadMetrics(
        "TEXT named_metrics.kv_cache_usage_perc=0.4, named_metrics.num_requests_waiting=3", 5);
    assertThat(r).isEqualTo(new LoadReport(3, -1, 0.4, 5, LoadReport.Source.HEADER));
  }

  @Test
  void jsonFormWithStandardOrcaFieldsAround() {
    LoadReport r = LoadHeaders.parseEndpointLoadMetrics("JSON {\"cpu_utilization\": 0.3, "
        + "\"named_metrics\": {\"kv_cache_usage_perc\": 0.9, \"num_requests_waiting\": 7, "
        + "\"num_requests_running\": 20}}", 0);
    assertThat(r).isEqualTo(new LoadReport(7, 20, 0.9, 0, LoadReport.Source.HEADER));
  }

  @Test
  void malformedValuesGiveNoReportAndNeverThrow() {
    assertThat(LoadHeaders.parseEndpointLoadMetrics(null, 0)).isNull();
    assertThat(LoadHeaders.parseEndpointLoadMetrics("", 0)).isNull();
    assertThat(LoadHeaders.parseEndpointLoadMetrics("BIN CgQIARAB", 0)).isNull();
    assertThat(LoadHeaders.parseEndpointLoadMetrics("JSON {not json", 0)).isNull();
    assertThat(LoadHeaders.parseEndpointLoadMetrics("JSON [1,2]", 0)).isNull();
    assertThat(LoadHeaders.parseEndpointLoadMetrics("TEXT cpu_utilization=0.5", 0))
        .as("nothing we read").isNull();
    assertThat(LoadHeaders.parseEndpointLoadMetrics(
        "TEXT named_metrics.num_requests_waiting=-4, named_metrics.kv_cache_usage_perc=NaN", 0))
        .as("a negative queue and a NaN usage are unknown").isNull();
    assertThat(LoadHeaders.parseEndpointLoadMetrics("TEXT a=b=c, ,=, x", 0)).isNull();
  }

  @Test
  void customQueueDepthHeader() {
    assertThat(LoadHeaders.parseQueueDepth(" 12 ", 3))
        .isEqualTo(new LoadReport(12, -1, Double.NaN, 3, LoadReport.Source.HEADER));
    assertThat(LoadHeaders.parseQueueDepth("many", 0)).isNull();
    assertThat(LoadHeaders.parseQueueDepth("-1", 0)).isNull();
    assertThat(LoadHeaders.parseQueueDepth(null, 0)).isNull();
  }
}
