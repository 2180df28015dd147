package io.github.llmrouter.internal.transport;

import io.github.llmrouter.api.Ticker;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Lets one message through per interval, so that a failure that repeats (a replica's metrics that
 * stay unreadable, a listener that throws on every event) is logged when it starts and then once
 * an interval, with how many were held back, rather than on every occurrence. Lock-free.
 */
public final class RateLimitedLog {
  /** The default interval: one message a minute. */
  public static final long MINUTE_NANOS = TimeUnit.MINUTES.toNanos(1);

  private final Ticker ticker;
  private final long intervalNanos;
  /** When the next message may go through; {@link Long#MIN_VALUE} before the first. */
  private final AtomicLong nextNanos = new AtomicLong(Long.MIN_VALUE);
  private final AtomicLong suppressed = new AtomicLong();

  /**
   * @param ticker the time source
   * @param intervalNanos the least time between two messages
   */
  public RateLimitedLog(Ticker ticker, long intervalNanos) {
    this.ticker = ticker;
    this.intervalNanos = intervalNanos;
  }

  /**
   * {@return how many messages were held back since the last one let through, if this one may go
   * through now; -1 if it is to be held back}
   */
  public long permit() {
    long now = ticker.read();
    long next = nextNanos.get();
    if ((next != Long.MIN_VALUE && now - next < 0)
        || !nextNanos.compareAndSet(next, now + intervalNanos)) {
      suppressed.incrementAndGet();
      return -1;
    }
    return suppressed.getAndSet(0);
  }

  /** Forgets the interval: the next message goes through (the failure ended; a new one is news). */
  public void reset() {
    nextNanos.set(Long.MIN_VALUE);
  }
}
