package io.github.llmrouter.internal.health;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.jspecify.annotations.Nullable;

/**
 * What decides whether one replica may take traffic now: whether active health checks pass,
 * whether outlier detection has ejected it, whether it asked to be left alone for a while ({@code
 * Retry-After}), and how far along its slow start is. One object per replica id, kept across
 * membership snapshots by its {@link StatusTracker}. Thread-safe and read on the request path:
 * every read is a plain volatile read; every write comes from a failure, a health check or an
 * expiry.
 */
public final class ReplicaStatus {
  static final long NEVER = Long.MIN_VALUE;
  /** {@link #lastDelivered} moves only by more than this: a millisecond. */
  private static final long DELIVERY_RESOLUTION_NANOS = 1_000_000;

  private final String id;
  private final StatusTracker tracker;
  volatile boolean healthy = true;
  final AtomicLong ejectedUntil = new AtomicLong(NEVER);
  volatile long warmingSince = NEVER;
  /** Ticker time until which the replica asked not to be called (Retry-After), or NEVER. */
  final AtomicLong pausedUntil = new AtomicLong(NEVER);
  final AtomicInteger consecutiveFailures = new AtomicInteger();
  /**
   * Why the replica is out until a scrape or a health check gets an answer from it (it refuses
   * connections, or it stopped answering), or null while it answers.
   */
  volatile @Nullable Gone gone;
  /** Ticker time of the last answer to a scrape or a health check (or of joining). */
  volatile long lastAnswered;
  /**
   * The slowest recent answer to a scrape or a health check, in nanoseconds, decaying: what this
   * replica "normally" takes at worst, from which its stall bound is learnt.
   */
  volatile long slowAnswerNanos;
  /**
   * Ticker time when one of this client's attempts on the replica last got its answer (a whole
   * answer, or a stream's first chunk), or of joining; to within a millisecond (it is written
   * only when it moves by more, so that the request path keeps its cache line shared).
   */
  volatile long lastDelivered;
  /** The last fault recorded was a failure to reach the replica at all. */
  volatile boolean unreachableFault;
  /** When a scrape or health check last found the replica back after refusing, or NEVER. */
  volatile long backSince = NEVER;
  /** The attempts in flight on the replica: those not yet answered fail over if it goes away. */
  final Set<InFlight> inFlight = ConcurrentHashMap.newKeySet();
  // Guarded by the tracker: ejection bookkeeping, touched only when ejecting.
  int ejections;
  long lastEjectionEnd = NEVER;

  ReplicaStatus(String id, StatusTracker tracker, long now) {
    this.id = id;
    this.tracker = tracker;
    this.lastAnswered = now;
    this.lastDelivered = now;
  }

  /** Why a replica is out until it is heard from again. */
  enum Gone {
    /** Connecting to it was refused: nothing listens there. */
    REFUSES_CONNECTIONS("refuses connections", "stopped accepting connections"),
    /**
     * Connections are accepted but nothing is answered (a paused or wedged process, a path that
     * drops packets).
     */
    STOPPED_ANSWERING("stopped answering", "stopped answering");

    final String state;
    final String lost;

    Gone(String state, String lost) {
      this.state = state;
      this.lost = lost;
    }
  }

  /** {@return the replica's id} */
  public String id() {
    return id;
  }

  /**
   * An attempt in flight on the replica, as the replica's status sees it: whether its answer has
   * begun, whether it has delivered anything, how long calls like it normally wait, and how to
   * abandon it.
   */
  public interface InFlight {
    /** Returned by {@link #usualWaitNanos} for an attempt the stall watchdog does not judge by. */
    long NOT_JUDGED = -1;
    /** Returned by {@link #usualWaitNanos} when calls like it have not been timed often enough. */
    long UNKNOWN = -2;

    /** {@return whether any of the answer (its status line and headers) has arrived} */
    boolean answering();

    /**
     * {@return whether the attempt has delivered something its caller could see: a stream's first
     * chunk (a stream's headers alone do not count: some servers send them before any token)}
     */
    boolean delivered();

    /** {@return the ticker time when the attempt was sent} */
    long startNanos();

    /**
     * How long calls like this one (the same operation, streamed, with a prompt of similar size)
     * normally wait for their first chunk: a high percentile of what this client has seen.
     *
     * @return nanoseconds; {@link #NOT_JUDGED} for an attempt whose wait says nothing about its
     *     replica (a whole answer, which arrives only once every token is made); {@link #UNKNOWN}
     *     while too few calls like it were timed
     */
    long usualWaitNanos();

    /**
     * The replica stopped accepting connections, or stopped answering, before this attempt got
     * any of its answer: cancel the exchange so that the attempt fails over. Called once, from
     * whichever thread noticed.
     *
     * @param why what happened to the replica, e.g. {@code "stopped answering"}
     */
    void replicaLost(String why);
  }

  /** Tracks {@code attempt} while it is in flight on the replica. */
  public void track(InFlight attempt) {
    inFlight.add(attempt);
  }

  /**
   * One of this client's attempts on the replica got its answer at ticker time {@code now}: the
   * replica is making progress.
   */
  public void delivered(long now) {
    if (now - lastDelivered > DELIVERY_RESOLUTION_NANOS) lastDelivered = now;
  }

  /** Stops tracking {@code attempt}: it has ended. */
  public void untrack(InFlight attempt) {
    inFlight.remove(attempt);
  }

  /**
   * {@return whether the replica is out until it is heard from: a call, a scrape or a health check
   * could not connect to it, or its scrapes and health checks went unanswered past its stall
   * bound, and no scrape or health check has got an answer since}
   */
  public boolean isGone() {
    return gone != null;
  }

  /**
   * {@return whether the replica is out, or was last at fault, for not being reachable: only an
   * answer on a new connection can bring it back (a stopping server may still answer on
   * connections it had open while refusing new ones, a paused one has none that will answer)}
   */
  public boolean awaitsReach() {
    return gone != null || unreachableFault;
  }

  /** {@return whether active health checks pass (true when none are configured)} */
  public boolean isHealthy() {
    return healthy;
  }

  /**
   * Whether outlier detection has the replica ejected at ticker time {@code now}. The first reader
   * to see an ejection expire ends it (and reports it), so no timer is needed.
   *
   * @param now a reading of the client's ticker
   * @return true while the ejection lasts
   */
  public boolean isEjected(long now) {
    long until = ejectedUntil.get();
    if (until == NEVER) return false;
    if (now - until < 0) return true;
    tracker.ejectionEnded(this, until);
    return false;
  }

  /**
   * Whether the replica asked, with {@code Retry-After}, not to be called now.
   *
   * @param now the ticker time
   * @return true while the pause lasts
   */
  public boolean isPaused(long now) {
    long until = pausedUntil.get();
    return until != NEVER && now - until < 0;
  }

  /**
   * When the replica's {@code Retry-After} pause ends.
   *
   * @return the ticker time until which it asked not to be called, in the past once the pause is
   *     over, or {@link Long#MIN_VALUE} if it never asked
   */
  public long pausedUntil() {
    return pausedUntil.get();
  }

  /**
   * The share of keys the replica accepts at ticker time {@code now}: 1.0 once warm, ramping
   * linearly from {@link StatusTracker#SLOW_START_MIN_SHARE} over the slow-start window after it
   * joined or came back.
   *
   * @param now a reading of the client's ticker
   * @return the share, in (0, 1]
   */
  public double slowStartShare(long now) {
    long since = warmingSince;
    if (since == NEVER) return 1.0;
    return tracker.share(this, since, now);
  }

  /** {@return the consecutive replica failures since the last success or ejection} */
  public int consecutiveFailures() {
    return consecutiveFailures.get();
  }

  @Override
  public String toString() {
    return "ReplicaStatus{id=" + id + ", healthy=" + healthy + ", ejected="
        + (ejectedUntil.get() != NEVER) + ", paused=" + (pausedUntil.get() != NEVER)
        + ", warming=" + (warmingSince != NEVER) + ", gone=" + gone + '}';
  }
}
