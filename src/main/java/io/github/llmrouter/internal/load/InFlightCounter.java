package io.github.llmrouter.internal.load;

import io.github.llmrouter.load.LoadReport;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import org.jspecify.annotations.Nullable;

/**
 * The number of requests a client has in flight on one replica, with the replica's latest load
 * report. One counter lives as long as its replica stays in the fleet, across membership
 * snapshots, so a request that started before a membership change still releases the counter it
 * took, and a report survives the change.
 */
public final class InFlightCounter {
  // Fields updated through VarHandles rather than Atomic* objects: one pointer hop less on the
  // routing hot path, which reads them for every replica it examines.
  private static final VarHandle COUNT;
  private static final VarHandle DISPATCHED;

  static {
    try {
      MethodHandles.Lookup l = MethodHandles.lookup();
      COUNT = l.findVarHandle(InFlightCounter.class, "count", int.class);
      DISPATCHED = l.findVarHandle(InFlightCounter.class, "dispatched", long.class);
    } catch (ReflectiveOperationException e) {
      throw new ExceptionInInitializerError(e);
    }
  }

  private volatile int count;
  private volatile long dispatched;
  private final LocalLoad.Shared shared;
  /** The latest report, swapped whole: readers see one consistent snapshot with a plain load. */
  private volatile @Nullable Published report;

  InFlightCounter(LocalLoad.Shared shared) {
    this.shared = shared;
  }

  /** Records one more request in flight. */
  public void acquire() {
    DISPATCHED.getAndAdd(this, 1L);
    COUNT.getAndAdd(this, 1);
    shared.total.incrementAndGet();
  }

  /** Records the end of a request counted by {@link #acquire()}. */
  public void release() {
    COUNT.getAndAdd(this, -1);
    shared.total.decrementAndGet();
    Runnable listener = shared.onRelease;
    if (listener != null) listener.run();
  }

  /** {@return the requests this client has in flight on the replica now, at least 0} */
  public int get() {
    return count;
  }

  /** Requests ever dispatched through this counter. */
  long dispatched() {
    return dispatched;
  }

  @Nullable Published report() {
    return report;
  }

  /**
   * Publishes {@code r}, remembering the counts it is relative to. A report carried on a
   * response is taken while that response's own request is still counted here, but that request
   * is running on the replica, not waiting: it is left out of the baseline, so that its
   * completion does not count against the reported queue.
   *
   * <p>A report with queue-time totals also updates the replica's recent queue wait (see {@link
   * QueueWait}); one without them (a response header) carries the estimate forward, as it does
   * the KV capacity, which only scrapes carry.
   */
  void publish(LoadReport r, boolean fromResponse) {
    long d = dispatched;
    int inFlight = count;
    if (fromResponse && inFlight > 0) {
      inFlight--;
      d--;
    }
    Published previous = report;
    QueueWait wait = QueueWait.next(previous == null ? null : previous.queueWait(), r);
    long capacity = r.kvCapacityTokens() >= 0 || previous == null ? r.kvCapacityTokens()
        : previous.kvCapacityTokens();
    report = new Published(r, r.waiting(), r.running(), r.awaitingFirstToken(), r.kvUsage(),
        wait.seconds(), r.receivedNanos(), inFlight, d, wait, capacity,
        concurrency(previous, r));
  }

  /**
   * How many requests the replica runs at once, as its reports have shown: the running batch of a
   * report that, like the one before it, has requests waiting while no more run than before (the
   * replica stayed full), raised by any later report of more running; -1 until then. A queue seen
   * once may be a burst caught before the engine's next step admits it.
   */
  static int concurrency(@Nullable Published previous, LoadReport r) {
    int known = previous == null ? -1 : previous.concurrency();
    if (previous != null && r.waiting() > 0 && previous.waiting() > 0 && r.running() > 0
        && r.running() <= previous.running()) {
      return r.running();
    }
    return known > 0 ? Math.max(known, r.running()) : -1;
  }

  /**
   * A report and this client's counts when it was published; the fields the routing decision
   * reads are copied out of the report so that reading them is one hop.
   */
  record Published(LoadReport report, int waiting, int running, int awaitingFirstToken,
      double kvUsage,
      double queueWaitSeconds, long receivedNanos, int inFlightAtReport, long dispatchedAtReport,
      QueueWait queueWait, long kvCapacityTokens, int concurrency) {}
}
