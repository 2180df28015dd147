package io.github.llmrouter.internal.dispatch;

import io.github.llmrouter.api.LlmException;
import io.github.llmrouter.internal.health.ReplicaStatus;
import io.github.llmrouter.internal.health.StatusTracker;
import io.github.llmrouter.internal.transport.Verdict;
import io.github.llmrouter.replica.ReplicaSet;
import io.github.resilience4j.circuitbreaker.CircuitBreaker;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;

/**
 * Which replicas of one membership snapshot may take an attempt now, and the bookkeeping of each
 * attempt's outcome. Thread-safe: immutable arrays indexed like the snapshot, pointing at
 * per-replica objects whose state is atomic; deciding costs a few volatile reads and, for a replica
 * with a breaker, one lock-free permission check.
 */
final class Eligibility {
  /** Whether a replica may take an attempt now ({@link #admit}). */
  enum Standing {
    /** The replica may take the attempt. */
    ADMIT,
    /** Eligible, but its slow start declines this key: try it only if nothing better is left. */
    DEFER,
    /** Unhealthy, ejected or behind an open breaker: try it only in panic. */
    SKIP,
    /**
     * Paused by its own {@code Retry-After}: never tried before the pause ends, not even in
     * panic; a call with nothing else left waits for it.
     */
    PAUSED
  }

  private final StatusTracker tracker;
  private final ReplicaBreakers breakerSource;
  private final long maxPauseNanos;
  private final ReplicaStatus[] statuses;
  private final CircuitBreaker @Nullable [] breakers;

  private Eligibility(StatusTracker tracker, ReplicaBreakers breakerSource, long maxPauseNanos,
      ReplicaSet replicas) {
    this.tracker = tracker;
    this.breakerSource = breakerSource;
    this.maxPauseNanos = maxPauseNanos;
    this.statuses = tracker.statusesOf(replicas);
    this.breakers = breakerSource.forSnapshot(replicas);
  }

  /**
   * @param maxPause the longest pause a {@code Retry-After} may ask for ({@code
   *     RetryPolicy.maxRetryAfter}); zero ignores the header
   */
  static Eligibility of(StatusTracker tracker, ReplicaBreakers breakers, Duration maxPause,
      ReplicaSet replicas) {
    return new Eligibility(tracker, breakers, maxPause.toNanos(), replicas);
  }

  Eligibility next(ReplicaSet replicas) {
    return new Eligibility(tracker, breakerSource, maxPauseNanos, replicas);
  }

  /**
   * Whether replica {@code index} may take an attempt at ticker time {@code now}, for a request
   * whose key sits at {@code keyFraction} in [0, 1) (a slow-starting replica takes the keys below
   * its share). On {@link Standing#ADMIT} with a breaker, a breaker permission is held and must
   * be returned through {@link #record}.
   */
  Standing admit(int index, long now, KeyFraction keyFraction) {
    ReplicaStatus h = statuses[index];
    if (!h.isHealthy() || h.isGone() || h.isEjected(now)) return Standing.SKIP;
    if (h.isPaused(now)) return Standing.PAUSED;
    double share = h.slowStartShare(now);
    if (share < 1.0 && keyFraction.get() >= share) return Standing.DEFER;
    if (breakers != null && !breakers[index].tryAcquirePermission()) return Standing.SKIP;
    return Standing.ADMIT;
  }

  /** The ticker time until which replica {@code index} asked not to be called. */
  long pausedUntil(int index) {
    return statuses[index].pausedUntil();
  }

  /**
   * Records an attempt's outcome on replica {@code index}: success when {@code failure} is null.
   * A failure carrying {@code Retry-After} pauses the replica for that long (at most the maximum),
   * for every call. A 503 from a replica that has just come back is its start, not a failure
   * ({@link StatusTracker#starting}): it counts toward neither its ejection nor its breaker.
   *
   * @param permitted whether {@link #admit} took a breaker permission for it (false in panic or
   *     for a deferred pick taken without one)
   * @param now the ticker time of the outcome
   */
  void record(int index, boolean permitted, long now, long durationNanos,
      @Nullable LlmException failure) {
    ReplicaStatus h = statuses[index];
    CircuitBreaker breaker = breakers == null || !permitted ? null : breakers[index];
    if (failure == null) {
      tracker.onSuccess(h);
      if (breaker != null) breaker.onSuccess(durationNanos, TimeUnit.NANOSECONDS);
      return;
    }
    Verdict verdict = Verdict.of(failure);
    Duration retryAfter = verdict.retryAfter();
    if (retryAfter != null && !retryAfter.isZero() && maxPauseNanos > 0) {
      tracker.onRetryAfter(h, now + Math.min(retryAfter.toNanos(), maxPauseNanos));
    }
    if (verdict.status() == 503 && tracker.starting(h, now)) {
      // A replica just back, still loading its model: neither an outlier nor a broken one.
      if (breaker != null) breaker.releasePermission();
      return;
    }
    switch (verdict.blame()) {
      case REPLICA -> {
        tracker.onFailure(h, verdict.label(), verdict.unreachable());
        if (verdict.refused()) tracker.refused(h.id(), verdict.label());
        if (breaker != null) breaker.onError(durationNanos, TimeUnit.NANOSECONDS, failure);
      }
      case REQUEST -> {
        // A 4xx (429 included) is the replica judging the request: the replica itself works.
        tracker.onSuccess(h);
        if (breaker != null) breaker.onSuccess(durationNanos, TimeUnit.NANOSECONDS);
      }
      case DEADLINE, NONE -> {
        // The caller's deadline or an interruption says nothing: a probe permission goes back.
        if (breaker != null) breaker.releasePermission();
      }
    }
  }

  /** Takes a breaker permission for a pick made without one, if the breaker allows it. */
  boolean tryPermit(int index) {
    return breakers != null && breakers[index].tryAcquirePermission();
  }

  /**
   * A pick that was taken and not used (a hedge given up): returns its breaker permission, if it
   * holds one.
   */
  void unused(Pick pick) {
    if (breakers != null && pick.permitted()) breakers[pick.index()].releasePermission();
  }

  /** The breaker state of replica {@code index}, or null without breakers. */
  @Nullable CircuitBreaker breaker(int index) {
    return breakers == null ? null : breakers[index];
  }

  /** The status of replica {@code index}. */
  ReplicaStatus status(int index) {
    return statuses[index];
  }

  /** The request's position in [0, 1) for slow start; computed only when a replica is warming. */
  interface KeyFraction {
    double get();
  }
}
