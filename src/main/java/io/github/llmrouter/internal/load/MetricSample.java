package io.github.llmrouter.internal.load;

import static java.util.Objects.requireNonNull;

import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * One sample of a Prometheus text exposition: a metric name, its labels and a value (which may be
 * NaN or ±Inf, as the format allows). The optional timestamp is not kept: reports are aged by the
 * time they were received.
 *
 * @param name the metric name, for example {@code vllm:num_requests_waiting}
 * @param labels label names to unescaped values, in exposition order
 * @param value the sample value
 */
public record MetricSample(String name, Map<String, String> labels, double value) {
  /**
   * Validates the sample and copies its labels.
   *
   * @param name the metric name; not null
   * @param labels the labels; copied into an unmodifiable map that keeps their order
   * @param value the sample value, any double
   */
  public MetricSample {
    requireNonNull(name, "name");
    labels = java.util.Collections.unmodifiableMap(
        new java.util.LinkedHashMap<>(requireNonNull(labels, "labels")));
  }

  /**
   * {@return the value of label {@code name}, or null if the sample has no such label}
   *
   * @param name the label name
   */
  public @Nullable String label(String name) {
    return labels.get(name);
  }
}
