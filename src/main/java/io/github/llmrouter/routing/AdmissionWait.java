package io.github.llmrouter.routing;

import io.github.llmrouter.load.LoadView;

/**
 * How long a replica makes a new request wait before it can run it, beyond the prefill queued
 * ahead: for KV memory to hold its prompt, and for a place in the running batch. Both wait for
 * running requests to end, their ends taken as spread evenly over one typical run. Stateless;
 * reads the replica's load as the caller passes it.
 */
final class AdmissionWait {
  private AdmissionWait() {}

  /** The longer of {@link #forMemory} and {@link #forPlace}: the two are waits for the same ends. */
  static double of(LoadView load, int i, long now, double tokens, long capacity,
      ReplicaState own, double run) {
    return Math.max(forMemory(load, i, now, tokens, capacity, own, run),
        forPlace(load, i, now, run));
  }

  /**
   * Seconds until replica {@code i}'s KV memory has room for a prompt of {@code tokens}: none while
   * it fits beside what its running requests hold (every client's, from its last report, drained by
   * the report's age over one typical {@code run}, or the prompt tokens of this client's own
   * unfinished requests there ({@code own}), if more), else the time for the requests holding the
   * excess to end. None when the {@code capacity} is unknown.
   */
  static double forMemory(LoadView load, int i, long now, double tokens, long capacity,
      ReplicaState own, double run) {
    if (capacity <= 0) return 0;
    double usage = load.kvUsage(i, now);
    // What the report saw running ends within about one run: it drains with the report's age.
    double reported = Double.isNaN(usage) ? 0
        : usage * capacity * Math.max(0, 1 - load.reportAgeNanos(i, now) * 1e-9 / run);
    double active = Math.max(own.activeTokens.get(), reported);
    double excess = active + tokens - capacity;
    if (!(excess > 0)) return 0;
    return run * Math.min(1, excess / Math.max(1, active));
  }

  /**
   * Seconds until replica {@code i} can run one more request, where its reports have shown how
   * many it runs at once ({@link LoadView#concurrency}): none while fewer run and wait there,
   * else the time for as many as are ahead of it past that limit to end. Those there are every
   * client's from its last report (with this client's own sent since), whose ends the report's age
   * has brought nearer, or this client's own in flight if more.
   */
  static double forPlace(LoadView load, int i, long now, double run) {
    int limit = load.concurrency(i, now);
    if (limit <= 0) return 0;
    double perEnd = run / limit;
    int own = load.inFlight(i);
    int reported = load.reportedLoad(i, now);
    double fromReport = (reported + 1 - limit) * perEnd - load.reportAgeNanos(i, now) * 1e-9;
    return Math.max(0, Math.max((own + 1 - limit) * perEnd, fromReport));
  }
}
