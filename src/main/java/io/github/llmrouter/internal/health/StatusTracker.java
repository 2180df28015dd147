package io.github.llmrouter.internal.health;

import static java.util.Objects.requireNonNull;

import io.github.llmrouter.api.Ticker;
import io.github.llmrouter.observe.EjectionEvent;
import io.github.llmrouter.observe.HealthChangedEvent;
import io.github.llmrouter.observe.MembershipEvent;
import io.github.llmrouter.observe.RoutingListener;
import io.github.llmrouter.replica.OutlierDetection;
import io.github.llmrouter.replica.Replica;
import io.github.llmrouter.replica.ReplicaSet;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;

/**
 * Keeps the {@link ReplicaStatus} of every replica of the fleet, by id, and changes it on what
 * happens to the replica: membership changes (reported as events), attempt outcomes (passive
 * outlier detection, configured by {@link OutlierDetection}), pauses asked for with {@code
 * Retry-After}, verdicts of the {@link HealthProber}, scrapes and checks refused or left
 * unanswered and streams left without a first chunk (the stall watchdog), and slow start after a
 * replica joins or comes back.
 * Thread-safe: the request path reads {@code ReplicaStatus} objects (volatile fields, no locks);
 * this class's lock is taken only to change membership or to eject.
 */
public final class StatusTracker {
  /**
   * The share of keys a replica accepts at the start of its slow start: {@value} (Envoy's default
   * minimum weight percent), so that it gets some traffic to warm up from the first moment.
   */
  public static final double SLOW_START_MIN_SHARE = 0.1;
  /** A replica's stall bound is at least this many times its slowest recent answer. */
  static final int STALL_MULTIPLE = 4;
  private static final long SWEEP_MIN_NANOS = 10_000_000;
  private static final long SWEEP_MAX_NANOS = 250_000_000;
  /** Each answer takes 1/64 off the slowest recent answer (halved in about 44 answers). */
  private static final int SLOW_ANSWER_DECAY_SHIFT = 6;

  private final OutlierDetection outliers;
  private final long slowStartNanos;
  private final long stallNanos;
  private final Ticker ticker;
  private final RoutingListener listener;
  private final ConcurrentHashMap<String, ReplicaStatus> byId = new ConcurrentHashMap<>();
  private ReplicaSet current = ReplicaSet.empty(); // guarded by this
  private volatile Consumer<String> reachedAgain = id -> { };
  /** Whether load scrapes or health checks reach the replicas, and so can bring one back. */
  private volatile boolean probed = true;

  /**
   * A tracker of an empty fleet.
   *
   * @param outliers when failures eject a replica
   * @param slowStart the slow-start window ({@link Duration#ZERO} for none)
   * @param stallTimeout how long a replica may leave its scrapes and health checks unanswered
   *     before it is taken out ({@link Duration#ZERO} turns the stall watchdog off)
   * @param ticker the client's time source
   * @param listener receives membership, ejection and health events; must not throw
   */
  public StatusTracker(OutlierDetection outliers, Duration slowStart, Duration stallTimeout,
      Ticker ticker, RoutingListener listener) {
    this.outliers = requireNonNull(outliers, "outliers");
    this.slowStartNanos = requireNonNull(slowStart, "slowStart").toNanos();
    this.stallNanos = requireNonNull(stallTimeout, "stallTimeout").toNanos();
    this.ticker = requireNonNull(ticker, "ticker");
    this.listener = requireNonNull(listener, "listener");
  }

  /**
   * Records a new membership snapshot: reports who joined, left or changed, and starts the slow
   * start of replicas that joined a fleet that already had replicas (the first replicas of an
   * empty fleet have nobody to share with, so they take their full share at once).
   */
  public synchronized void update(ReplicaSet next, String reason) {
    requireNonNull(next, "next");
    ReplicaSet previous = current;
    if (previous.equals(next)) return;
    current = next;
    long now = ticker.read();
    Map<String, Replica> before = new HashMap<>();
    for (Replica r : previous.replicas()) before.put(r.id(), r);
    for (Replica r : next.replicas()) {
      Replica old = before.remove(r.id());
      if (old == null) {
        ReplicaStatus h = byId.computeIfAbsent(r.id(), this::fresh);
        if (!previous.isEmpty() && slowStartNanos > 0) h.warmingSince = now;
        emit(l -> l.onMembershipChanged(new MembershipEvent(r.id(), MembershipEvent.Change.ADDED,
            reason, next.size())));
      } else if (!old.equals(r)) {
        emit(l -> l.onMembershipChanged(new MembershipEvent(r.id(),
            MembershipEvent.Change.UPDATED, reason, next.size())));
      }
    }
    for (String gone : before.keySet()) {
      byId.remove(gone);
      emit(l -> l.onMembershipChanged(new MembershipEvent(gone, MembershipEvent.Change.REMOVED,
          reason, next.size())));
    }
  }

  /**
   * The statuses of {@code snapshot}'s replicas, at their snapshot indices; a replica the tracker
   * has not seen yet gets a fresh status.
   *
   * @param snapshot a membership snapshot
   * @return a new array, indexed like the snapshot
   */
  public ReplicaStatus[] statusesOf(ReplicaSet snapshot) {
    ReplicaStatus[] health = new ReplicaStatus[snapshot.size()];
    for (int i = 0; i < health.length; i++) {
      health[i] = byId.computeIfAbsent(snapshot.get(i).id(), this::fresh);
    }
    return health;
  }

  /** A replica first seen now: silent since now, as far as the stall watchdog knows. */
  private ReplicaStatus fresh(String id) {
    return new ReplicaStatus(id, this, ticker.read());
  }

  /**
   * The status of one replica.
   *
   * @param id a {@link Replica#id()}
   * @return its status, or null if it is not in the fleet
   */
  public @Nullable ReplicaStatus get(String id) {
    return byId.get(id);
  }

  /** A call on the replica succeeded (or failed through no fault of the replica). */
  public void onSuccess(ReplicaStatus health) {
    // Read before writing: on a healthy fleet the counter is 0 and the cache line stays shared.
    if (health.consecutiveFailures.get() != 0) health.consecutiveFailures.set(0);
  }

  /**
   * A call on the replica failed through the replica's fault; may eject it. {@code unreachable}:
   * the call could not reach the replica at all (a refused or failed connect), which a scrape or
   * health check that reaches it again may undo early.
   */
  public void onFailure(ReplicaStatus health, String what, boolean unreachable) {
    // An attempt failed over because its replica is out says nothing new: the replica's own
    // state decides how it comes back (an ejection for hanging again must not end at a scrape).
    if (!unreachable || health.gone == null) health.unreachableFault = unreachable;
    if (!outliers.enabled()) return;
    int failures = health.consecutiveFailures.incrementAndGet();
    if (failures >= outliers.consecutiveFailures()) eject(health, failures, what);
  }

  /**
   * Whether the replica came back (was reached again after refusing connections) less than the
   * base ejection time before {@code now}: its 503s then say it is still starting, not failing.
   * Inference servers accept connections before their model is loaded and answer 503 until it
   * is (llama.cpp's {@code Loading model}); counting those toward ejection or the breaker would
   * keep a restarted replica out for the ejection time after it is ready. Its calls still fail
   * over.
   *
   * @param health the replica
   * @param now the ticker time of the answer
   * @return whether it came back that recently
   */
  public boolean starting(ReplicaStatus health, long now) {
    long back = health.backSince;
    return back != ReplicaStatus.NEVER && now - back < outliers.baseEjectionTime().toNanos();
  }

  /**
   * The replica answered with {@code Retry-After}: it is not to be called before ticker time
   * {@code until}. A later pause extends an earlier one, never shortens it; a success does not end
   * it (answers in flight when it was asked for say nothing about it).
   *
   * @param health the replica
   * @param until ticker time before which it is not to be called
   */
  public void onRetryAfter(ReplicaStatus health, long until) {
    long current;
    do {
      current = health.pausedUntil.get();
      if (current != ReplicaStatus.NEVER && until - current <= 0) return;
    } while (!health.pausedUntil.compareAndSet(current, until));
  }

  /**
   * Connecting to the replica with {@code id} was refused, by a call, a load scrape or a health
   * check: it is taken out at once (nothing listens there: a stopped process, a pod going away),
   * and its attempts in flight that have not begun to be answered fail over, their exchanges
   * cancelled. One that goes away again within the base ejection time after coming back is also
   * ejected, for a time that grows with each ejection, so that it cannot flap in and out.
   *
   * @param id the replica
   * @param why what failed, for the event
   */
  public void refused(String id, String why) {
    ReplicaStatus h = byId.get(id);
    if (h != null) gone(h, ReplicaStatus.Gone.REFUSES_CONNECTIONS, why);
  }

  /**
   * A load scrape or a health check of the replica with {@code id} timed out (it was not
   * refused). If nothing has been answered for the replica's stall bound ({@link
   * #stallBoundNanos}), it is taken out as one that {@linkplain #refused refuses connections} is:
   * a paused or wedged process still accepts connections but answers none, and a call sent there
   * would wait out its first-byte timeout. Does nothing while the stall watchdog is off.
   *
   * @param id the replica
   * @param what what timed out, for the event
   */
  public void timedOut(String id, String what) {
    ReplicaStatus h = byId.get(id);
    if (h == null || stallNanos == 0 || h.gone != null) return;
    long silent = ticker.read() - h.lastAnswered;
    if (silent < stallBoundNanos(h)) return;
    gone(h, ReplicaStatus.Gone.STOPPED_ANSWERING, "nothing answered for "
        + Duration.ofNanos(silent).toMillis() + " ms, last: " + what);
  }

  /**
   * How long the replica with {@code id} may leave its scrapes and health checks unanswered
   * before {@link #timedOut} takes it out: the stall timeout, or four times its slowest recent
   * answer if that is longer (a replica that answers slowly when busy is not taken for a hung
   * one). A scrape that timed out asks again on a new connection with this as its timeout.
   *
   * @param id the replica
   * @return the bound in nanoseconds, 0 if the watchdog is off
   */
  public long stallBoundNanos(String id) {
    ReplicaStatus h = byId.get(id);
    return h == null || stallNanos == 0 ? stallNanos : stallBoundNanos(h);
  }

  private long stallBoundNanos(ReplicaStatus h) {
    long learnt = h.slowAnswerNanos;
    return learnt > stallNanos / STALL_MULTIPLE ? learnt * STALL_MULTIPLE : stallNanos;
  }

  private void gone(ReplicaStatus h, ReplicaStatus.Gone kind, String why) {
    if (!probed) {
      // Nothing scrapes or checks the replica, so nothing would see it answer again: it is
      // ejected for the outlier ejection time (growing if it does it again), not left out.
      if (outliers.enabled() && !h.isEjected(ticker.read())) {
        eject(h, 1, kind.state + ": " + why);
      }
      failOver(h, kind);
      return;
    }
    h.unreachableFault = true;
    if (h.gone == null) {
      h.gone = kind;
      long back = h.backSince;
      long now = ticker.read();
      emit(l -> l.onHealthChanged(new HealthChangedEvent(h.id(), false, kind.state + ": " + why)));
      if (outliers.enabled() && back != ReplicaStatus.NEVER
          && now - back < outliers.baseEjectionTime().toNanos()) {
        h.unreachableFault = false; // not undone by the next scrape that reaches it
        eject(h, 1, kind.state + " again " + Duration.ofNanos(now - back).toMillis()
            + " ms after coming back: " + why);
      }
    }
    failOver(h, h.gone == null ? kind : h.gone);
  }

  /** Fails over the attempts on {@code h} that the replica, gone as {@code out}, will not answer. */
  private static void failOver(ReplicaStatus h, ReplicaStatus.Gone out) {
    for (ReplicaStatus.InFlight attempt : h.inFlight) {
      // A replica that refuses new connections may still finish the answers it has begun; one
      // that stopped answering will send nothing more, so only what reached a caller stays.
      boolean keep = out == ReplicaStatus.Gone.REFUSES_CONNECTIONS ? attempt.answering()
          : attempt.delivered();
      if (!keep && h.inFlight.remove(attempt)) attempt.replicaLost(out.lost);
    }
  }

  /**
   * How often {@link #sweep} should run: a quarter of the stall timeout, between 10 and 250 ms.
   *
   * @return nanoseconds, 0 if the stall watchdog is off
   */
  public long sweepIntervalNanos() {
    if (stallNanos == 0) return 0;
    return Math.min(SWEEP_MAX_NANOS, Math.max(SWEEP_MIN_NANOS, stallNanos / 4));
  }

  /**
   * The stall watchdog's look at the attempts in flight: a replica on which one of this client's
   * attempts has waited for its first chunk longer than its patience, and which has delivered
   * nothing to any of this client's attempts for as long, is taken out as one whose scrapes went
   * unanswered is ({@link #timedOut}). This finds a server whose front still answers its scrapes
   * and health checks while its engine is wedged, and a hung replica when nothing scrapes it.
   *
   * <p>An attempt's patience is {@value #STALL_MULTIPLE} times what calls like it normally wait
   * ({@link ReplicaStatus.InFlight#usualWaitNanos}), and at least the stall timeout. A replica is
   * judged by the longest patience among its waiting attempts, so a long prompt's prefill, with
   * short ones queued behind it, is not taken for a hang; while any of them is of a kind not yet
   * timed often enough, the replica is not judged at all. Whole answers are never judged by (they
   * arrive only once every token is made) but fail over with the rest once their replica is
   * judged. Does nothing while the stall watchdog is off. Runs off the request path: reads each
   * replica's attempts in flight.
   */
  public void sweep() {
    if (stallNanos == 0) return;
    long now = ticker.read();
    for (ReplicaStatus h : byId.values()) {
      if (h.gone != null || h.inFlight.isEmpty() || h.isEjected(now)) continue;
      long patience = 0;
      long oldest = now;
      for (ReplicaStatus.InFlight attempt : h.inFlight) {
        if (attempt.delivered()) continue;
        long usual = attempt.usualWaitNanos();
        if (usual == ReplicaStatus.InFlight.NOT_JUDGED) continue;
        if (usual == ReplicaStatus.InFlight.UNKNOWN) {
          patience = Long.MAX_VALUE;
          break;
        }
        patience = Math.max(patience, usual > stallNanos / STALL_MULTIPLE
            ? usual * STALL_MULTIPLE : stallNanos);
        long start = attempt.startNanos();
        if (start - oldest < 0) oldest = start;
      }
      if (patience == 0 || patience == Long.MAX_VALUE) continue;
      long waited = now - oldest;
      long quiet = now - h.lastDelivered;
      if (waited >= patience && quiet >= patience) {
        gone(h, ReplicaStatus.Gone.STOPPED_ANSWERING, "a call waited "
            + Duration.ofNanos(waited).toMillis() + " ms for its first chunk and nothing was "
            + "delivered for " + Duration.ofNanos(quiet).toMillis() + " ms (patience "
            + Duration.ofNanos(patience).toMillis() + " ms)");
      }
    }
  }

  /**
   * A load scrape or a health check got an answer (any status) from the replica with {@code id},
   * {@code answerNanos} after it was sent: one that was out for refusing connections or not
   * answering takes traffic again (through its slow start, if one is configured), and one ejected
   * or behind an open breaker for being unreachable is let back now rather than when its time
   * runs out. The answer's time feeds the replica's learnt stall bound. Off the request path:
   * writes two volatile fields.
   */
  public void reached(String id, long answerNanos) {
    ReplicaStatus h = byId.get(id);
    if (h == null) return;
    long now = ticker.read();
    h.lastAnswered = now;
    long slow = h.slowAnswerNanos;
    long decayed = Math.max(answerNanos, slow - (slow >> SLOW_ANSWER_DECAY_SHIFT));
    if (decayed != slow) h.slowAnswerNanos = decayed;
    if (h.gone == null && !h.unreachableFault) return;
    if (h.unreachableFault) {
      h.unreachableFault = false;
      long until = h.ejectedUntil.get();
      if (until != ReplicaStatus.NEVER && now - until < 0
          && h.ejectedUntil.compareAndSet(until, ReplicaStatus.NEVER)) {
        int count = h.ejections;
        emit(l -> l.onEjection(new EjectionEvent(id, false, Duration.ZERO, count,
            "reachable again")));
      }
      reachedAgain.accept(id);
    }
    if (h.gone != null) {
      h.gone = null;
      h.backSince = now;
      if (slowStartNanos > 0) h.warmingSince = now;
      emit(l -> l.onHealthChanged(new HealthChangedEvent(id, true, "reachable again")));
    }
  }

  /**
   * Sets what to do when a replica out for being unreachable is reached again, beyond its status:
   * the dispatcher lets its open circuit breaker probe at once.
   */
  public void onReachedAgain(Consumer<String> action) {
    this.reachedAgain = requireNonNull(action, "action");
  }

  /**
   * Tells the tracker whether load scrapes or health checks reach the replicas (true until told
   * otherwise). Without them nothing would see a replica that refused connections or stopped
   * answering answer again, so such a replica is ejected for the outlier ejection time instead
   * of being out until it answers; with outlier detection off too, only its attempts fail over.
   *
   * @param probed whether anything but calls reaches the replicas
   */
  public void probed(boolean probed) {
    this.probed = probed;
  }

  /** Active health checking decided the replica with {@code id} is (un)healthy. */
  public void setHealthy(String id, boolean healthy, String reason) {
    ReplicaStatus h = byId.get(id);
    if (h == null || h.healthy == healthy) return;
    h.healthy = healthy;
    if (healthy && slowStartNanos > 0) h.warmingSince = ticker.read();
    emit(l -> l.onHealthChanged(new HealthChangedEvent(id, healthy, reason)));
  }

  private synchronized void eject(ReplicaStatus h, int failures, String what) {
    if (byId.get(h.id()) != h) return; // left the fleet meanwhile
    long now = ticker.read();
    if (h.isEjected(now)) return;
    int size = current.size();
    int ejected = 0;
    for (Replica r : current.replicas()) {
      ReplicaStatus other = byId.get(r.id());
      if (other != null && other.isEjected(now)) ejected++;
    }
    // gRPC's rule: eject while fewer than maxEjectionPercent are ejected; never the last one left.
    if (ejected * 100L >= (long) outliers.maxEjectionPercent() * size || ejected + 1 >= size) {
      return;
    }
    long base = outliers.baseEjectionTime().toNanos();
    if (h.lastEjectionEnd != ReplicaStatus.NEVER && h.ejections > 0) {
      long calm = Math.max(0, now - h.lastEjectionEnd);
      h.ejections = (int) Math.max(0, h.ejections - calm / base);
    }
    h.ejections++;
    long max = outliers.maxEjectionTime().toNanos();
    long duration = base > max / h.ejections ? max : base * h.ejections;
    long until = now + duration;
    h.lastEjectionEnd = until;
    h.ejectedUntil.set(until);
    h.warmingSince = ReplicaStatus.NEVER;
    h.consecutiveFailures.set(0);
    int count = h.ejections;
    String reason = failures + " consecutive failures, last: " + what;
    emit(l -> l.onEjection(new EjectionEvent(h.id(), true, Duration.ofNanos(duration), count,
        reason)));
  }

  /** Ends an ejection that expired at {@code until}; the first caller to notice wins. */
  void ejectionEnded(ReplicaStatus h, long until) {
    if (!h.ejectedUntil.compareAndSet(until, ReplicaStatus.NEVER)) return;
    // The ramp starts when the ejection ended, not when someone noticed.
    if (slowStartNanos > 0) h.warmingSince = until;
    int count = h.ejections;
    emit(l -> l.onEjection(new EjectionEvent(h.id(), false, Duration.ZERO, count,
        "ejection time elapsed")));
  }

  double share(ReplicaStatus h, long since, long now) {
    long elapsed = now - since;
    if (elapsed >= slowStartNanos) {
      // Warm: later reads take the fast path (unless a new ramp started meanwhile).
      if (h.warmingSince == since) h.warmingSince = ReplicaStatus.NEVER;
      return 1.0;
    }
    if (elapsed <= 0) return SLOW_START_MIN_SHARE;
    return Math.max(SLOW_START_MIN_SHARE, (double) elapsed / slowStartNanos);
  }

  private void emit(Consumer<RoutingListener> event) {
    if (listener != RoutingListener.NONE) event.accept(listener);
  }
}
