package io.github.llmrouter.dispatch;

import static java.util.Objects.requireNonNull;

import io.github.llmrouter.load.Saturation;
import java.time.Duration;

/**
 * Client-side admission control, off by default: when every replica reports itself saturated, a
 * new request waits in a bounded FIFO queue in the client instead of piling onto an overloaded
 * replica, and gives up with {@link io.github.llmrouter.api.FleetSaturatedException} when the
 * queue is full or its wait is over. Immutable.
 *
 * <p>A replica is <em>saturated</em> as {@link Saturation} defines it, with {@link
 * Builder#queueThreshold(int) queueThreshold} and {@link Builder#kvUsageThreshold(double)
 * kvUsageThreshold}: a replica without a fresh report is never saturated, so admission acts only
 * on what replicas say. Waiting requests are admitted in arrival order, as many at a time as the
 * fleet has room for (the sum over unsaturated replicas of {@code queueThreshold − effective
 * queue}), whenever a report arrives or a request completes.
 *
 * <pre>{@code
 * LlmClient.builder().replicas(...)
 *     .admission(Admission.builder().capacity(256).maxWait(Duration.ofSeconds(5)).build())
 *     .build();
 * }</pre>
 *
 * @since 0.2.0
 */
public final class Admission {
  /** Default queue capacity: {@value}. */
  public static final int DEFAULT_CAPACITY = 1024;
  /** Default longest wait in the queue: 10 s. */
  public static final Duration DEFAULT_MAX_WAIT = Duration.ofSeconds(10);

  private static final Admission DISABLED =
      new Admission(false, DEFAULT_CAPACITY, DEFAULT_MAX_WAIT, Saturation.defaults());

  private final boolean enabled;
  private final int capacity;
  private final Duration maxWait;
  private final Saturation saturation;

  private Admission(boolean enabled, int capacity, Duration maxWait, Saturation saturation) {
    this.enabled = enabled;
    this.capacity = capacity;
    this.maxWait = maxWait;
    this.saturation = saturation;
  }

  /**
   * {@return the policy without admission control (the default): requests are always routed at
   * once}
   */
  public static Admission disabled() {
    return DISABLED;
  }

  /** {@return a new builder holding every default; not thread-safe} */
  public static Builder builder() {
    return new Builder();
  }

  /** {@return whether admission is on} */
  public boolean enabled() {
    return enabled;
  }

  /** {@return the capacity, as set by {@link Builder#capacity}} */
  public int capacity() {
    return capacity;
  }

  /** {@return the max wait, as set by {@link Builder#maxWait}} */
  public Duration maxWait() {
    return maxWait;
  }

  /** {@return the queue threshold, as set by {@link Builder#queueThreshold}} */
  public int queueThreshold() {
    return saturation.queueThreshold();
  }

  /** {@return the kv usage threshold, as set by {@link Builder#kvUsageThreshold}} */
  public double kvUsageThreshold() {
    return saturation.kvUsageThreshold();
  }

  /**
   * {@return when a replica counts as saturated: both thresholds (the defaults when admission is
   * off)}
   */
  public Saturation saturation() {
    return saturation;
  }

  @Override
  public String toString() {
    return enabled ? "Admission{capacity=" + capacity + ", maxWait=" + maxWait
        + ", queueThreshold=" + queueThreshold() + ", kvUsageThreshold=" + kvUsageThreshold()
        + '}' : "Admission{disabled}";
  }

  /** Builds an enabled {@link Admission}. Not thread-safe. */
  public static final class Builder {
    private int capacity = DEFAULT_CAPACITY;
    private Duration maxWait = DEFAULT_MAX_WAIT;
    private int queueThreshold = Saturation.DEFAULT_QUEUE_THRESHOLD;
    private double kvUsageThreshold = Saturation.DEFAULT_KV_USAGE_THRESHOLD;

    private Builder() {}

    /**
     * Requests that may wait at once, in [1, 1000000]; default {@value #DEFAULT_CAPACITY}.
     *
     * @param capacity the capacity, checked at {@link #build()}
     * @return this builder
     */
    public Builder capacity(int capacity) {
      this.capacity = capacity;
      return this;
    }

    /**
     * Longest wait for admission, in (0, 10 min]; default 10 s.
     *
     * @param maxWait the max wait; not null
     * @return this builder
     */
    public Builder maxWait(Duration maxWait) {
      this.maxWait = requireNonNull(maxWait, "maxWait");
      return this;
    }

    /**
     * Effective queue at which a replica counts as saturated (see {@link Saturation}), in [1,
     * 100000]; default {@value Saturation#DEFAULT_QUEUE_THRESHOLD}.
     *
     * @param queueThreshold the queue threshold, checked at {@link #build()}
     * @return this builder
     */
    public Builder queueThreshold(int queueThreshold) {
      this.queueThreshold = queueThreshold;
      return this;
    }

    /**
     * KV-cache usage at which a replica counts as saturated, in (0, 1]; default {@value
     * Saturation#DEFAULT_KV_USAGE_THRESHOLD}.
     *
     * @param kvUsageThreshold the kv usage threshold, checked at {@link #build()}
     * @return this builder
     */
    public Builder kvUsageThreshold(double kvUsageThreshold) {
      this.kvUsageThreshold = kvUsageThreshold;
      return this;
    }

    /**
     * Validates every setting and builds the Admission.
     *
     * @return an immutable, thread-safe {@code Admission}
     * @throws IllegalArgumentException naming the first knob out of range
     */
    public Admission build() {
      if (capacity < 1 || capacity > 1_000_000) {
        throw new IllegalArgumentException("Admission.capacity must be in [1, 1000000], got "
            + capacity);
      }
      if (maxWait.isNegative() || maxWait.isZero() || maxWait.compareTo(Duration.ofMinutes(10)) > 0) {
        throw new IllegalArgumentException("Admission.maxWait must be in (0, 10 min], got "
            + maxWait);
      }
      if (queueThreshold < 1 || queueThreshold > 100_000) {
        throw new IllegalArgumentException("Admission.queueThreshold must be in [1, 100000], got "
            + queueThreshold);
      }
      if (!(kvUsageThreshold > 0 && kvUsageThreshold <= 1)) {
        throw new IllegalArgumentException("Admission.kvUsageThreshold must be in (0, 1], got "
            + kvUsageThreshold);
      }
      return new Admission(true, capacity, maxWait,
          new Saturation(queueThreshold, kvUsageThreshold));
    }
  }
}
