package io.github.llmrouter.internal.load;

/**
 * What a replica's numbers mean when a broken exporter sends nonsense: every reader of load
 * reports (metrics, headers) turns a raw value into a count, a capacity or a fraction here, so
 * that NaN, infinities and negatives become "unknown" the same way everywhere. Stateless.
 */
public final class ReportedValues {
  private ReportedValues() {}

  /**
   * A reported count as an int: -1 (unknown) for NaN, ±Inf or a negative value, which a broken
   * exporter may send; rounded to the nearest integer and capped at {@link Integer#MAX_VALUE}.
   */
  public static int count(double v) {
    if (!(v >= 0) || v == Double.POSITIVE_INFINITY) return -1;
    return v >= Integer.MAX_VALUE ? Integer.MAX_VALUE : (int) Math.round(v);
  }

  /**
   * A reported capacity in tokens: -1 (unknown) unless finite and at least 1 (an engine with no
   * KV cache at all does not serve); capped at {@link Long#MAX_VALUE}.
   */
  public static long tokens(double v) {
    if (!(v >= 1) || v == Double.POSITIVE_INFINITY) return -1;
    return v >= Long.MAX_VALUE ? Long.MAX_VALUE : Math.round(v);
  }

  /**
   * A reported usage fraction: NaN (unknown) unless finite and non-negative; capped at 1, since a
   * cache cannot be more than full.
   */
  public static double fraction(double v) {
    if (!(v >= 0) || v == Double.POSITIVE_INFINITY) return Double.NaN;
    return Math.min(1.0, v);
  }
}
