package io.github.llmrouter.internal.load;

import static java.util.Objects.requireNonNull;

import io.github.llmrouter.load.EngineDialect;
import io.github.llmrouter.load.LoadReport;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * Reads a {@link LoadReport} from a parsed {@code /metrics} exposition in an {@link
 * EngineDialect}'s metric names, and knows what the built-in engines export beyond those names:
 * vLLM's counters of first tokens and finished requests (which give the requests awaiting a first
 * token) and its cache configuration, SGLang's token capacity. Stateless.
 */
public final class DialectReader {
  private static final List<EngineDialect> BUILT_IN = List.of(EngineDialect.VLLM,
      EngineDialect.SGLANG, EngineDialect.TGI, EngineDialect.LLAMA_CPP);
  private static final String MODEL_LABEL = "model_name";
  private static final String VLLM_FIRST_TOKENS = "vllm:time_to_first_token_seconds_count";
  private static final String VLLM_FINISHED = "vllm:request_success_total";
  private static final KvCapacity SGLANG_CAPACITY = KvCapacity.gauge("sglang:max_total_num_tokens");

  private DialectReader() {}

  /**
   * The built-in dialect whose waiting metric {@code metrics} contains, or null, for {@link
   * EngineDialect#AUTO}; for a concrete dialect, itself if its waiting metric is present.
   *
   * @param dialect the configured dialect; not null
   * @param metrics a parsed scrape; not null
   * @return the matching dialect, or null
   */
  public static @Nullable EngineDialect detect(EngineDialect dialect, ParsedMetrics metrics) {
    requireNonNull(metrics, "metrics");
    if (dialect != EngineDialect.AUTO) {
      return first(metrics, dialect.waitingMetrics()) != null ? dialect : null;
    }
    for (EngineDialect d : BUILT_IN) {
      if (first(metrics, d.waitingMetrics()) != null) return d;
    }
    return null;
  }

  /**
   * The load report in {@code metrics}, or null if the engine's waiting metric is absent.
   *
   * @param dialect the configured dialect; not null
   * @param metrics a parsed scrape; not null
   * @param modelName only series with this {@code model_name} label count; null for all
   * @param receivedNanos the report's time on the client's ticker
   * @return the report, or null
   */
  public static @Nullable LoadReport read(EngineDialect dialect, ParsedMetrics metrics,
      @Nullable String modelName, long receivedNanos) {
    EngineDialect d = detect(dialect, metrics);
    if (d == null) return null;
    String label = modelName == null ? null : MODEL_LABEL;
    String w = first(metrics, d.waitingMetrics());
    if (w == null) return null; // not reached: detect() found it
    String r = first(metrics, d.runningMetrics());
    String kv = first(metrics, d.kvUsageMetrics());
    double queueTimeSum = Double.NaN;
    double queueTimeCount = Double.NaN;
    for (String h : d.queueTimeHistograms()) {
      String sum = h + "_sum";
      String count = h + "_count";
      if (!metrics.has(sum) || !metrics.has(count)) continue;
      double s = metrics.sum(sum, modelLabel(metrics, sum, label), modelName);
      double c = metrics.sum(count, modelLabel(metrics, count, label), modelName);
      // A broken exporter's negative or non-finite totals are simply unknown.
      if (s >= 0 && c >= 0 && s < Double.POSITIVE_INFINITY && c < Double.POSITIVE_INFINITY) {
        queueTimeSum = s;
        queueTimeCount = c;
      }
      break;
    }
    int waitingCount =
        ReportedValues.count(metrics.sum(w, modelLabel(metrics, w, label), modelName));
    int runningCount = r == null ? -1
        : ReportedValues.count(metrics.sum(r, modelLabel(metrics, r, label), modelName));
    int awaiting = waitingCount;
    if (d == EngineDialect.VLLM && waitingCount >= 0 && runningCount >= 0
        && metrics.has(VLLM_FIRST_TOKENS) && metrics.has(VLLM_FINISHED)) {
      double decoding =
          metrics.sum(VLLM_FIRST_TOKENS, modelLabel(metrics, VLLM_FIRST_TOKENS, label), modelName)
              - metrics.sum(VLLM_FINISHED, modelLabel(metrics, VLLM_FINISHED, label), modelName);
      if (Double.isFinite(decoding)) {
        awaiting = (int) Math.max(waitingCount, Math.min((long) waitingCount + runningCount,
            Math.round((double) waitingCount + runningCount - Math.max(0, decoding))));
      }
    }
    return new LoadReport(waitingCount, runningCount, awaiting,
        kv == null ? Double.NaN
            : ReportedValues.fraction(metrics.mean(kv, modelLabel(metrics, kv, label), modelName)),
        queueTimeSum, queueTimeCount, receivedNanos, LoadReport.Source.SCRAPE,
        capacity(d).read(metrics, label, modelName));
  }

  private static KvCapacity capacity(EngineDialect d) {
    if (d == EngineDialect.VLLM) return KvCapacity.VLLM_CACHE_CONFIG;
    if (d == EngineDialect.SGLANG) return SGLANG_CAPACITY;
    return KvCapacity.NONE;
  }

  /** Filter on the model label only if the metric carries it (TGI and llama.cpp do not). */
  static @Nullable String modelLabel(ParsedMetrics m, String metric, @Nullable String label) {
    if (label == null) return null;
    for (MetricSample s : m.samples(metric)) if (s.label(label) != null) return label;
    return null;
  }

  private static @Nullable String first(ParsedMetrics m, List<String> names) {
    for (String n : names) if (m.has(n)) return n;
    return null;
  }
}
