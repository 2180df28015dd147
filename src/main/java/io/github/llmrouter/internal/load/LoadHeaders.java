package io.github.llmrouter.internal.load;

import io.github.llmrouter.load.LoadReport;
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
      // Read in place: this runs on every answer, so only the values kept become strings.
      int start = skipBlank(value, 0, value.length());
      int end = trimBlank(value, start, value.length());
      int space = value.indexOf(' ', start);
      if (space < 0 || space > end) space = end;
      int body = skipBlank(value, space, end);
      Values values = new Values();
      if (isToken(value, start, space, "TEXT")) {
        readText(value, body, end, values);
      } else if (isToken(value, start, space, "JSON")) {
        JsonNode root = JSON.readTree(value.substring(body, end));
        if (root == null || !root.isObject()) return null;
        values.putAll(root);
        JsonNode named = root.get("named_metrics");
        if (named != null && named.isObject()) values.putAll(named);
      } else {
        return null;
      }
      LoadReport r = new LoadReport(ReportedValues.count(values.waiting),
          ReportedValues.count(values.running), ReportedValues.fraction(values.kvUsage),
          receivedNanos, LoadReport.Source.HEADER);
      return r.isEmpty() ? null : r;
    } catch (RuntimeException e) {
      return null; // malformed JSON or anything unexpected: no report, never a failed call
    }
  }

  /** The TEXT form's {@code name=value} pairs, separated by commas, in {@code v[from, to)}. */
  private static void readText(String v, int from, int to, Values values) {
    int i = from;
    while (i <= to) {
      int comma = v.indexOf(',', i);
      int pairEnd = comma < 0 || comma > to ? to : comma;
      int eq = v.indexOf('=', i);
      if (eq >= 0 && eq < pairEnd) {
        int keyStart = skipBlank(v, i, eq);
        int valueStart = skipBlank(v, eq + 1, pairEnd);
        values.put(v, keyStart, trimBlank(v, keyStart, eq), valueStart,
            trimBlank(v, valueStart, pairEnd));
      }
      i = pairEnd + 1;
    }
  }

  private static boolean isToken(String v, int start, int end, String token) {
    return end - start == token.length() && v.regionMatches(true, start, token, 0, end - start);
  }

  private static int skipBlank(String v, int i, int end) {
    while (i < end && Character.isWhitespace(v.charAt(i))) i++;
    return i;
  }

  private static int trimBlank(String v, int start, int end) {
    while (end > start && Character.isWhitespace(v.charAt(end - 1))) end--;
    return end;
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

  private static final String NAMED = "named_metrics.";
  private static final String WAITING = "num_requests_waiting";
  private static final String RUNNING = "num_requests_running";
  private static final String KV_USAGE = "kv_cache_usage_perc";

  private static final class Values {
    double waiting = Double.NaN;
    double running = Double.NaN;
    double kvUsage = Double.NaN;

    /** The value of the key {@code v[ks, ke)} is the one in {@code v[vs, ve)}. */
    void put(String v, int ks, int ke, int vs, int ve) {
      int field = field(v, ks, ke);
      if (field >= 0) set(field, PrometheusText.parseValue(v.substring(vs, ve)));
    }

    /** The value of {@code key} is {@code value}. */
    void put(String key, double value) {
      set(field(key, 0, key.length()), value);
    }

    /**
     * Which of the names read the key {@code v[start, end)} is, with or without the {@code
     * named_metrics.} prefix: 0 waiting, 1 running, 2 KV usage, -1 none.
     */
    private static int field(String v, int start, int end) {
      if (v.startsWith(NAMED, start) && end - start >= NAMED.length()) start += NAMED.length();
      int length = end - start;
      if (length == WAITING.length() && v.startsWith(WAITING, start)) return 0;
      if (length == RUNNING.length() && v.startsWith(RUNNING, start)) return 1;
      if (length == KV_USAGE.length() && v.startsWith(KV_USAGE, start)) return 2;
      return -1;
    }

    private void set(int field, double value) {
      switch (field) {
        case 0 -> waiting = value;
        case 1 -> running = value;
        case 2 -> kvUsage = value;
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
