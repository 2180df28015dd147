package io.github.llmrouter.internal.dispatch;

import io.github.llmrouter.internal.util.Hashing;
import io.github.llmrouter.observe.RoutedEvent;
import io.github.llmrouter.replica.Replica;
import io.github.llmrouter.routing.KeyExtractor;
import io.github.llmrouter.routing.Ranking;
import io.github.llmrouter.routing.RoutingRequest;
import java.time.Duration;
import java.util.Arrays;
import org.jspecify.annotations.Nullable;

/**
 * Walks a policy's {@link Ranking} and keeps only replicas that are eligible now, so policies
 * never need to know about health. Replicas passed over are remembered in ranking order: those a
 * slow start declined come next once the eligible ones are exhausted; those that are ineligible
 * (unhealthy, ejected, breaker open) are tried only in panic, when the very first pick of the call
 * found no eligible replica at all. Replicas paused by their own {@code Retry-After} are never
 * picked while paused, not even in panic; once nothing else is left, {@link #pausedUntil()} says
 * when the first of them may be asked again, and a later {@link #next} picks it then. On a
 * healthy fleet the walk is the ranking itself: one admission check per attempt and no
 * allocation. One call owns it.
 */
final class EligibleWalk implements Eligibility.KeyFraction {
  /** Decorrelates a key's fraction from its ring position. */
  private static final long FRACTION_SALT = 0x5105_7A27_F4AC_7105L;

  private final Ranking ranking;
  private final Eligibility eligibility;
  private final RoutingRequest request;
  private final KeyExtractor keys;
  private int[] deferred = EMPTY;
  private int deferredCount;
  private int deferredTaken;
  private int[] skipped = EMPTY;
  private int skippedCount;
  private int skippedTaken;
  /** Paused replicas in ranking order; an entry is set to -1 once picked. */
  private int[] paused = EMPTY;
  private int pausedCount;
  private int picks;
  private boolean rankingDone;
  private boolean admittedAny;
  private double keyFraction = -1;
  /** How the last pick was made: {@link Eligibility#ADMIT}, {@code DEFER} or {@code SKIP}. */
  private int lastKind;
  private boolean lastPermitted;
  /** Whether the last pick is the index the ranking returned last (not one revisited later). */
  private boolean lastFromRanking;
  private static final int[] EMPTY = new int[0];

  /**
   * A walk over {@code ranking}.
   *
   * @param keys the policy's ring key, read only if a slow start asks for the key's fraction
   */
  EligibleWalk(Ranking ranking, Eligibility eligibility, RoutingRequest request,
      KeyExtractor keys) {
    this.ranking = ranking;
    this.eligibility = eligibility;
    this.request = request;
    this.keys = keys;
  }

  /** The next replica to try, or -1 when none is left. */
  int next(long now) {
    lastFromRanking = false;
    if (!rankingDone) {
      int i;
      while ((i = ranking.next()) >= 0) {
        int kind = eligibility.admit(i, now, this);
        if (kind == Eligibility.ADMIT) {
          admittedAny = true;
          lastKind = Eligibility.ADMIT;
          lastPermitted = true;
          lastFromRanking = true;
          picks++;
          return i;
        }
        if (kind == Eligibility.DEFER) {
          deferred = push(deferred, deferredCount++, i);
        } else if (kind == Eligibility.PAUSED) {
          paused = push(paused, pausedCount++, i);
        } else {
          skipped = push(skipped, skippedCount++, i);
        }
      }
      rankingDone = true;
    }
    if (deferredTaken < deferredCount) {
      int i = deferred[deferredTaken++];
      lastKind = Eligibility.DEFER;
      // Still ask the breaker: a warming replica behind an open breaker stays skipped.
      lastPermitted = eligibility.breaker(i) == null || eligibility.tryPermit(i);
      if (!lastPermitted) {
        skipped = push(skipped, skippedCount++, i);
        return next(now);
      }
      admittedAny = true;
      picks++;
      return i;
    }
    if (!admittedAny && skippedTaken < skippedCount) {
      lastKind = Eligibility.SKIP;
      lastPermitted = false;
      picks++;
      return skipped[skippedTaken++];
    }
    return nextUnpaused(now);
  }

  /** The first paused replica whose pause has ended and that is eligible now, or -1. */
  private int nextUnpaused(long now) {
    for (int k = 0; k < pausedCount; k++) {
      int i = paused[k];
      if (i < 0) continue;
      int kind = eligibility.admit(i, now, this);
      if (kind == Eligibility.PAUSED) continue;
      paused[k] = -1;
      if (kind == Eligibility.SKIP) continue; // ejected or unhealthy meanwhile
      lastKind = kind;
      lastPermitted = kind == Eligibility.ADMIT
          || eligibility.breaker(i) == null || eligibility.tryPermit(i);
      if (!lastPermitted) continue;
      admittedAny = true;
      picks++;
      return i;
    }
    return -1;
  }

  /**
   * Whether the last pick was the ranking's own, just returned by it: then the ranking's account
   * of it (predictions, explanation, feedback) applies.
   */
  boolean fromRanking() {
    return lastFromRanking;
  }

  /** The ranking walked; its account of a pick applies when {@link #fromRanking()}. */
  Ranking ranking() {
    return ranking;
  }

  /**
   * When {@link #next} returned -1: the ticker time at which the first replica it passed over
   * for a {@code Retry-After} pause may be asked again, or {@link Long#MIN_VALUE} if it passed
   * over none (nothing is worth waiting for).
   */
  long pausedUntil() {
    long earliest = Long.MIN_VALUE;
    for (int k = 0; k < pausedCount; k++) {
      int i = paused[k];
      if (i < 0) continue;
      long until = eligibility.pausedUntil(i);
      if (earliest == Long.MIN_VALUE || until - earliest < 0) earliest = until;
    }
    return earliest;
  }

  /** How many replicas the walk has picked. */
  int picks() {
    return picks;
  }

  /** Whether the last pick was made in panic: no replica of the fleet was eligible. */
  boolean panicked() {
    return lastKind == Eligibility.SKIP;
  }

  /** Whether the last pick holds a breaker permission. */
  boolean permitted() {
    return lastPermitted;
  }

  /** Why the last pick was made. */
  String reason() {
    switch (lastKind) {
      case Eligibility.DEFER:
        return "slow start: no fully warm replica left";
      case Eligibility.SKIP:
        return "panic: no eligible replica, trying all";
      default:
        return ranking.reason();
    }
  }

  /**
   * The event of the last pick, {@code index} of {@code table}: with the ranking's predictions
   * (cached tokens, wait and, if {@code explain}, why it beat the runner-up) if the pick was the
   * ranking's own.
   */
  RoutedEvent routedEvent(long callId, String operation, int attempt, RoutingTable table,
      int index, boolean failover, boolean explain) {
    long cached = -1;
    @Nullable Duration wait = null;
    String versus = "";
    if (lastFromRanking) {
      cached = ranking.predictedCachedTokens();
      double seconds = ranking.estimatedWaitSeconds();
      if (seconds >= 0 && seconds < 1e9) wait = Duration.ofNanos(Math.round(seconds * 1e9));
      if (explain) versus = ranking.versusRunnerUp();
    }
    Replica replica = table.replicas.get(index);
    return new RoutedEvent(callId, operation, request.model(), attempt, replica.id(),
        replica.baseUrl().host(), replica.baseUrl().port(), failover, reason(),
        table.load.inFlight(index), table.load.totalInFlight(), cached, wait, versus);
  }

  /**
   * Where the request's key falls in [0, 1): its affinity key, as the policy computes it ({@link
   * io.github.llmrouter.routing.RoutingPolicy#affinityKey}, so all requests of one key get one
   * answer), mixed so that the fraction does not follow the ring position. A key keeps its answer
   * as a slow start's share grows, and keys move to the new replica monotonically. Computed only
   * if a slow start asks; the built-in policies' keys come from what the request keeps (its
   * prefix key or prompt blocks), so the prompt is hashed once for the policy and this walk.
   */
  @Override
  public double get() {
    if (keyFraction < 0) {
      keyFraction = (Hashing.mix64(keys.key(request) ^ FRACTION_SALT) >>> 11) * 0x1.0p-53;
    }
    return keyFraction;
  }

  private static int[] push(int[] array, int size, int value) {
    if (size == array.length) array = Arrays.copyOf(array, Math.max(4, size * 2));
    array[size] = value;
    return array;
  }
}
