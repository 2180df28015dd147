package io.github.llmrouter.load;

/**
 * What a routing policy knows about the load on the replicas of one {@code ReplicaSet} snapshot,
 * indexed like the snapshot.
 *
 * <p>Implementations are read on the routing hot path: every method must be non-blocking and
 * allocation-free. The client's own view counts the requests this client has in flight and
 * combines them with the replicas' own load reports; the simulator supplies one in virtual time. Views that know nothing about reports need only the two in-flight methods.
 *
 * @since 0.2.0
 */
public interface LoadView {
  /**
   * Requests this client has in flight on the replica at {@code index}.
   *
   * @param index the replica's position in the snapshot this view describes
   * @return the count, at least 0
   */
  int inFlight(int index);

  /**
   * This client's requests in flight on the whole fleet: the sum of {@link #inFlight(int)}, plus,
   * just after a membership change, requests still running on replicas that have left.
   *
   * @return the count, at least 0
   */
  long totalInFlight();

  /**
   * The replica's effective queue: the waiting requests it last reported, plus the requests this
   * client dispatched to it since that report, minus those that completed since, never below 0.
   * -1 when unknown: no report, or the last one is older than the staleness limit. Then a policy
   * falls back to {@link #inFlight(int)}.
   *
   * @param index the replica's position in the snapshot this view describes
   * @return the effective queue, or -1 when unknown
   */
  default int effectiveQueue(int index) {
    return -1;
  }

  /**
   * The fraction of the replica's KV cache in use, in [0, 1], from a fresh report; NaN when
   * unknown.
   *
   * @param index the replica's position in the snapshot this view describes
   * @return the KV-cache usage in [0, 1], or NaN when unknown
   */
  default double kvUsage(int index) {
    return Double.NaN;
  }

  /**
   * Tokens the replica's KV cache holds when full, from a fresh report; -1 when unknown (engines
   * that do not report it are listed in {@link EngineDialect}).
   *
   * @param index the replica's position in the snapshot this view describes
   * @return the KV-cache capacity in tokens, or -1 when unknown
   */
  default long kvCapacityTokens(int index) {
    return -1;
  }

  /**
   * Requests in the replica's running batch, from a fresh report; -1 when unknown. With {@link
   * #effectiveQueue(int, long)} it is the replica's whole load, every client's requests included.
   *
   * @param index the replica's position in the snapshot this view describes
   * @param now the time reports are aged against, from {@link #now()}
   * @return the running requests, or -1 when unknown
   */
  default int running(int index, long now) {
    return -1;
  }

  /**
   * How many requests the replica runs at once, as its reports have shown: its running batch when
   * two reports in a row showed requests waiting and no more running (it stayed full), raised by
   * any later report of more running. Past it, a request waits for a running one to end: an
   * engine's slots (llama.cpp), its {@code max_num_seqs}, or its KV memory, whichever binds. -1
   * while unknown (no fresh report, or none has shown it full).
   *
   * @param index the replica's position in the snapshot this view describes
   * @param now the time reports are aged against, from {@link #now()}
   * @return the requests it runs at once, or -1 when unknown
   */
  default int concurrency(int index, long now) {
    return -1;
  }

  /**
   * Requests on the replica that had not produced their first token when it last reported
   * (waiting, or running but still in prefill), every client's requests included, from a fresh
   * report; -1 when unknown. See {@link #reportAgeNanos} for how old that is.
   *
   * @param index the replica's position in the snapshot this view describes
   * @param now the time reports are aged against, from {@link #now()}
   * @return the requests awaiting their first token, or -1 when unknown
   */
  default int awaitingFirstToken(int index, long now) {
    return -1;
  }

  /**
   * How long ago, at {@code now}, the replica's fresh report arrived.
   *
   * @param index the replica's position in the snapshot this view describes
   * @param now the time reports are aged against, from {@link #now()}
   * @return the report's age in nanoseconds, or -1 with no fresh report
   */
  default long reportAgeNanos(int index, long now) {
    return -1;
  }

  /**
   * The replica's whole reported load, {@link #effectiveQueue(int, long)} plus {@link
   * #running(int, long)}, or -1 unless both are known. Views should override it to read their
   * report once.
   *
   * @param index the replica's position in the snapshot this view describes
   * @param now the time reports are aged against, from {@link #now()}
   * @return waiting plus running requests, or -1 when unknown
   */
  default int reportedLoad(int index, long now) {
    int q = effectiveQueue(index, now);
    if (q < 0) return -1;
    int running = running(index, now);
    return running < 0 ? -1 : q + running;
  }

  /**
   * The fleet's reported load per unit of weight, counting the request being placed: {@code (Σ
   * reportedLoad + 1) / Σ weight} over the replicas whose {@link #reportedLoad(int, long)} is
   * known; NaN when the view does not keep this sum, and the policy adds it up itself.
   *
   * @param now the time reports are aged against, from {@link #now()}
   * @return the reported load per unit of weight, or NaN
   */
  default double reportedLoadPerWeight(long now) {
    return Double.NaN;
  }

  /**
   * The mean time requests recently waited in the replica's queue before it admitted them, in
   * seconds, from its queue-time histogram over successive fresh reports; NaN when unknown. Two
   * replicas with the same queue wait differently if one is slower or its queued prompts are
   * longer; this is what tells them apart.
   *
   * @param index the replica's position in the snapshot this view describes
   * @param now the time reports are aged against, from {@link #now()}
   * @return the mean queue time in seconds, or NaN when unknown
   */
  default double queueWait(int index, long now) {
    return Double.NaN;
  }

  /**
   * The mean of {@link #queueWait(int, long)} over the replicas that have one, NaN when fewer than
   * two do or the view does not keep it (the policy then computes it alongside {@link
   * #reportedLoadPerWeight}).
   *
   * @param now the time reports are aged against, from {@link #now()}
   * @return the fleet's mean queue time in seconds, or NaN
   */
  default double meanQueueWait(long now) {
    return Double.NaN;
  }

  /**
   * {@link #queueWait(int, long)} over {@link #meanQueueWait(long)}: how much longer than the
   * fleet's mean the replica's requests recently waited; NaN when either is unknown.
   *
   * @param index the replica's position in the snapshot this view describes
   * @param now the time reports are aged against, from {@link #now()}
   * @return the ratio, or NaN when unknown
   */
  default double queueWaitRatio(int index, long now) {
    return queueWait(index, now) / meanQueueWait(now);
  }

  /**
   * The time reports are aged against, for policies that examine many replicas in one decision:
   * read it once, then call {@link #effectiveQueue(int, long)} and {@link #kvUsage(int, long)}.
   * 0 for views that do not age reports.
   *
   * @return a reading of the client's ticker, or 0
   */
  default long now() {
    return 0;
  }

  /**
   * The current time on the client's ticker, in nanoseconds, for policies that keep time of their
   * own (how long ago they sent a request somewhere); unlike {@link #now()} always read.
   *
   * @return a reading of the client's ticker
   */
  default long nanoTime() {
    return System.nanoTime();
  }

  /**
   * {@link #effectiveQueue(int)} with the staleness judged at {@code now} (from {@link #now()}).
   *
   * @param index the replica's position in the snapshot this view describes
   * @param now the time reports are aged against, from {@link #now()}
   * @return the effective queue, or -1 when unknown or stale
   */
  default int effectiveQueue(int index, long now) {
    return effectiveQueue(index);
  }

  /**
   * {@link #kvUsage(int)} with the staleness judged at {@code now} (from {@link #now()}).
   *
   * @param index the replica's position in the snapshot this view describes
   * @param now the time reports are aged against, from {@link #now()}
   * @return the KV-cache usage in [0, 1], or NaN when unknown or stale
   */
  default double kvUsage(int index, long now) {
    return kvUsage(index);
  }

  /**
   * {@link #kvCapacityTokens(int)} with the staleness judged at {@code now} (from {@link #now()}).
   *
   * @param index the replica's position in the snapshot this view describes
   * @param now the time reports are aged against, from {@link #now()}
   * @return the KV-cache capacity in tokens, or -1 when unknown or stale
   */
  default long kvCapacityTokens(int index, long now) {
    return kvCapacityTokens(index);
  }
}
