package io.github.llmrouter.internal.dispatch;

import io.github.llmrouter.api.Ticker;
import io.github.llmrouter.dispatch.RetryPolicy;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Bounds retries to a fraction of calls (see {@link RetryPolicy}). Token counts are kept in
 * thousandths so that a ratio such as 0.2 earns exactly 200 per call; lock-free on the common
 * path, a small lock only when the ratio-earned tokens are spent and the per-second reserve is
 * consulted.
 */
final class RetryBudget {
  private static final long TOKEN = 1000;

  private final long earnedPerCall;
  private final long maxSaved;
  private final AtomicLong balance = new AtomicLong();
  private final Ticker ticker;
  private final long reserveCapacity;
  private final long nanosPerReserveToken;
  private long reserve;
  private long reserveRefilledAt;

  RetryBudget(RetryPolicy policy, Ticker ticker) {
    this(policy.budgetRatio(), policy.minRetriesPerSecond(), ticker);
  }

  /**
   * A budget that earns {@code ratio} of a token per call and allows {@code minPerSecond} more
   * regardless (0: none).
   */
  RetryBudget(double ratio, int minPerSecond, Ticker ticker) {
    this.earnedPerCall = Math.round(ratio * TOKEN);
    this.maxSaved = RetryPolicy.MAX_SAVED_TOKENS * TOKEN;
    this.ticker = ticker;
    this.reserveCapacity = minPerSecond;
    this.nanosPerReserveToken = reserveCapacity == 0 ? Long.MAX_VALUE : 1_000_000_000L / reserveCapacity;
    this.reserve = reserveCapacity;
    this.reserveRefilledAt = ticker.read();
  }

  /** A call started: earn its share of a retry. */
  void onCall() {
    if (earnedPerCall == 0) return;
    long b;
    do {
      b = balance.get();
      if (b >= maxSaved) return;
    } while (!balance.compareAndSet(b, Math.min(maxSaved, b + earnedPerCall)));
  }

  /** Spends one retry if the budget allows it. */
  boolean tryRetry() {
    long b;
    while ((b = balance.get()) >= TOKEN) {
      if (balance.compareAndSet(b, b - TOKEN)) return true;
    }
    return tryReserve();
  }

  private synchronized boolean tryReserve() {
    if (reserveCapacity == 0) return false;
    long now = ticker.read();
    long elapsed = now - reserveRefilledAt;
    if (elapsed >= nanosPerReserveToken) {
      long tokens = elapsed / nanosPerReserveToken;
      reserve = Math.min(reserveCapacity, reserve + tokens);
      reserveRefilledAt = reserve == reserveCapacity ? now : reserveRefilledAt + tokens * nanosPerReserveToken;
    }
    if (reserve > 0) {
      reserve--;
      return true;
    }
    return false;
  }
}
