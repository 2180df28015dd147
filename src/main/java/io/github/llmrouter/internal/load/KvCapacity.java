package io.github.llmrouter.internal.load;

import java.util.function.ToLongFunction;
import org.jspecify.annotations.Nullable;

/**
 * How an engine dialect reads a replica's KV-cache capacity in tokens from a scrape: a gauge of
 * tokens (SGLang), or vLLM's configuration info metric, whose labels carry the number of GPU
 * blocks and the tokens per block. A replica running several engines (one series each) holds
 * their sum; a value that is absent, not a number or below one token anywhere makes the whole
 * capacity unknown (-1), never a guess.
 */
@FunctionalInterface
interface KvCapacity {
  /** No capacity metric. */
  KvCapacity NONE = (metrics, label, modelName) -> -1;

  /** vLLM's {@code vllm:cache_config_info}: {@code num_gpu_blocks} × {@code block_size}. */
  KvCapacity VLLM_CACHE_CONFIG = (metrics, label, modelName) ->
      sum(metrics, "vllm:cache_config_info", label, modelName, s -> {
        long blocks = whole(s.label("num_gpu_blocks"));
        long blockSize = whole(s.label("block_size"));
        return blocks < 1 || blockSize < 1 || blocks > Long.MAX_VALUE / blockSize ? -1
            : blocks * blockSize;
      });

  /** A gauge of tokens, summed over its series. */
  static KvCapacity gauge(String name) {
    return (metrics, label, modelName) ->
        sum(metrics, name, label, modelName, s -> ReportedValues.tokens(s.value()));
  }

  /**
   * The capacity in {@code metrics}, counting only series whose {@code label} (if not null, and if
   * the metric carries it) equals {@code modelName}; -1 if unknown.
   */
  long read(ParsedMetrics metrics, @Nullable String label, @Nullable String modelName);

  /**
   * The sum of {@code tokens} over the series of {@code name} (of {@code modelName}, where they
   * carry the model label); -1 if there is none, or any series' tokens are unknown, or the sum
   * overflows.
   */
  private static long sum(ParsedMetrics metrics, String name, @Nullable String label,
      @Nullable String modelName, ToLongFunction<MetricSample> tokens) {
    String filter = DialectReader.modelLabel(metrics, name, label);
    long total = 0;
    boolean any = false;
    for (MetricSample s : metrics.samples(name)) {
      if (!ParsedMetrics.matches(s, filter, modelName)) continue;
      long t = tokens.applyAsLong(s);
      if (t < 1 || total > Long.MAX_VALUE - t) return -1;
      total += t;
      any = true;
    }
    return any ? total : -1;
  }

  /** A label's value as a whole number, or -1 if absent or not one ({@code "None"}, "1.5"). */
  private static long whole(@Nullable String value) {
    if (value == null) return -1;
    try {
      return Long.parseLong(value.trim());
    } catch (NumberFormatException e) {
      return -1;
    }
  }
}
