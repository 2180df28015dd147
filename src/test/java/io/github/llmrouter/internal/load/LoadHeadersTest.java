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
  void theTextFormReadsItsNamesWithOrWithoutThePrefixAndAroundAnyBlanks() {
    assertThat(LoadHeaders.parseEndpointLoadMetrics(" text \tnum_requests_running = 4 ,"
        + "named_metrics.num_requests_waiting=2,, kv_cache_usage_perc=1.5 , other=9 ", 1))
        .as("lower-case format, tabs, an empty pair, a usage above 1 capped")
        .isEqualTo(new LoadReport(2, 4, 1.0, 1, LoadReport.Source.HEADER));
    assertThat(LoadHeaders.parseEndpointLoadMetrics("TEXT num_requests_waiting=1, "
        + "num_requests_waiting=6", 0)).as("the last of a name counts")
        .isEqualTo(new LoadReport(6, -1, Double.NaN, 0, LoadReport.Source.HEADER));
    assertThat(LoadHeaders.parseEndpointLoadMetrics("TEXT named_metrics.=3, "
        + "named_metrics.num_requests_waitingX=3, num_requests_waiting", 0))
        .as("near misses are not read").isNull();
    assertThat(LoadHeaders.parseEndpointLoadMetrics("TEXTUAL num_requests_waiting=3", 0))
        .as("a format is a whole word").isNull();
    assertThat(LoadHeaders.parseEndpointLoadMetrics("TEXT", 0)).isNull();
    assertThat(LoadHeaders.parseEndpointLoadMetrics("x".repeat(LoadHeaders.MAX_CHARS + 1), 0))
        .isNull();
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
