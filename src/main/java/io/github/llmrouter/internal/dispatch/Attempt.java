package io.github.llmrouter.internal.dispatch;

import io.github.llmrouter.api.LlmException;
import io.github.llmrouter.load.InFlightCounter;
import io.github.llmrouter.replica.Replica;
import io.github.llmrouter.routing.RoutedAttempt;
import org.jspecify.annotations.Nullable;

/**
 * One attempt of a call: the replica it went to (and that replica's index in the call's {@link
 * RoutingTable}), the in-flight count it holds, when it started, whether it holds a circuit
 * breaker's permission, and the policy's account of it ({@link #routed}, told what becomes of it
 * through {@link Feedback}). Its outcome is recorded once. Owned by one {@link AttemptLoop}, whose steps
 * run one at a time: not thread-safe.
 */
final class Attempt {
  final int index;
  final Replica replica;
  final InFlightCounter counter;
  private final long startNanos;
  private final boolean permitted;
  /** The policy's account of the attempt, once it is sent; {@link RoutedAttempt#IGNORED} before. */
  RoutedAttempt routed = RoutedAttempt.IGNORED;
  /** Whether the outcome is yet to be recorded. */
  private boolean open = true;

  Attempt(int index, Replica replica, InFlightCounter counter, long startNanos,
      boolean permitted) {
    this.index = index;
    this.replica = replica;
    this.counter = counter;
    this.startNanos = startNanos;
    this.permitted = permitted;
  }

  /** How long the attempt ran until {@code now}, or 0 if its outcome is already recorded. */
  long durationNanos(long now) {
    return open ? now - startNanos : 0;
  }

  /**
   * Records the outcome, unless already recorded: it feeds outlier detection and the replica's
   * breaker.
   *
   * @param failure null for a success
   */
  void record(Eligibility eligibility, long now, @Nullable LlmException failure) {
    if (!open) return;
    open = false;
    eligibility.record(index, permitted, now, now - startNanos, failure);
  }

  /** The outcome is unknown (the caller cancelled): returns the breaker's permission. */
  void abandon(Eligibility eligibility, long now) {
    if (!open) return;
    open = false;
    eligibility.record(index, permitted, now, 0, new LlmException("cancelled by the caller"));
  }
}
