package io.github.llmrouter.internal.dispatch;

import io.github.llmrouter.internal.util.Hashing;
import io.github.llmrouter.observe.RoutedEvent;
import io.github.llmrouter.replica.Replica;
import io.github.llmrouter.routing.KeyExtractor;
import io.github.llmrouter.routing.Ranking;
import io.github.llmrouter.routing.RoutingRequest;
import java.time.Duration;
import java.util.Arrays;
import java.util.OptionalLong;
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
  /** Which replicas serve the request's model; null when routing by model changes nothing. */
  private final @Nullable ServedModels models;
  /** Whether some replica declares or lists the request's model. */
  private final boolean claimed;
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
  private static final int[] EMPTY = new int[0];

  /**
   * A walk over {@code ranking}.
   *
   * @param keys the policy's ring key, read only if a slow start asks for the key's fraction
   * @param models which replicas serve which models (a replica that does not serve the request's
   *     model is never picked, not even in panic); null when the fleet declares none
   */
  EligibleWalk(Ranking ranking, Eligibility eligibility, RoutingRequest request,
      KeyExtractor keys, @Nullable ServedModels models) {
    this.ranking = ranking;
    this.eligibility = eligibility;
    this.request = request;
    this.keys = keys;
    this.models = models;
    this.claimed = models != null && models.claims(request.model());
  }

  /** The next replica to try, or null when none is left. */
  @Nullable Pick next(long now) {
    if (!rankingDone) {
      int i;
      while ((i = ranking.next()) >= 0) {
        if (models != null && !models.serves(i, request.model(), claimed)) continue;
        Eligibility.Standing standing = eligibility.admit(i, now, this);
        if (standing == Eligibility.Standing.ADMIT) {
          admittedAny = true;
          picks++;
          return new Pick(i, Pick.Kind.RANKED, true, true);
        }
        if (standing == Eligibility.Standing.DEFER) {
          deferred = push(deferred, deferredCount++, i);
        } else if (standing == Eligibility.Standing.PAUSED) {
          paused = push(paused, pausedCount++, i);
        } else {
          skipped = push(skipped, skippedCount++, i);
        }
      }
      rankingDone = true;
    }
    while (deferredTaken < deferredCount) {
      int i = deferred[deferredTaken++];
      // Still ask the breaker: a warming replica behind an open breaker stays skipped.
      boolean permitted = eligibility.breaker(i) == null || eligibility.tryPermit(i);
      if (!permitted) {
        skipped = push(skipped, skippedCount++, i);
        continue;
      }
      admittedAny = true;
      picks++;
      return new Pick(i, Pick.Kind.SLOW_START, true, false);
    }
    if (!admittedAny && skippedTaken < skippedCount) {
      picks++;
      return new Pick(skipped[skippedTaken++], Pick.Kind.PANIC, false, false);
    }
    return nextUnpaused(now);
  }

  /** The first paused replica whose pause has ended and that is eligible now, or null. */
  private @Nullable Pick nextUnpaused(long now) {
    for (int k = 0; k < pausedCount; k++) {
      int i = paused[k];
      if (i < 0) continue;
      Eligibility.Standing standing = eligibility.admit(i, now, this);
      if (standing == Eligibility.Standing.PAUSED) continue;
      paused[k] = -1;
      if (standing == Eligibility.Standing.SKIP) continue; // ejected or unhealthy meanwhile
      boolean admitted = standing == Eligibility.Standing.ADMIT;
      if (!admitted && eligibility.breaker(i) != null && !eligibility.tryPermit(i)) continue;
      admittedAny = true;
      picks++;
      return new Pick(i, admitted ? Pick.Kind.RANKED : Pick.Kind.SLOW_START, true, false);
    }
    return null;
  }

  /** The ranking walked; its account of a pick applies when {@link Pick#fromRanking()}. */
  Ranking ranking() {
    return ranking;
  }

  /**
   * When {@link #next} returned null: the ticker time at which the first replica it passed over
   * for a {@code Retry-After} pause may be asked again; empty if it passed over none (nothing is
   * worth waiting for).
   */
  OptionalLong pausedUntil() {
    boolean any = false;
    long earliest = 0;
    for (int k = 0; k < pausedCount; k++) {
      int i = paused[k];
      if (i < 0) continue;
      long until = eligibility.pausedUntil(i);
      if (!any || until - earliest < 0) earliest = until;
      any = true;
    }
    return any ? OptionalLong.of(earliest) : OptionalLong.empty();
  }

  /** How many replicas the walk has picked. */
  int picks() {
    return picks;
  }

  /** Why {@code pick}, one of this walk's, was made. */
  String reason(Pick pick) {
    return pick.kind().reason(ranking.reason());
  }

  /**
   * The event of {@code pick}, one of this walk's over {@code table}: with the ranking's
   * predictions (cached tokens, wait and, if {@code explain}, why it beat the runner-up) if the
   * pick was the ranking's own.
   */
  RoutedEvent routedEvent(long callId, String operation, int attempt, RoutingTable table,
      Pick pick, boolean failover, boolean explain) {
    int index = pick.index();
    long cached = -1;
    @Nullable Duration wait = null;
    String versus = "";
    if (pick.fromRanking()) {
      cached = ranking.predictedCachedTokens();
      double seconds = ranking.estimatedWaitSeconds();
      if (seconds >= 0 && seconds < 1e9) wait = Duration.ofNanos(Math.round(seconds * 1e9));
      if (explain) versus = ranking.versusRunnerUp();
    }
    Replica replica = table.replicas.get(index);
    return new RoutedEvent(callId, operation, request.model(), attempt, replica.id(),
        replica.baseUrl().host(), replica.baseUrl().port(), failover, reason(pick),
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
