package io.github.llmrouter.dispatch;

import io.github.resilience4j.core.IntervalFunction;
import java.time.Duration;
import java.util.Set;
import java.util.TreeSet;

/**
 * When and how to try again: attempts, backoff, {@code Retry-After}, and the retry budget.
 * Immutable; build one with {@link #builder()}.
 *
 * <p>Every retry goes to the next replica of the request's ranking that has not been tried yet
 * (failover), after an exponential backoff with jitter; once every eligible replica has been
 * tried, the next retry starts over from the top of the ranking, so a fleet of one retries its
 * only replica. Retryable: connection failures and resets before a response, timeouts before a
 * response (not the call's own deadline), malformed answers, and HTTP statuses in {@link
 * Builder#retryableStatuses(Set) retryableStatuses}.
 *
 * <p>A {@code Retry-After} header says when <em>that replica</em> may be asked again: it is kept
 * out of rotation, for every call, until then (at most {@link Builder#maxRetryAfter(Duration)
 * maxRetryAfter}), and the call fails over at once to another replica. A call waits for it only
 * when no other replica is eligible, and only if the wait ends before the call's deadline;
 * otherwise the call gives up at once.
 *
 * <p>The retry budget stops retry storms: each call earns {@link Builder#budgetRatio(double)
 * budgetRatio} of a retry token, each retry spends one, and at most {@value #MAX_SAVED_TOKENS}
 * tokens are saved; besides, {@link Builder#minRetriesPerSecond(int) minRetriesPerSecond}
 * retries are always allowed so that a quiet client can still fail over. When the fleet fails
 * every request, retries stay near that ratio of the traffic instead of multiplying it by the
 * attempt count (the scheme Finagle uses).
 *
 * @since 0.2.0
 */
public final class RetryPolicy {
  /** Default attempts per call, the first included: {@value}. */
  public static final int DEFAULT_MAX_ATTEMPTS = 3;
  /** Default first backoff: 50 ms. */
  public static final Duration DEFAULT_INITIAL_BACKOFF = Duration.ofMillis(50);
  /** Default longest backoff: 2 s. */
  public static final Duration DEFAULT_MAX_BACKOFF = Duration.ofSeconds(2);
  /** Default backoff growth per retry: {@value}. */
  public static final double DEFAULT_MULTIPLIER = 2.0;
  /** Default jitter: each backoff is drawn from ±{@value} of its nominal value. */
  public static final double DEFAULT_JITTER = 0.2;
  /** Default cap on an honoured {@code Retry-After}: 10 s. */
  public static final Duration DEFAULT_MAX_RETRY_AFTER = Duration.ofSeconds(10);
  /** Default retries earned per call: {@value}. */
  public static final double DEFAULT_BUDGET_RATIO = 0.2;
  /** Default retries per second allowed regardless of the ratio: {@value}. */
  public static final int DEFAULT_MIN_RETRIES_PER_SECOND = 10;
  /** The most retry tokens the budget saves up: {@value}. */
  public static final int MAX_SAVED_TOKENS = 100;
  /** Default retryable statuses: 408, 429, 500, 502, 503, 504. */
  public static final Set<Integer> DEFAULT_RETRYABLE_STATUSES = Set.of(408, 429, 500, 502, 503, 504);

  private final int maxAttempts;
  private final Duration initialBackoff;
  private final Duration maxBackoff;
  private final double multiplier;
  private final double jitter;
  private final Duration maxRetryAfter;
  private final double budgetRatio;
  private final int minRetriesPerSecond;
  private final Set<Integer> retryableStatuses;
  private final IntervalFunction backoff;

  private RetryPolicy(Builder b) {
    this.maxAttempts = b.maxAttempts;
    this.initialBackoff = b.initialBackoff;
    this.maxBackoff = b.maxBackoff;
    this.multiplier = b.multiplier;
    this.jitter = b.jitter;
    this.maxRetryAfter = b.maxRetryAfter;
    this.budgetRatio = b.budgetRatio;
    this.minRetriesPerSecond = b.minRetriesPerSecond;
    this.retryableStatuses = Set.copyOf(b.retryableStatuses);
    // Resilience4j's interval functions count whole milliseconds; below one there is no wait.
    if (initialBackoff.toMillis() < 1) {
      this.backoff = retry -> 0L;
    } else if (jitter == 0) {
      this.backoff = IntervalFunction.ofExponentialBackoff(initialBackoff, multiplier, maxBackoff);
    } else {
      this.backoff =
          IntervalFunction.ofExponentialRandomBackoff(initialBackoff, multiplier, jitter, maxBackoff);
    }
  }

  /** {@return the defaults: 3 attempts, 50 ms doubling to 2 s with ±20% jitter, 20% budget} */
  public static RetryPolicy defaults() {
    return builder().build();
  }

  /** {@return one attempt, never a retry} */
  public static RetryPolicy disabled() {
    return builder().maxAttempts(1).build();
  }

  /** {@return a new builder holding every default; not thread-safe} */
  public static Builder builder() {
    return new Builder();
  }

  /** {@return the max attempts, as set by {@link Builder#maxAttempts}} */
  public int maxAttempts() {
    return maxAttempts;
  }

  /** {@return the initial backoff, as set by {@link Builder#initialBackoff}} */
  public Duration initialBackoff() {
    return initialBackoff;
  }

  /** {@return the max backoff, as set by {@link Builder#maxBackoff}} */
  public Duration maxBackoff() {
    return maxBackoff;
  }

  /** {@return the max retry after, as set by {@link Builder#maxRetryAfter}} */
  public Duration maxRetryAfter() {
    return maxRetryAfter;
  }

  /** {@return the budget ratio, as set by {@link Builder#budgetRatio}} */
  public double budgetRatio() {
    return budgetRatio;
  }

  /** {@return the min retries per second, as set by {@link Builder#minRetriesPerSecond}} */
  public int minRetriesPerSecond() {
    return minRetriesPerSecond;
  }

  /** {@return the retryable statuses, as set by {@link Builder#retryableStatuses}} */
  public Set<Integer> retryableStatuses() {
    return retryableStatuses;
  }

  /**
   * Whether an error status is worth another attempt: the one definition the client applies when
   * it classifies an answer, so that {@link io.github.llmrouter.api.LlmException#isRetryable()} of
   * a {@link io.github.llmrouter.api.ReplicaHttpException} says what this policy says.
   *
   * @param status an HTTP status code
   * @return true if it is one of {@link #retryableStatuses()}
   */
  public boolean isRetryableStatus(int status) {
    return retryableStatuses.contains(status);
  }

  /**
   * The backoff before retry number {@code retry}, with its jitter drawn afresh. A {@code
   * Retry-After} does not lengthen it: it pauses the replica that sent it instead (see the class
   * comment).
   *
   * @param retry 1 for the first retry, 2 for the second, ...
   * @return the backoff, in whole milliseconds; zero when {@link #initialBackoff()} is below 1 ms
   */
  public Duration backoff(int retry) {
    return Duration.ofMillis(backoff.apply(retry));
  }

  @Override
  public String toString() {
    return "RetryPolicy{maxAttempts=" + maxAttempts + ", backoff=" + initialBackoff + ".."
        + maxBackoff + " x" + multiplier + " ±" + jitter + ", maxRetryAfter=" + maxRetryAfter
        + ", budgetRatio=" + budgetRatio + ", minRetriesPerSecond=" + minRetriesPerSecond
        + ", retryableStatuses=" + new TreeSet<>(retryableStatuses) + '}';
  }

  /** Builds a {@link RetryPolicy}; {@link #build()} validates every knob. Not thread-safe. */
  public static final class Builder {
    private int maxAttempts = DEFAULT_MAX_ATTEMPTS;
    private Duration initialBackoff = DEFAULT_INITIAL_BACKOFF;
    private Duration maxBackoff = DEFAULT_MAX_BACKOFF;
    private double multiplier = DEFAULT_MULTIPLIER;
    private double jitter = DEFAULT_JITTER;
    private Duration maxRetryAfter = DEFAULT_MAX_RETRY_AFTER;
    private double budgetRatio = DEFAULT_BUDGET_RATIO;
    private int minRetriesPerSecond = DEFAULT_MIN_RETRIES_PER_SECOND;
    private Set<Integer> retryableStatuses = DEFAULT_RETRYABLE_STATUSES;

    private Builder() {}

    /**
     * Attempts per call including the first, in [1, 10]; default {@value #DEFAULT_MAX_ATTEMPTS}.
     *
     * @param maxAttempts the max attempts, checked at {@link #build()}
     * @return this builder
     */
    public Builder maxAttempts(int maxAttempts) {
      this.maxAttempts = maxAttempts;
      return this;
    }

    /**
     * The first backoff, in [0, 1 min], counted in whole milliseconds (less than 1 ms: retry at
     * once); default 50 ms.
     *
     * @param initialBackoff the first backoff, checked at {@link #build()}
     * @return this builder
     */
    public Builder initialBackoff(Duration initialBackoff) {
      this.initialBackoff = initialBackoff;
      return this;
    }

    /**
     * The longest backoff, in [initialBackoff, 5 min]; default 2 s.
     *
     * @param maxBackoff the longest backoff, checked at {@link #build()}
     * @return this builder
     */
    public Builder maxBackoff(Duration maxBackoff) {
      this.maxBackoff = maxBackoff;
      return this;
    }

    /**
     * Backoff growth per retry, in [1.0, 10]; default {@value #DEFAULT_MULTIPLIER}.
     *
     * @param multiplier the multiplier, checked at {@link #build()}
     * @return this builder
     */
    public Builder multiplier(double multiplier) {
      this.multiplier = multiplier;
      return this;
    }

    /**
     * Jitter as a fraction of the backoff, in [0, 1); default {@value #DEFAULT_JITTER}.
     *
     * @param jitter the jitter, checked at {@link #build()}
     * @return this builder
     */
    public Builder jitter(double jitter) {
      this.jitter = jitter;
      return this;
    }

    /**
     * The longest pause a replica's {@code Retry-After} is honoured for, in [0, 10 min] (0
     * ignores the header); default 10 s.
     *
     * @param maxRetryAfter the cap
     * @return this builder
     */
    public Builder maxRetryAfter(Duration maxRetryAfter) {
      this.maxRetryAfter = maxRetryAfter;
      return this;
    }

    /**
     * Retry tokens earned per call, in [0, 1]; default {@value #DEFAULT_BUDGET_RATIO}.
     *
     * @param budgetRatio the budget ratio, checked at {@link #build()}
     * @return this builder
     */
    public Builder budgetRatio(double budgetRatio) {
      this.budgetRatio = budgetRatio;
      return this;
    }

    /**
     * Retries per second always allowed, in [0, 10000]; default {@value
     * #DEFAULT_MIN_RETRIES_PER_SECOND}.
     *
     * @param minRetriesPerSecond the min retries per second, checked at {@link #build()}
     * @return this builder
     */
    public Builder minRetriesPerSecond(int minRetriesPerSecond) {
      this.minRetriesPerSecond = minRetriesPerSecond;
      return this;
    }

    /**
     * The HTTP statuses worth another attempt; default 408, 429, 500, 502, 503, 504.
     *
     * @param retryableStatuses the statuses; copied, not null
     * @return this builder
     */
    public Builder retryableStatuses(Set<Integer> retryableStatuses) {
      this.retryableStatuses = Set.copyOf(retryableStatuses);
      return this;
    }

    /**
     * Validates every setting and builds the RetryPolicy.
     *
     * @return an immutable, thread-safe {@code RetryPolicy}
     * @throws IllegalArgumentException naming the first knob out of range
     */
    public RetryPolicy build() {
      check(maxAttempts >= 1 && maxAttempts <= 10, "maxAttempts", "[1, 10]", maxAttempts);
      check(initialBackoff != null && !initialBackoff.isNegative()
          && initialBackoff.compareTo(Duration.ofMinutes(1)) <= 0,
          "initialBackoff", "[0, 1 min]", initialBackoff);
      check(maxBackoff != null && maxBackoff.compareTo(initialBackoff) >= 0
          && maxBackoff.compareTo(Duration.ofMinutes(5)) <= 0,
          "maxBackoff", "[initialBackoff, 5 min]", maxBackoff);
      check(multiplier >= 1.0 && multiplier <= 10.0, "multiplier", "[1.0, 10]", multiplier);
      check(jitter >= 0 && jitter < 1.0, "jitter", "[0, 1)", jitter);
      check(maxRetryAfter != null && !maxRetryAfter.isNegative()
          && maxRetryAfter.compareTo(Duration.ofMinutes(10)) <= 0,
          "maxRetryAfter", "[0, 10 min]", maxRetryAfter);
      check(budgetRatio >= 0 && budgetRatio <= 1.0, "budgetRatio", "[0, 1]", budgetRatio);
      check(minRetriesPerSecond >= 0 && minRetriesPerSecond <= 10_000,
          "minRetriesPerSecond", "[0, 10000]", minRetriesPerSecond);
      for (int s : retryableStatuses) {
        check(s >= 400 && s <= 599, "retryableStatuses", "[400, 599]", s);
      }
      return new RetryPolicy(this);
    }

    private static void check(boolean ok, String knob, String range, Object value) {
      if (!ok) {
        throw new IllegalArgumentException("RetryPolicy." + knob + " must be in " + range
            + ", got " + value);
      }
    }
  }
}
