package io.github.llmrouter.internal.load;

import io.github.llmrouter.load.LoadReport;
import java.util.Locale;
import org.jspecify.annotations.Nullable;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * Parsers for load reports that replicas attach to responses. Never throw: a malformed header
 * yields null (no report).
 *
 * <p><b>{@value #ENDPOINT_LOAD_METRICS}</b> (ORCA, as vLLM sends it when the request carries
 * {@code endpoint-load-metrics-format: TEXT} or {@code JSON}):
 *
 * <pre>
 * endpoint-load-metrics: TEXT named_metrics.kv_cache_usage_perc=0.4,
 * named_metrics.num_requests_waiting=3
 * endpoint-load-metrics: JSON {"named_metrics": {"kv_cache_usage_perc": 0.4,
 * "num_requests_waiting": 3}}
 * </pre>
 *
 * <p>Read: {@code num_requests_waiting}, {@code num_requests_running}, {@code
 * kv_cache_usage_perc} (with or without the {@code named_metrics.} prefix); other ORCA fields are
 * ignored. The binary form ({@code BIN}) is not read.
 */
public final class LoadHeaders {
  /** The ORCA response header: {@value}. */
  public static final String ENDPOINT_LOAD_METRICS = "endpoint-load-metrics";
  /** The request header asking for it, and the format the client asks for: {@value}. */
  public static final String ENDPOINT_LOAD_METRICS_FORMAT = "endpoint-load-metrics-format";
  /** Longest header value parsed: {@value} characters. */
  static final int MAX_CHARS = 8192;

  private static final JsonMapper JSON = JsonMapper.builder().build();

  private LoadHeaders() {}

  /**
   * The report in an {@code endpoint-load-metrics} value ({@code TEXT} or {@code JSON} format,
   * ORCA's names); never throws.
   *
   * @param value the header value, or null
   * @param receivedNanos when the value was received, on the client's ticker
   * @return the report, or null if none could be read
   */
  public static @Nullable LoadReport parseEndpointLoadMetrics(@Nullable String value,
      long receivedNanos) {
    if (value == null || value.length() > MAX_CHARS) return null;
    try {
      String v = value.strip();
      int space = v.indexOf(' ');
      String format = (space < 0 ? v : v.substring(0, space)).toUpperCase(Locale.ROOT);
      String body = space < 0 ? "" : v.substring(space + 1).strip();
      Values values = new Values();
      if (format.equals("TEXT")) {
        for (String pair : body.split(",")) {
          int eq = pair.indexOf('=');
          if (eq < 0) continue;
          values.put(pair.substring(0, eq).strip(), PrometheusText.parseValue(pair.substring(eq + 1).strip()));
        }
      } else if (format.equals("JSON")) {
        JsonNode root = JSON.readTree(body);
        if (root == null || !root.isObject()) return null;
        values.putAll(root);
        JsonNode named = root.get("named_metrics");
        if (named != null && named.isObject()) values.putAll(named);
      } else {
        return null;
      }
      LoadReport r = new LoadReport(ReportedValues.count(values.waiting),
          ReportedValues.count(values.running), ReportedValues.fraction(values.kvUsage), receivedNanos,
          LoadReport.Source.HEADER);
      return r.isEmpty() ? null : r;
    } catch (RuntimeException e) {
      return null; // malformed JSON or anything unexpected: no report, never a failed call
    }
  }

  /**
   * The report in a custom header whose value is a queue depth (a non-negative number), or null.
   *
   * @param value the header value, or null
   * @param receivedNanos when the value was received, on the client's ticker
   * @return a report of only the waiting count, or null if the value is not a non-negative number
   */
  public static @Nullable LoadReport parseQueueDepth(@Nullable String value, long receivedNanos) {
    if (value == null || value.length() > 64) return null;
    int waiting = ReportedValues.count(PrometheusText.parseValue(value.strip()));
    return waiting < 0 ? null
        : new LoadReport(waiting, -1, Double.NaN, receivedNanos, LoadReport.Source.HEADER);
  }

  private static final class Values {
    double waiting = Double.NaN;
    double running = Double.NaN;
    double kvUsage = Double.NaN;

    void put(String key, double value) {
      String k = key.startsWith("named_metrics.") ? key.substring("named_metrics.".length()) : key;
      switch (k) {
        case "num_requests_waiting" -> waiting = value;
        case "num_requests_running" -> running = value;
        case "kv_cache_usage_perc" -> kvUsage = value;
        default -> { }
      }
    }

    void putAll(JsonNode object) {
      for (var e : object.properties()) {
        JsonNode v = e.getValue();
        if (v.isNumber()) put(e.getKey(), v.asDouble());
      }
    }
  }
}
