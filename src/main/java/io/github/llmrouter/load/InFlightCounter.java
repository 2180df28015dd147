package io.github.llmrouter.load;

import java.util.concurrent.atomic.AtomicInteger;

/**
 * The number of requests a client has in flight on one replica. One counter lives as long as its
 * replica stays in the fleet, across membership snapshots, so a request that started before a
 * membership change still releases the counter it took.
 */
public final class InFlightCounter {
  private final AtomicInteger count = new AtomicInteger();
  private final AtomicInteger total;

  InFlightCounter(AtomicInteger total) {
    this.total = total;
  }

  /** Records one more request in flight. */
  public void acquire() {
    count.incrementAndGet();
    total.incrementAndGet();
  }

  /** Records the end of a request counted by {@link #acquire()}. */
  public void release() {
    count.decrementAndGet();
    total.decrementAndGet();
  }

  /** Requests currently in flight on this replica. */
  public int get() {
    return count.get();
  }
}
