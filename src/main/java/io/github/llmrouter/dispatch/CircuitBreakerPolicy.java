package io.github.llmrouter.dispatch;

import static java.util.Objects.requireNonNull;

import java.time.Duration;

/**
 * The per-replica circuit breaker (Resilience4j's {@code CircuitBreaker}, failure-rate based over
 * a count-based, lock-free sliding window). When the share of replica failures (5xx, connection
 * failures, timeouts, malformed answers) among a replica's last {@link Builder#slidingWindowSize
 * slidingWindowSize} calls reaches {@link Builder#failureRateThreshold failureRateThreshold}
 * (once at least {@link Builder#minimumCalls minimumCalls} were recorded), the breaker opens and
 * the dispatcher skips the replica at once instead of paying a timeout first. After {@link
 * Builder#openDuration openDuration} it lets {@link Builder#halfOpenCalls halfOpenCalls} probe
 * calls through (half-open): if their failure rate is below the threshold it closes, otherwise it
 * opens again. A 4xx answer (429 included) judges the request, not the replica, and counts as a
 * success of the replica; the caller's own deadline and a cancelled call say nothing about it and
 * count as neither.
 *
 * <pre>{@code
 * LlmClient.builder().circuitBreaker(CircuitBreakerPolicy.builder()
 *     .failureRateThreshold(25).openDuration(Duration.ofSeconds(5)).build());
 * }</pre>
 *
 * @since 0.2.0
 */
public final class CircuitBreakerPolicy {
  /** Default failure rate that opens the breaker, in percent: {@value}. */
  public static final float DEFAULT_FAILURE_RATE_THRESHOLD = 50;
  /** Default calls in the sliding window: {@value}. */
  public static final int DEFAULT_SLIDING_WINDOW_SIZE = 20;
  /** Default calls recorded before the failure rate counts: {@value}. */
  public static final int DEFAULT_MINIMUM_CALLS = 10;
  /** Default time open before probing: 10 s. */
  public static final Duration DEFAULT_OPEN_DURATION = Duration.ofSeconds(10);
  /** Default probe calls let through when half-open: {@value}. */
  public static final int DEFAULT_HALF_OPEN_CALLS = 3;

  private static final CircuitBreakerPolicy DEFAULTS = builder().build();
  private static final CircuitBreakerPolicy DISABLED = new CircuitBreakerPolicy(builder(), false);

  private final boolean enabled;
  private final float failureRateThreshold;
  private final int slidingWindowSize;
  private final int minimumCalls;
  private final Duration openDuration;
  private final int halfOpenCalls;

  private CircuitBreakerPolicy(Builder b, boolean enabled) {
    this.enabled = enabled;
    this.failureRateThreshold = b.failureRateThreshold;
    this.slidingWindowSize = b.slidingWindowSize;
    this.minimumCalls = b.minimumCalls;
    this.openDuration = b.openDuration;
    this.halfOpenCalls = b.halfOpenCalls;
  }

  /** {@return the defaults: 50% of the last 20 calls (at least 10), open 10 s, 3 probes} */
  public static CircuitBreakerPolicy defaults() {
    return DEFAULTS;
  }

  /** {@return a policy without circuit breakers (outlier detection and failover still apply)} */
  public static CircuitBreakerPolicy disabled() {
    return DISABLED;
  }

  /** {@return a new builder holding every default; not thread-safe} */
  public static Builder builder() {
    return new Builder();
  }

  /** {@return whether circuit breakers is on} */
  public boolean enabled() {
    return enabled;
  }

  /** {@return the failure rate threshold, as set by {@link Builder#failureRateThreshold}} */
  public float failureRateThreshold() {
    return failureRateThreshold;
  }

  /** {@return the sliding window size, as set by {@link Builder#slidingWindowSize}} */
  public int slidingWindowSize() {
    return slidingWindowSize;
  }

  /** {@return the minimum calls, as set by {@link Builder#minimumCalls}} */
  public int minimumCalls() {
    return minimumCalls;
  }

  /** {@return the open duration, as set by {@link Builder#openDuration}} */
  public Duration openDuration() {
    return openDuration;
  }

  /** {@return the half open calls, as set by {@link Builder#halfOpenCalls}} */
  public int halfOpenCalls() {
    return halfOpenCalls;
  }

  @Override
  public String toString() {
    return !enabled ? "CircuitBreakerPolicy{disabled}" : "CircuitBreakerPolicy{failureRateThreshold="
        + failureRateThreshold + "%, slidingWindowSize=" + slidingWindowSize + ", minimumCalls="
        + minimumCalls + ", openDuration=" + openDuration + ", halfOpenCalls=" + halfOpenCalls + '}';
  }

  /** Builds a {@link CircuitBreakerPolicy}; {@link #build()} validates. Not thread-safe. */
  public static final class Builder {
    private float failureRateThreshold = DEFAULT_FAILURE_RATE_THRESHOLD;
    private int slidingWindowSize = DEFAULT_SLIDING_WINDOW_SIZE;
    private int minimumCalls = DEFAULT_MINIMUM_CALLS;
    private Duration openDuration = DEFAULT_OPEN_DURATION;
    private int halfOpenCalls = DEFAULT_HALF_OPEN_CALLS;

    private Builder() {}

    /**
     * Failure rate that opens the breaker, in percent, in (0, 100]; default 50.
     *
     * @param failureRateThreshold the failure rate threshold, checked at {@link #build()}
     * @return this builder
     */
    public Builder failureRateThreshold(float failureRateThreshold) {
      this.failureRateThreshold = failureRateThreshold;
      return this;
    }

    /**
     * Calls in the sliding window, in [1, 10000]; default {@value #DEFAULT_SLIDING_WINDOW_SIZE}.
     *
     * @param slidingWindowSize the sliding window size, checked at {@link #build()}
     * @return this builder
     */
    public Builder slidingWindowSize(int slidingWindowSize) {
      this.slidingWindowSize = slidingWindowSize;
      return this;
    }

    /**
     * Calls recorded before the rate counts, in [1, slidingWindowSize]; default {@value
     * #DEFAULT_MINIMUM_CALLS}.
     *
     * @param minimumCalls the minimum calls, checked at {@link #build()}
     * @return this builder
     */
    public Builder minimumCalls(int minimumCalls) {
      this.minimumCalls = minimumCalls;
      return this;
    }

    /**
     * Time open before probing, in (0, 1 h]; default 10 s.
     *
     * @param openDuration the open duration; not null
     * @return this builder
     */
    public Builder openDuration(Duration openDuration) {
      this.openDuration = requireNonNull(openDuration, "openDuration");
      return this;
    }

    /**
     * Probe calls when half-open, in [1, 100]; default {@value #DEFAULT_HALF_OPEN_CALLS}.
     *
     * @param halfOpenCalls the half open calls, checked at {@link #build()}
     * @return this builder
     */
    public Builder halfOpenCalls(int halfOpenCalls) {
      this.halfOpenCalls = halfOpenCalls;
      return this;
    }

    /**
     * Validates every setting and builds the CircuitBreakerPolicy.
     *
     * @return an immutable, thread-safe {@code CircuitBreakerPolicy}
     * @throws IllegalArgumentException naming the first knob out of range
     */
    public CircuitBreakerPolicy build() {
      if (!(failureRateThreshold > 0 && failureRateThreshold <= 100)) {
        throw new IllegalArgumentException(
            "CircuitBreakerPolicy.failureRateThreshold must be in (0, 100], got " + failureRateThreshold);
      }
      if (slidingWindowSize < 1 || slidingWindowSize > 10_000) {
        throw new IllegalArgumentException(
            "CircuitBreakerPolicy.slidingWindowSize must be in [1, 10000], got " + slidingWindowSize);
      }
      if (minimumCalls < 1 || minimumCalls > slidingWindowSize) {
        throw new IllegalArgumentException(
            "CircuitBreakerPolicy.minimumCalls must be in [1, slidingWindowSize], got " + minimumCalls);
      }
      if (openDuration.isNegative() || openDuration.isZero()
          || openDuration.compareTo(Duration.ofHours(1)) > 0) {
        throw new IllegalArgumentException(
            "CircuitBreakerPolicy.openDuration must be in (0, 1 h], got " + openDuration);
      }
      if (halfOpenCalls < 1 || halfOpenCalls > 100) {
        throw new IllegalArgumentException(
            "CircuitBreakerPolicy.halfOpenCalls must be in [1, 100], got " + halfOpenCalls);
      }
      return new CircuitBreakerPolicy(this, true);
    }
  }
}
