package io.github.llmrouter.dispatch;

import static java.util.Objects.requireNonNull;

import java.time.Duration;

/**
 * When a call sends a second attempt while its first is still waiting (a hedge). Immutable; off
 * unless the client is given one that is {@linkplain #enabled() enabled}.
 *
 * <p>When an attempt has delivered nothing the caller can see (a whole answer; for a stream, its
 * first chunk) after a delay learnt from this client's own calls (the {@link
 * Builder#percentile(double) percentile} of their time to that moment, per operation, kind and
 * size class of the request, so that a long prompt is not hedged for taking long, at least {@link
 * Builder#minDelay(Duration) minDelay}), a second attempt goes to the next replica
 * of the request's ranking that is eligible and not saturated. The first of the two to deliver
 * wins; the other is cancelled at once and ends as abandoned (it counts against neither
 * replica). Nothing reaches the caller before the race is decided, so the caller never sees a
 * byte twice.
 *
 * <p>At most {@link Builder#maxHedgedShare(double) maxHedgedShare} of calls send a hedge, and
 * each hedge also spends a retry token of the {@link RetryPolicy}'s budget, so hedges and retries
 * together stay within its ratio of the traffic; at most one hedge is sent per call; none is sent
 * before the client has seen {@value #MIN_SAMPLES} answers of calls of the same operation, kind
 * and size (it has no delay to learn from), nor when the next replica is saturated, nor for a
 * request marked not to be hedged ({@code hedgeable(false)}), nor outside chat, completions and
 * embeddings. A failure of one attempt while the other is still in flight starts no new attempt:
 * the call waits for the other. An attempt that loses its race ends as abandoned and counts
 * against neither its replica's ejection nor its breaker.
 *
 * @since 0.3.0
 */
public final class HedgePolicy {
  /** Default percentile of the learnt time to the first answer after which a hedge goes: 0.95. */
  public static final double DEFAULT_PERCENTILE = 0.95;
  /** Default shortest delay before a hedge: 50 ms. */
  public static final Duration DEFAULT_MIN_DELAY = Duration.ofMillis(50);
  /** Default largest share of calls that send a hedge: 0.05. */
  public static final double DEFAULT_MAX_HEDGED_SHARE = 0.05;
  /** Answers of an operation the client must have seen before it hedges that operation. */
  public static final int MIN_SAMPLES = 20;

  private static final HedgePolicy DISABLED = new HedgePolicy(false, DEFAULT_PERCENTILE,
      DEFAULT_MIN_DELAY, DEFAULT_MAX_HEDGED_SHARE);

  private final boolean enabled;
  private final double percentile;
  private final Duration minDelay;
  private final double maxHedgedShare;

  private HedgePolicy(boolean enabled, double percentile, Duration minDelay,
      double maxHedgedShare) {
    this.enabled = enabled;
    this.percentile = percentile;
    this.minDelay = minDelay;
    this.maxHedgedShare = maxHedgedShare;
  }

  /** {@return no hedging: the client's default} */
  public static HedgePolicy disabled() {
    return DISABLED;
  }

  /** {@return hedging after the 95th percentile, at least 50 ms} */
  public static HedgePolicy defaults() {
    return builder().build();
  }

  /** {@return a builder with the defaults} */
  public static Builder builder() {
    return new Builder();
  }

  /** {@return whether calls are hedged} */
  public boolean enabled() {
    return enabled;
  }

  /** {@return the percentile of the learnt time to the first answer after which a hedge goes} */
  public double percentile() {
    return percentile;
  }

  /** {@return the shortest delay before a hedge} */
  public Duration minDelay() {
    return minDelay;
  }

  /** {@return the largest share of calls that send a hedge} */
  public double maxHedgedShare() {
    return maxHedgedShare;
  }

  @Override
  public String toString() {
    return enabled ? "HedgePolicy{percentile=" + percentile + ", minDelay=" + minDelay
        + ", maxHedgedShare=" + maxHedgedShare + '}' : "HedgePolicy{disabled}";
  }

  /** Builds an enabled {@link HedgePolicy}. Not thread-safe. */
  public static final class Builder {
    private double percentile = DEFAULT_PERCENTILE;
    private Duration minDelay = DEFAULT_MIN_DELAY;
    private double maxHedgedShare = DEFAULT_MAX_HEDGED_SHARE;

    private Builder() {}

    /**
     * The percentile, in [0.5, 0.999], of this client's time to the first answer (per operation
     * and kind) after which a waiting attempt is hedged; default {@value #DEFAULT_PERCENTILE}. A
     * higher one hedges fewer calls, later.
     *
     * @param percentile the percentile
     * @return this builder
     */
    public Builder percentile(double percentile) {
      this.percentile = percentile;
      return this;
    }

    /**
     * The shortest delay before a hedge, in [1 ms, 10 min]; default 50 ms. Keeps a fleet that
     * answers in a few milliseconds from being hedged on noise.
     *
     * @param minDelay the delay; not null
     * @return this builder
     */
    public Builder minDelay(Duration minDelay) {
      this.minDelay = requireNonNull(minDelay, "minDelay");
      return this;
    }

    /**
     * The largest share of calls, in (0, 0.5], that send a hedge; default {@value
     * #DEFAULT_MAX_HEDGED_SHARE}. Each call earns that share of a hedge and a hedge spends a
     * whole one (as the retry budget works), besides the retry token it also spends.
     *
     * @param maxHedgedShare the share
     * @return this builder
     */
    public Builder maxHedgedShare(double maxHedgedShare) {
      this.maxHedgedShare = maxHedgedShare;
      return this;
    }

    /**
     * Checks the settings.
     *
     * @return the policy
     * @throws IllegalArgumentException naming the setting that is out of range
     */
    public HedgePolicy build() {
      if (!(percentile >= 0.5 && percentile <= 0.999)) {
        throw new IllegalArgumentException("percentile must be in [0.5, 0.999], got "
            + percentile);
      }
      if (minDelay.compareTo(Duration.ofMillis(1)) < 0
          || minDelay.compareTo(Duration.ofMinutes(10)) > 0) {
        throw new IllegalArgumentException("minDelay must be in [1 ms, 10 min], got " + minDelay);
      }
      if (!(maxHedgedShare > 0 && maxHedgedShare <= 0.5)) {
        throw new IllegalArgumentException("maxHedgedShare must be in (0, 0.5], got "
            + maxHedgedShare);
      }
      return new HedgePolicy(true, percentile, minDelay, maxHedgedShare);
    }
  }
}
