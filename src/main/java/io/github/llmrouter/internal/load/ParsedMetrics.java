package io.github.llmrouter.internal.load;

import static java.util.Objects.requireNonNull;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * The samples of one Prometheus text exposition, grouped by metric name, and the number of lines
 * that could not be parsed and were skipped. Immutable.
 */
public final class ParsedMetrics {
  private final List<MetricSample> samples;
  private final Map<String, List<MetricSample>> byName;
  private final int malformedLines;

  ParsedMetrics(List<MetricSample> samples, int malformedLines) {
    this.samples = List.copyOf(samples);
    Map<String, List<MetricSample>> m = new HashMap<>();
    for (MetricSample s : this.samples) {
      m.computeIfAbsent(s.name(), k -> new java.util.ArrayList<>()).add(s);
    }
    m.replaceAll((k, v) -> List.copyOf(v));
    this.byName = Map.copyOf(m);
    this.malformedLines = malformedLines;
  }

  /** {@return every sample, in exposition order} */
  public List<MetricSample> samples() {
    return samples;
  }

  /**
   * {@return the samples of metric {@code name} in exposition order; empty if absent}
   *
   * @param name the metric name; not null
   */
  public List<MetricSample> samples(String name) {
    return byName.getOrDefault(requireNonNull(name, "name"), List.of());
  }

  /**
   * {@return whether at least one sample of metric {@code name} is present}
   *
   * @param name the metric name; not null
   */
  public boolean has(String name) {
    return byName.containsKey(requireNonNull(name, "name"));
  }

  /** {@return the number of lines skipped because they did not parse} */
  public int malformedLines() {
    return malformedLines;
  }

  /**
   * The sum of the finite values of metric {@code name} over the samples whose label {@code
   * labelName} equals {@code labelValue} (all samples if {@code labelName} is null); NaN if no
   * sample matches or none is finite.
   *
   * @param name the metric name; not null
   * @param labelName a label to filter on, or null for every sample
   * @param labelValue the value {@code labelName} must have
   * @return the sum, or NaN
   */
  public double sum(String name, @Nullable String labelName, @Nullable String labelValue) {
    double sum = 0;
    boolean any = false;
    for (MetricSample s : samples(name)) {
      if (!matches(s, labelName, labelValue) || !Double.isFinite(s.value())) continue;
      sum += s.value();
      any = true;
    }
    return any ? sum : Double.NaN;
  }

  /**
   * Like {@link #sum} but the mean of the matching finite values.
   *
   * @param name the metric name; not null
   * @param labelName a label to filter on, or null for every sample
   * @param labelValue the value {@code labelName} must have
   * @return the mean, or NaN if no sample matches or none is finite
   */
  public double mean(String name, @Nullable String labelName, @Nullable String labelValue) {
    double sum = 0;
    int n = 0;
    for (MetricSample s : samples(name)) {
      if (!matches(s, labelName, labelValue) || !Double.isFinite(s.value())) continue;
      sum += s.value();
      n++;
    }
    return n == 0 ? Double.NaN : sum / n;
  }

  /** Whether {@code s} has label {@code labelName} equal to {@code labelValue} (or no filter). */
  static boolean matches(MetricSample s, @Nullable String labelName,
      @Nullable String labelValue) {
    return labelName == null || java.util.Objects.equals(s.label(labelName), labelValue);
  }

  @Override
  public String toString() {
    return "ParsedMetrics{samples=" + samples.size() + ", malformedLines=" + malformedLines + '}';
  }
}
