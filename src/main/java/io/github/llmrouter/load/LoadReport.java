package io.github.llmrouter.load;

/**
 * What one replica said about its load at one moment: requests waiting to be scheduled, requests
 * running in the batch, and KV-cache usage. Any of them may be unknown (a source that does not
 * carry it). Immutable.
 *
 * @param waiting requests waiting in the replica's queue, or -1 if unknown
 * @param running requests in the replica's running batch, or -1 if unknown
 * @param kvUsage fraction of KV-cache blocks in use, in [0, 1], or NaN if unknown
 * @param receivedNanos when the report was received, on the client's {@code Ticker}
 * @param source where it came from
 */
public record LoadReport(int waiting, int running, double kvUsage, long receivedNanos,
    Source source) {
  /** Where a report came from. */
  public enum Source {
    /** The replica's Prometheus {@code /metrics}. */
    SCRAPE,
    /** An {@code endpoint-load-metrics} (ORCA) or custom queue header on a response. */
    HEADER
  }

  public LoadReport {
    if (waiting < -1) throw new IllegalArgumentException("waiting must be >= -1, got " + waiting);
    if (running < -1) throw new IllegalArgumentException("running must be >= -1, got " + running);
    if (!(Double.isNaN(kvUsage) || (kvUsage >= 0 && kvUsage <= 1))) {
      throw new IllegalArgumentException("kvUsage must be in [0, 1] or NaN, got " + kvUsage);
    }
    java.util.Objects.requireNonNull(source, "source");
  }

  /** Whether the report says anything at all. */
  public boolean isEmpty() {
    return waiting < 0 && running < 0 && Double.isNaN(kvUsage);
  }

  /**
   * A reported count as an int: -1 (unknown) for NaN, ±Inf or a negative value, which a broken
   * exporter may send; rounded to the nearest integer and capped at {@link Integer#MAX_VALUE}.
   */
  static int count(double v) {
    if (!(v >= 0) || v == Double.POSITIVE_INFINITY) return -1;
    return v >= Integer.MAX_VALUE ? Integer.MAX_VALUE : (int) Math.round(v);
  }

  /**
   * A reported usage fraction: NaN (unknown) unless finite and non-negative; capped at 1, since a
   * cache cannot be more than full.
   */
  static double fraction(double v) {
    if (!(v >= 0) || v == Double.POSITIVE_INFINITY) return Double.NaN;
    return Math.min(1.0, v);
  }
}
