package io.github.llmrouter.load;

/**
 * When a replica counts as saturated: its effective queue ({@link LoadView#effectiveQueue(int,
 * long)}) is at least {@code queueThreshold}, or its KV-cache usage ({@link LoadView#kvUsage(int,
 * long)}) at least {@code kvUsageThreshold}. A replica whose load is unknown (no fresh report) is
 * never saturated: only what replicas report saturates them. The one definition behind admission
 * control ({@code Admission}), the routing policies' queue pressure ({@code PrefixHash}, {@code
 * CacheAware}) and the fleet snapshot ({@code LlmClient.fleet()}). Immutable.
 *
 * @param queueThreshold the effective queue at which a replica is saturated, at least 1
 * @param kvUsageThreshold the KV-cache usage at which a replica is saturated, above 0 (above 1:
 *     never by its cache)
 *
 * @since 0.2.0
 */
public record Saturation(int queueThreshold, double kvUsageThreshold) {
  /**
   * Default effective queue at which a replica is saturated: {@value} (3 to 5 waiting requests
   * per replica is where routers start to shed load).
   */
  public static final int DEFAULT_QUEUE_THRESHOLD = 4;
  /**
   * Default KV-cache usage at which a replica is saturated: {@value} (a nearly full cache admits
   * no new prompt until memory frees).
   */
  public static final double DEFAULT_KV_USAGE_THRESHOLD = 0.95;

  private static final Saturation DEFAULTS =
      new Saturation(DEFAULT_QUEUE_THRESHOLD, DEFAULT_KV_USAGE_THRESHOLD);

  /**
   * Checks the thresholds.
   *
   * @param queueThreshold the effective queue at which a replica is saturated, at least 1
   * @param kvUsageThreshold the KV-cache usage at which a replica is saturated, above 0
   * @throws IllegalArgumentException if a threshold is out of range
   */
  public Saturation {
    if (queueThreshold < 1) {
      throw new IllegalArgumentException("queueThreshold must be >= 1, got " + queueThreshold);
    }
    if (!(kvUsageThreshold > 0)) {
      throw new IllegalArgumentException("kvUsageThreshold must be > 0, got " + kvUsageThreshold);
    }
  }

  /** {@return the default thresholds: a queue of 4, or 95% of the KV cache} */
  public static Saturation defaults() {
    return DEFAULTS;
  }

  /**
   * Whether a replica with this load is saturated.
   *
   * @param effectiveQueue its effective queue (possibly lengthened by its wait), negative if
   *     unknown
   * @param kvUsage its KV-cache usage, NaN if unknown
   * @return true if the queue or the cache is at its threshold
   */
  public boolean isSaturated(double effectiveQueue, double kvUsage) {
    return effectiveQueue >= queueThreshold || isCacheFull(kvUsage);
  }

  /**
   * Whether the replica at {@code index} of {@code view} is saturated at {@code now}.
   *
   * @param view the fleet's load
   * @param index the replica's position in the view's snapshot
   * @param now the time reports are aged against, from {@link LoadView#now()}
   * @return true if its queue or its cache is at its threshold
   */
  public boolean isSaturated(LoadView view, int index, long now) {
    return isSaturated(view.effectiveQueue(index, now), view.kvUsage(index, now));
  }

  /**
   * Whether a KV-cache usage alone saturates a replica.
   *
   * @param kvUsage the usage, NaN if unknown
   * @return true if it is at least {@code kvUsageThreshold}
   */
  public boolean isCacheFull(double kvUsage) {
    return kvUsage >= kvUsageThreshold;
  }
}
