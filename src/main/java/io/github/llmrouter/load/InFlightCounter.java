package io.github.llmrouter.load;

import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.jspecify.annotations.Nullable;

/**
 * The number of requests a client has in flight on one replica, with the replica's latest load
 * report. One counter lives as long as its replica stays in the fleet, across membership
 * snapshots, so a request that started before a membership change still releases the counter it
 * took, and a report survives the change.
 */
public final class InFlightCounter {
  private final AtomicInteger count = new AtomicInteger();
  private final AtomicLong dispatched = new AtomicLong();
  private final LocalLoad.Shared shared;
  /** The latest report, swapped whole: readers see one consistent snapshot with a plain load. */
  private volatile @Nullable Published report;

  InFlightCounter(LocalLoad.Shared shared) {
    this.shared = shared;
  }

  /** Records one more request in flight. */
  public void acquire() {
    dispatched.incrementAndGet();
    count.incrementAndGet();
    shared.total.incrementAndGet();
  }

  /** Records the end of a request counted by {@link #acquire()}. */
  public void release() {
    count.decrementAndGet();
    shared.total.decrementAndGet();
    Runnable listener = shared.onRelease;
    if (listener != null) listener.run();
  }

  /** Requests currently in flight on this replica. */
  public int get() {
    return count.get();
  }

  /** Requests ever dispatched through this counter. */
  long dispatched() {
    return dispatched.get();
  }

  @Nullable Published report() {
    return report;
  }

  /**
   * Publishes {@code r}, remembering the counts it is relative to. A report carried on a
   * response is taken while that response's own request is still counted here, but that request
   * is running on the replica, not waiting: it is left out of the baseline, so that its
   * completion does not count against the reported queue.
   */
  void publish(LoadReport r, boolean fromResponse) {
    long d = dispatched.get();
    int inFlight = count.get();
    if (fromResponse && inFlight > 0) {
      inFlight--;
      d--;
    }
    report = new Published(r, inFlight, d);
  }

  /** A report and this client's counts when it was published. */
  record Published(LoadReport report, int inFlightAtReport, long dispatchedAtReport) {}
}
