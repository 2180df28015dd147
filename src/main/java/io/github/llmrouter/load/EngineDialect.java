package io.github.llmrouter.load;

import static java.util.Objects.requireNonNull;

import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * Which metric names an inference engine uses for its waiting queue, running batch, KV-cache
 * usage and capacity and queue-time histogram, and how to read them from a {@code /metrics}
 * exposition. Immutable.
 *
 * <table>
 *   <caption>Built-in dialects</caption>
 *   <tr><th>dialect</th><th>waiting</th><th>running</th><th>KV usage</th><th>KV capacity</th>
 *       <th>queue time</th></tr>
 *   <tr><td>{@link #VLLM}</td><td>{@code vllm:num_requests_waiting}</td>
 *       <td>{@code vllm:num_requests_running}</td>
 *       <td>{@code vllm:kv_cache_usage_perc}, older {@code vllm:gpu_cache_usage_perc}</td>
 *       <td>{@code vllm:cache_config_info}'s {@code num_gpu_blocks} × {@code block_size}</td>
 *       <td>{@code vllm:request_queue_time_seconds}</td></tr>
 *   <tr><td>{@link #SGLANG}</td><td>{@code sglang:num_queue_reqs}</td>
 *       <td>{@code sglang:num_running_reqs}</td><td>{@code sglang:token_usage}</td>
 *       <td>{@code sglang:max_total_num_tokens}</td>
 *       <td>{@code sglang:queue_time_seconds}</td></tr>
 *   <tr><td>{@link #TGI}</td><td>{@code tgi_queue_size}</td><td>{@code tgi_batch_current_size}</td>
 *       <td>—</td><td>—</td><td>{@code tgi_request_queue_duration}</td></tr>
 *   <tr><td>{@link #LLAMA_CPP}</td><td>{@code llamacpp:requests_deferred}</td>
 *       <td>{@code llamacpp:requests_processing}</td>
 *       <td>{@code llamacpp:kv_cache_usage_ratio} (when the server exports it)</td>
 *       <td>— (only in {@code /props} and {@code /slots})</td><td>—</td></tr>
 * </table>
 *
 * <p>Requests awaiting their first token: vLLM exports no gauge of them, but its counters give
 * them, approximately (aborted and preempted requests blur it): {@code running + waiting −
 * (vllm:time_to_first_token_seconds_count − vllm:request_success_total)}, kept between {@code
 * waiting} and {@code waiting + running}. For the other engines, and a vLLM without those
 * counters, they are the waiting requests.
 *
 * <p>Counts are summed over all series of a metric (a vLLM replica running several engines
 * exports one series per {@code engine} label); KV usage is the mean over series, KV capacity the
 * sum (each engine has its own cache), unknown if any series lacks it. Of a queue-time
 * histogram only the {@code _sum} and {@code _count} series are read, summed the same way. With a
 * model name set (see {@code LoadMonitoring.Builder#modelName}), only series whose {@code
 * model_name} label equals it count. {@link #AUTO} picks the first built-in dialect whose waiting
 * metric is
 * present. {@link #custom} maps any other engine.
 *
 * <pre>{@code
 * EngineDialect mine = EngineDialect.custom("my-engine", "queue_depth", "active_requests", null);
 * }</pre>
 *
 * @since 0.2.0
 */
public final class EngineDialect {
  /** vLLM (v0 and v1 metric names). */
  public static final EngineDialect VLLM = new EngineDialect("vLLM",
      List.of("vllm:num_requests_waiting"), List.of("vllm:num_requests_running"),
      List.of("vllm:kv_cache_usage_perc", "vllm:gpu_cache_usage_perc"),
      List.of("vllm:request_queue_time_seconds"));
  /** SGLang. */
  public static final EngineDialect SGLANG = new EngineDialect("SGLang",
      List.of("sglang:num_queue_reqs"), List.of("sglang:num_running_reqs"),
      List.of("sglang:token_usage"), List.of("sglang:queue_time_seconds"));
  /** Hugging Face Text Generation Inference. */
  public static final EngineDialect TGI = new EngineDialect("TGI", List.of("tgi_queue_size"),
      List.of("tgi_batch_current_size"), List.of(), List.of("tgi_request_queue_duration"));
  /** llama.cpp server ({@code --metrics}). */
  public static final EngineDialect LLAMA_CPP = new EngineDialect("llama.cpp",
      List.of("llamacpp:requests_deferred"), List.of("llamacpp:requests_processing"),
      List.of("llamacpp:kv_cache_usage_ratio"), List.of());
  /** Detects the engine from the metric names present, trying vLLM, SGLang, TGI, llama.cpp. */
  public static final EngineDialect AUTO = new EngineDialect("auto", List.of(), List.of(),
      List.of(), List.of());

  private final String name;
  private final List<String> waiting;
  private final List<String> running;
  private final List<String> kvUsage;
  /** Histogram names without the {@code _sum} / {@code _count} suffix. */
  private final List<String> queueTime;

  private EngineDialect(String name, List<String> waiting, List<String> running,
      List<String> kvUsage, List<String> queueTime) {
    this.name = name;
    this.waiting = waiting;
    this.running = running;
    this.kvUsage = kvUsage;
    this.queueTime = queueTime;
  }

  /**
   * A user-supplied mapping.
   *
   * @param name a label for logs
   * @param waitingMetric the gauge of requests waiting
   * @param runningMetric the gauge of requests running, or null
   * @param kvUsageMetric the gauge of KV-cache usage as a fraction in [0, 1], or null
   * @return an immutable dialect
   */
  public static EngineDialect custom(String name, String waitingMetric,
      @Nullable String runningMetric, @Nullable String kvUsageMetric) {
    return custom(name, waitingMetric, runningMetric, kvUsageMetric, null);
  }

  /**
   * A user-supplied mapping with a queue-time histogram.
   *
   * @param name a label for logs
   * @param waitingMetric the gauge of requests waiting
   * @param runningMetric the gauge of requests running, or null
   * @param kvUsageMetric the gauge of KV-cache usage as a fraction in [0, 1], or null
   * @param queueTimeHistogram the histogram of seconds requests spent waiting, without the {@code
   *     _sum} / {@code _count} suffix, or null
   * @return an immutable dialect
   */
  public static EngineDialect custom(String name, String waitingMetric,
      @Nullable String runningMetric, @Nullable String kvUsageMetric,
      @Nullable String queueTimeHistogram) {
    requireNonNull(name, "name");
    requireNonNull(waitingMetric, "waitingMetric");
    return new EngineDialect(name, List.of(waitingMetric), optional(runningMetric),
        optional(kvUsageMetric), optional(queueTimeHistogram));
  }

  private static List<String> optional(@Nullable String metric) {
    return metric == null ? List.of() : List.of(metric);
  }

  /** {@return the dialect's name ({@code "vLLM"}, {@code "auto"}, ...), for logs} */
  public String name() {
    return name;
  }

  /**
   * {@return the gauges of requests waiting, tried in order (the first present is read); empty
   * for {@link #AUTO}}
   */
  public List<String> waitingMetrics() {
    return waiting;
  }

  /** {@return the gauges of requests running, tried in order; may be empty} */
  public List<String> runningMetrics() {
    return running;
  }

  /** {@return the gauges of KV-cache usage as a fraction, tried in order; may be empty} */
  public List<String> kvUsageMetrics() {
    return kvUsage;
  }

  /**
   * {@return the queue-time histograms, without the {@code _sum} / {@code _count} suffix, tried in
   * order; may be empty}
   */
  public List<String> queueTimeHistograms() {
    return queueTime;
  }

  @Override
  public String toString() {
    return "EngineDialect{" + name + '}';
  }
}
