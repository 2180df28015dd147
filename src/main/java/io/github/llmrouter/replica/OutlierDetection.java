package io.github.llmrouter.replica;

import java.time.Duration;

/**
 * Passive outlier detection, in the style of Envoy and gRPC: a replica whose calls fail {@link
 * Builder#consecutiveFailures consecutiveFailures} times in a row (5xx answers, connection
 * failures, timeouts) is ejected from routing for {@code baseEjectionTime × ejections}, at most
 * {@link Builder#maxEjectionTime maxEjectionTime}. At most {@link Builder#maxEjectionPercent
 * maxEjectionPercent} of the fleet is ejected at once, rounded as gRPC does (an ejection is allowed
 * while fewer than that share are ejected, so one replica of a small fleet can always be), and
 * never the last replica that is not ejected. The ejection count decays by one for every {@code
 * baseEjectionTime} the replica spends without being ejected. A 429 or another 4xx is the
 * replica's judgement of the request, not a failure of the replica, and resets the count. A 503
 * from a replica that came back less than {@code baseEjectionTime} ago (it refused connections,
 * then was reached again) is it still starting, as inference servers answer while they load their
 * model: it fails over but counts toward neither the ejection nor the circuit breaker.
 *
 * <pre>{@code
 * LlmClient.builder().outlierDetection(OutlierDetection.builder()
 *     .consecutiveFailures(3).baseEjectionTime(Duration.ofSeconds(10)).build());
 * }</pre>
 *
 * @since 0.2.0
 */
public final class OutlierDetection {
  /** Default consecutive failures that eject: {@value}. */
  public static final int DEFAULT_CONSECUTIVE_FAILURES = 5;
  /** Default base ejection time: 30 s. */
  public static final Duration DEFAULT_BASE_EJECTION_TIME = Duration.ofSeconds(30);
  /** Default longest ejection: 300 s. */
  public static final Duration DEFAULT_MAX_EJECTION_TIME = Duration.ofSeconds(300);
  /** Default largest share of the fleet ejected at once, in percent: {@value}. */
  public static final int DEFAULT_MAX_EJECTION_PERCENT = 10;

  private static final OutlierDetection DEFAULTS = builder().build();
  private static final OutlierDetection DISABLED = new OutlierDetection(builder(), false);

  private final boolean enabled;
  private final int consecutiveFailures;
  private final Duration baseEjectionTime;
  private final Duration maxEjectionTime;
  private final int maxEjectionPercent;

  private OutlierDetection(Builder b, boolean enabled) {
    this.enabled = enabled;
    this.consecutiveFailures = b.consecutiveFailures;
    this.baseEjectionTime = b.baseEjectionTime;
    this.maxEjectionTime = b.maxEjectionTime;
    this.maxEjectionPercent = b.maxEjectionPercent;
  }

  /** {@return the defaults: 5 failures, 30 s base, 300 s max, 10%} */
  public static OutlierDetection defaults() {
    return DEFAULTS;
  }

  /**
   * {@return a configuration without passive ejection (failover and circuit breakers still apply)}
   */
  public static OutlierDetection disabled() {
    return DISABLED;
  }

  /** {@return a new builder holding every default; not thread-safe} */
  public static Builder builder() {
    return new Builder();
  }

  /** {@return whether outlier ejection is on} */
  public boolean enabled() {
    return enabled;
  }

  /** {@return the consecutive failures, as set by {@link Builder#consecutiveFailures}} */
  public int consecutiveFailures() {
    return consecutiveFailures;
  }

  /** {@return the base ejection time, as set by {@link Builder#baseEjectionTime}} */
  public Duration baseEjectionTime() {
    return baseEjectionTime;
  }

  /** {@return the max ejection time, as set by {@link Builder#maxEjectionTime}} */
  public Duration maxEjectionTime() {
    return maxEjectionTime;
  }

  /** {@return the max ejection percent, as set by {@link Builder#maxEjectionPercent}} */
  public int maxEjectionPercent() {
    return maxEjectionPercent;
  }

  @Override
  public String toString() {
    return !enabled ? "OutlierDetection{disabled}" : "OutlierDetection{consecutiveFailures="
        + consecutiveFailures + ", baseEjectionTime=" + baseEjectionTime + ", maxEjectionTime="
        + maxEjectionTime + ", maxEjectionPercent=" + maxEjectionPercent + '}';
  }

  /** Builds an {@link OutlierDetection}; {@link #build()} validates. Not thread-safe. */
  public static final class Builder {
    private int consecutiveFailures = DEFAULT_CONSECUTIVE_FAILURES;
    private Duration baseEjectionTime = DEFAULT_BASE_EJECTION_TIME;
    private Duration maxEjectionTime = DEFAULT_MAX_EJECTION_TIME;
    private int maxEjectionPercent = DEFAULT_MAX_EJECTION_PERCENT;

    private Builder() {}

    /**
     * Failures in a row that eject, in [1, 1000]; default {@value #DEFAULT_CONSECUTIVE_FAILURES}.
     *
     * @param consecutiveFailures the consecutive failures, checked at {@link #build()}
     * @return this builder
     */
    public Builder consecutiveFailures(int consecutiveFailures) {
      this.consecutiveFailures = consecutiveFailures;
      return this;
    }

    /**
     * The first ejection's length, multiplied by the ejection count, in (0, 1 h]; default 30 s.
     *
     * @param baseEjectionTime the base ejection time; not null
     * @return this builder
     */
    public Builder baseEjectionTime(Duration baseEjectionTime) {
      this.baseEjectionTime = java.util.Objects.requireNonNull(baseEjectionTime, "baseEjectionTime");
      return this;
    }

    /**
     * The longest ejection, in [baseEjectionTime, 24 h]; default 300 s.
     *
     * @param maxEjectionTime the max ejection time; not null
     * @return this builder
     */
    public Builder maxEjectionTime(Duration maxEjectionTime) {
      this.maxEjectionTime = java.util.Objects.requireNonNull(maxEjectionTime, "maxEjectionTime");
      return this;
    }

    /**
     * The largest share of the fleet ejected at once, in percent, in [0, 100]; default {@value
     * #DEFAULT_MAX_EJECTION_PERCENT}. 0 never ejects.
     *
     * @param maxEjectionPercent the max ejection percent, checked at {@link #build()}
     * @return this builder
     */
    public Builder maxEjectionPercent(int maxEjectionPercent) {
      this.maxEjectionPercent = maxEjectionPercent;
      return this;
    }

    /**
     * Validates every setting and builds the OutlierDetection.
     *
     * @return an immutable, thread-safe {@code OutlierDetection}
     * @throws IllegalArgumentException naming the first knob out of range
     */
    public OutlierDetection build() {
      if (consecutiveFailures < 1 || consecutiveFailures > 1000) {
        throw new IllegalArgumentException(
            "OutlierDetection.consecutiveFailures must be in [1, 1000], got " + consecutiveFailures);
      }
      if (baseEjectionTime.isNegative() || baseEjectionTime.isZero()
          || baseEjectionTime.compareTo(Duration.ofHours(1)) > 0) {
        throw new IllegalArgumentException(
            "OutlierDetection.baseEjectionTime must be in (0, 1 h], got " + baseEjectionTime);
      }
      if (maxEjectionTime.compareTo(baseEjectionTime) < 0
          || maxEjectionTime.compareTo(Duration.ofHours(24)) > 0) {
        throw new IllegalArgumentException(
            "OutlierDetection.maxEjectionTime must be in [baseEjectionTime, 24 h], got "
                + maxEjectionTime);
      }
      if (maxEjectionPercent < 0 || maxEjectionPercent > 100) {
        throw new IllegalArgumentException(
            "OutlierDetection.maxEjectionPercent must be in [0, 100], got " + maxEjectionPercent);
      }
      return new OutlierDetection(this, true);
    }
  }
}
