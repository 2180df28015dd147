package io.github.llmrouter.load;

/**
 * What one replica said about its load at one moment: requests waiting to be scheduled, requests
 * running in the batch, KV-cache usage and capacity, and the running totals of its queue-time
 * histogram. Any of them may be unknown (a source that does not carry it). Immutable.
 *
 * @param waiting requests waiting in the replica's queue, or -1 if unknown
 * @param running requests in the replica's running batch, or -1 if unknown
 * @param awaitingFirstToken requests that have not produced their first token yet (waiting, or
 *     running but still in prefill), or -1 if unknown; the waiting count where the engine exports
 *     nothing better (see {@link EngineDialect})
 * @param kvUsage fraction of KV-cache blocks in use, in [0, 1], or NaN if unknown
 * @param queueTimeSum seconds spent waiting by all requests that have left the queue since the
 *     replica started (a histogram's {@code _sum}, such as {@code
 *     vllm:request_queue_time_seconds_sum}), or NaN if unknown
 * @param queueTimeCount how many requests that is (the histogram's {@code _count}), or NaN if
 *     unknown; successive reports give the mean wait of the requests admitted between them
 * @param receivedNanos when the report was received, on the client's {@code Ticker}
 * @param source where it came from
 * @param kvCapacityTokens tokens the replica's KV cache holds when full (vLLM: {@code
 *     num_gpu_blocks × block_size}; SGLang: {@code max_total_num_tokens}), or -1 if unknown
 *
 * @since 0.2.0
 */
public record LoadReport(int waiting, int running, int awaitingFirstToken, double kvUsage,
    double queueTimeSum, double queueTimeCount, long receivedNanos, Source source,
    long kvCapacityTokens) {
  /** Where a report came from. */
  public enum Source {
    /** The replica's Prometheus {@code /metrics}. */
    SCRAPE,
    /** An {@code endpoint-load-metrics} (ORCA) or custom queue header on a response. */
    HEADER
  }

  /**
   * Validates the report.
   *
   * @param waiting requests waiting, or -1 if unknown
   * @param running requests running, or -1 if unknown
   * @param awaitingFirstToken requests without their first token yet, or -1 if unknown
   * @param kvUsage KV-cache usage in [0, 1], or NaN if unknown
   * @param queueTimeSum the queue-time histogram's sum in seconds, or NaN if unknown
   * @param queueTimeCount the histogram's count, or NaN if unknown
   * @param receivedNanos when the report was received, on the client's ticker
   * @param source where it came from; not null
   * @param kvCapacityTokens the KV cache's capacity in tokens (at least 1), or -1 if unknown
   * @throws IllegalArgumentException if a count is below -1, the capacity is neither -1 nor at
   *     least 1, {@code kvUsage} is outside [0, 1], or the queue-time totals are negative,
   *     infinite or only half known
   */
  public LoadReport {
    if (waiting < -1) throw new IllegalArgumentException("waiting must be >= -1, got " + waiting);
    if (running < -1) throw new IllegalArgumentException("running must be >= -1, got " + running);
    if (awaitingFirstToken < -1) {
      throw new IllegalArgumentException("awaitingFirstToken must be >= -1, got "
          + awaitingFirstToken);
    }
    if (!(Double.isNaN(kvUsage) || (kvUsage >= 0 && kvUsage <= 1))) {
      throw new IllegalArgumentException("kvUsage must be in [0, 1] or NaN, got " + kvUsage);
    }
    if (!(Double.isNaN(queueTimeSum) == Double.isNaN(queueTimeCount))) {
      throw new IllegalArgumentException("queueTimeSum and queueTimeCount must both be known or"
          + " both NaN, got " + queueTimeSum + " and " + queueTimeCount);
    }
    if (!Double.isNaN(queueTimeSum) && !(queueTimeSum >= 0 && queueTimeCount >= 0
        && queueTimeSum < Double.POSITIVE_INFINITY && queueTimeCount < Double.POSITIVE_INFINITY)) {
      throw new IllegalArgumentException("queueTimeSum and queueTimeCount must be finite and >= 0,"
          + " got " + queueTimeSum + " and " + queueTimeCount);
    }
    java.util.Objects.requireNonNull(source, "source");
    if (kvCapacityTokens < 1 && kvCapacityTokens != -1) {
      throw new IllegalArgumentException("kvCapacityTokens must be >= 1, or -1 if unknown, got "
          + kvCapacityTokens);
    }
  }

  /**
   * A report whose KV capacity is unknown.
   *
   * @param waiting requests waiting, or -1 if unknown
   * @param running requests running, or -1 if unknown
   * @param awaitingFirstToken requests without their first token yet, or -1 if unknown
   * @param kvUsage KV-cache usage in [0, 1], or NaN if unknown
   * @param queueTimeSum the queue-time histogram's sum in seconds, or NaN if unknown
   * @param queueTimeCount the histogram's count, or NaN if unknown
   * @param receivedNanos when the report was received, on the client's ticker
   * @param source where it came from; not null
   */
  public LoadReport(int waiting, int running, int awaitingFirstToken, double kvUsage,
      double queueTimeSum, double queueTimeCount, long receivedNanos, Source source) {
    this(waiting, running, awaitingFirstToken, kvUsage, queueTimeSum, queueTimeCount,
        receivedNanos, source, -1);
  }

  /**
   * A report whose requests awaiting their first token are the waiting ones.
   *
   * @param waiting requests waiting, or -1 if unknown
   * @param running requests running, or -1 if unknown
   * @param kvUsage KV-cache usage in [0, 1], or NaN if unknown
   * @param queueTimeSum the queue-time histogram's sum in seconds, or NaN if unknown
   * @param queueTimeCount the histogram's count, or NaN if unknown
   * @param receivedNanos when the report was received, on the client's ticker
   * @param source where it came from; not null
   */
  public LoadReport(int waiting, int running, double kvUsage, double queueTimeSum,
      double queueTimeCount, long receivedNanos, Source source) {
    this(waiting, running, waiting, kvUsage, queueTimeSum, queueTimeCount, receivedNanos, source);
  }

  /**
   * A report without queue-time totals, whose requests awaiting their first token are the
   * waiting ones.
   *
   * @param waiting requests waiting, or -1 if unknown
   * @param running requests running, or -1 if unknown
   * @param kvUsage KV-cache usage in [0, 1], or NaN if unknown
   * @param receivedNanos when the report was received, on the client's ticker
   * @param source where it came from; not null
   */
  public LoadReport(int waiting, int running, double kvUsage, long receivedNanos, Source source) {
    this(waiting, running, kvUsage, Double.NaN, Double.NaN, receivedNanos, source);
  }

  /** {@return true if every field is unknown, so that the report says nothing} */
  public boolean isEmpty() {
    return waiting < 0 && running < 0 && Double.isNaN(kvUsage) && Double.isNaN(queueTimeCount);
  }
}
