package io.github.llmrouter.routing;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * What one client has learnt about one replica, kept across membership snapshots while the
 * replica stays in the fleet: when the prefill work this client sent it will be done, how much of
 * its KV memory this client's unfinished requests hold, and how far its two ring predictions can
 * be trusted.
 * Thread-safe and lock-free: the prefill clock is updated by compare-and-set, the learnt values are
 * single volatile fields where a lost update between two concurrent samples costs one sample.
 */
final class ReplicaState {
  private static final VarHandle CLOCK;

  static {
    try {
      CLOCK = MethodHandles.lookup().findVarHandle(ReplicaState.class, "wholeDone", long.class);
    } catch (ReflectiveOperationException e) {
      throw new ExceptionInInitializerError(e);
    }
  }

  /** Where the confidences start: a ring prediction is as likely right as wrong. */
  static final double INITIAL_CONFIDENCE = 0.5;
  /** The least a confidence falls to, so that a replica that lost its cache is still tried. */
  static final double MIN_CONFIDENCE = 0.1;
  /** Weight of one sample in a confidence: {@value}. */
  static final double CONFIDENCE_STEP = 0.1;

  /** The replica's bit in the {@link PrefixIndex}, or -1 in fleets with more replicas than bits. */
  final int slot;
  /**
   * Nanoseconds of prefill of this client's streamed requests on the replica that have not
   * produced their first token: exact, since each stream reports its first token.
   */
  private final AtomicLong streamedPrefill = new AtomicLong();
  /**
   * When the prefill of this client's requests answered whole is expected to be done, in ticker
   * nanos: their first token goes unseen, so this clock drains with time.
   */
  private volatile long wholeDone;
  /** This client's requests sent to the replica that have not produced a first token yet. */
  final AtomicInteger awaiting = new AtomicInteger();
  /**
   * Prompt tokens of this client's requests on the replica that have not ended: the KV memory they
   * hold there until they do.
   */
  final AtomicLong activeTokens = new AtomicLong();

  /** Fraction of a conversation's earlier turns its ring home turned out to hold. */
  volatile double conversationConfidence = INITIAL_CONFIDENCE;
  /** Fraction of a shared system prompt its ring home turned out to hold. */
  volatile double systemConfidence = INITIAL_CONFIDENCE;

  ReplicaState(int slot) {
    this.slot = slot;
    this.wholeDone = Long.MIN_VALUE;
  }

  /** Seconds of this client's prefill work still ahead on the replica at {@code now}. */
  double ownWait(long now) {
    long whole = wholeDone;
    return (streamedPrefill.get() + (whole > now ? whole - now : 0)) * 1e-9;
  }

  /**
   * Adds {@code nanos} of prefill sent at {@code now}. A streamed request's stays until {@link
   * #started}; a whole answer's is queued behind the earlier ones and drains with time.
   */
  void add(long now, long nanos, boolean streamed) {
    awaiting.incrementAndGet();
    if (streamed) {
      streamedPrefill.addAndGet(nanos);
      return;
    }
    while (true) {
      long current = wholeDone;
      if (CLOCK.compareAndSet(this, current, Math.max(current, now) + nanos)) return;
    }
  }

  /**
   * A request sent with {@link #add} produced its first token, or never will, as known at {@code
   * now}. A whole answer that arrived (or failed) has no prefill left: the work queued behind it
   * moves up by its {@code nanos}, never to before {@code now}.
   */
  void started(long now, long nanos, boolean streamed) {
    awaiting.decrementAndGet();
    if (streamed) {
      streamedPrefill.addAndGet(-nanos);
      return;
    }
    while (true) {
      long current = wholeDone;
      if (current <= now) return; // drained already
      if (CLOCK.compareAndSet(this, current, Math.max(now, current - nanos))) return;
    }
  }

  /** Adds one sample in [0, 1] to a confidence, keeping it at least {@value #MIN_CONFIDENCE}. */
  static double learn(double confidence, double sample) {
    double next = confidence + CONFIDENCE_STEP * (sample - confidence);
    return Math.max(MIN_CONFIDENCE, Math.min(1, next));
  }
}
