package io.github.llmrouter.replica;

import static java.util.Objects.requireNonNull;

import java.time.Duration;

/**
 * Active health checking: every replica's {@code GET /health} (vLLM, SGLang, TGI and llama.cpp
 * server all answer it) is polled on the client's scheduler, off the request path, every {@link
 * Builder#interval interval} with ±{@link Builder#jitter jitter} so that many clients do not poll
 * in step. A replica that fails {@link Builder#unhealthyThreshold unhealthyThreshold} checks in a
 * row (non-2xx, timeout, connection failure) is taken out of routing until it passes {@link
 * Builder#healthyThreshold healthyThreshold} in a row; then it comes back through slow start.
 * Thresholds default to SGLang's router's (3 down, 2 up). Off unless configured:
 *
 * <pre>{@code
 * LlmClient.builder().healthCheck(HealthCheck.defaults());
 * LlmClient.builder().healthCheck(HealthCheck.builder().path("/v1/models").interval(Duration.ofSeconds(2)).build());
 * }</pre>
 *
 * @since 0.2.0
 */
public final class HealthCheck {
  /** Default path: {@value}. */
  public static final String DEFAULT_PATH = "/health";
  /** Default time between checks of one replica: 5 s. */
  public static final Duration DEFAULT_INTERVAL = Duration.ofSeconds(5);
  /** Default timeout of one check: 2 s. */
  public static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(2);
  /** Default failed checks in a row that mark a replica down: {@value}. */
  public static final int DEFAULT_UNHEALTHY_THRESHOLD = 3;
  /** Default passed checks in a row that mark it up again: {@value}. */
  public static final int DEFAULT_HEALTHY_THRESHOLD = 2;
  /** Default random spread of the interval, as a fraction of it: {@value}. */
  public static final double DEFAULT_JITTER = 0.2;

  private static final HealthCheck DEFAULTS = builder().build();

  private final String path;
  private final Duration interval;
  private final Duration timeout;
  private final int unhealthyThreshold;
  private final int healthyThreshold;
  private final double jitter;

  private HealthCheck(Builder b) {
    this.path = b.path;
    this.interval = b.interval;
    this.timeout = b.timeout;
    this.unhealthyThreshold = b.unhealthyThreshold;
    this.healthyThreshold = b.healthyThreshold;
    this.jitter = b.jitter;
  }

  /** {@return health checks with every default} */
  public static HealthCheck defaults() {
    return DEFAULTS;
  }

  /** {@return a new builder holding every default; not thread-safe} */
  public static Builder builder() {
    return new Builder();
  }

  /** {@return the path, as set by {@link Builder#path}} */
  public String path() {
    return path;
  }

  /** {@return the interval, as set by {@link Builder#interval}} */
  public Duration interval() {
    return interval;
  }

  /** {@return the timeout, as set by {@link Builder#timeout}} */
  public Duration timeout() {
    return timeout;
  }

  /** {@return the unhealthy threshold, as set by {@link Builder#unhealthyThreshold}} */
  public int unhealthyThreshold() {
    return unhealthyThreshold;
  }

  /** {@return the healthy threshold, as set by {@link Builder#healthyThreshold}} */
  public int healthyThreshold() {
    return healthyThreshold;
  }

  /** {@return the jitter, as set by {@link Builder#jitter}} */
  public double jitter() {
    return jitter;
  }

  @Override
  public String toString() {
    return "HealthCheck{path=" + path + ", interval=" + interval + ", timeout=" + timeout
        + ", unhealthyThreshold=" + unhealthyThreshold + ", healthyThreshold=" + healthyThreshold
        + ", jitter=" + jitter + '}';
  }

  /** Builds a {@link HealthCheck}; {@link #build()} validates. Not thread-safe. */
  public static final class Builder {
    private String path = DEFAULT_PATH;
    private Duration interval = DEFAULT_INTERVAL;
    private Duration timeout = DEFAULT_TIMEOUT;
    private int unhealthyThreshold = DEFAULT_UNHEALTHY_THRESHOLD;
    private int healthyThreshold = DEFAULT_HEALTHY_THRESHOLD;
    private double jitter = DEFAULT_JITTER;

    private Builder() {}

    /**
     * The path polled with GET, starting with {@code /}; default {@value #DEFAULT_PATH}.
     *
     * @param path the path; not null
     * @return this builder
     */
    public Builder path(String path) {
      this.path = requireNonNull(path, "path");
      return this;
    }

    /**
     * Time between two checks of a replica, in [10 ms, 1 h]; default 5 s.
     *
     * @param interval the interval; not null
     * @return this builder
     */
    public Builder interval(Duration interval) {
      this.interval = requireNonNull(interval, "interval");
      return this;
    }

    /**
     * Timeout of one check, in (0, 1 min]; default 2 s. It may exceed the interval: the next
     * check of a replica is scheduled only when the previous one has ended.
     *
     * @param timeout the timeout; not null
     * @return this builder
     */
    public Builder timeout(Duration timeout) {
      this.timeout = requireNonNull(timeout, "timeout");
      return this;
    }

    /**
     * Failed checks in a row that mark a replica down, in [1, 100]; default {@value
     * #DEFAULT_UNHEALTHY_THRESHOLD}.
     *
     * @param unhealthyThreshold the unhealthy threshold, checked at {@link #build()}
     * @return this builder
     */
    public Builder unhealthyThreshold(int unhealthyThreshold) {
      this.unhealthyThreshold = unhealthyThreshold;
      return this;
    }

    /**
     * Passed checks in a row that mark it up again, in [1, 100]; default {@value
     * #DEFAULT_HEALTHY_THRESHOLD}.
     *
     * @param healthyThreshold the healthy threshold, checked at {@link #build()}
     * @return this builder
     */
    public Builder healthyThreshold(int healthyThreshold) {
      this.healthyThreshold = healthyThreshold;
      return this;
    }

    /**
     * Random spread of each interval, as a fraction of it, in [0, 0.5]; default {@value
     * #DEFAULT_JITTER}.
     *
     * @param jitter the jitter, checked at {@link #build()}
     * @return this builder
     */
    public Builder jitter(double jitter) {
      this.jitter = jitter;
      return this;
    }

    /**
     * Validates every setting and builds the HealthCheck.
     *
     * @return an immutable, thread-safe {@code HealthCheck}
     * @throws IllegalArgumentException naming the first knob out of range
     */
    public HealthCheck build() {
      if (!path.startsWith("/")) {
        throw new IllegalArgumentException("HealthCheck.path must start with /, got '" + path + "'");
      }
      if (interval.compareTo(Duration.ofMillis(10)) < 0 || interval.compareTo(Duration.ofHours(1)) > 0) {
        throw new IllegalArgumentException("HealthCheck.interval must be in [10 ms, 1 h], got "
            + interval);
      }
      if (timeout.isNegative() || timeout.isZero() || timeout.compareTo(Duration.ofMinutes(1)) > 0) {
        throw new IllegalArgumentException("HealthCheck.timeout must be in (0, 1 min], got "
            + timeout);
      }
      if (unhealthyThreshold < 1 || unhealthyThreshold > 100) {
        throw new IllegalArgumentException("HealthCheck.unhealthyThreshold must be in [1, 100], got "
            + unhealthyThreshold);
      }
      if (healthyThreshold < 1 || healthyThreshold > 100) {
        throw new IllegalArgumentException("HealthCheck.healthyThreshold must be in [1, 100], got "
            + healthyThreshold);
      }
      if (!(jitter >= 0 && jitter <= 0.5)) {
        throw new IllegalArgumentException("HealthCheck.jitter must be in [0, 0.5], got " + jitter);
      }
      return new HealthCheck(this);
    }
  }
}
