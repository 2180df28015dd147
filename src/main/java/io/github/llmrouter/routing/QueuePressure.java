package io.github.llmrouter.routing;

import io.github.llmrouter.load.LoadView;
import io.github.llmrouter.load.Saturation;

/**
 * How hard a replica's reported queue and cache push back on one more request. Immutable; built
 * with each picker.
 *
 * <p>A replica's <em>pressure</em> is its effective queue lengthened by its queue wait, 0 if
 * unknown, and raised to {@code queueThreshold} if its KV cache is full by {@link
 * Saturation#isCacheFull}: a nearly full cache admits no new prompt until memory frees, so it is as good
 * as a queue at the threshold. <em>Lengthened by its queue wait</em>: when the fleet's mean recent
 * queue wait is at least {@value #MIN_MEAN_WAIT_SECONDS} s, a replica whose requests recently
 * waited longer than that mean counts its queue {@code min(}{@value #MAX_WAIT_SCALE}{@code , wait
 * / mean)} times: a waiting count alone cannot tell a slow replica, or one queued behind long
 * prompts, from the others.
 */
final class QueuePressure {
  /** The most a replica's longer queue wait can lengthen its queue: {@value}×. */
  static final double MAX_WAIT_SCALE = 4;
  /** Below this mean queue wait, seconds, waits are too short to compare: {@value}. */
  static final double MIN_MEAN_WAIT_SECONDS = 0.05;

  private final boolean reportedLoad;
  private final Saturation saturation;
  private final int queueThreshold;

  /**
   * @param reportedLoad false: every queue is unknown (rules fall back to in-flight counts)
   * @param saturation when a replica's queue or cache counts as full
   */
  QueuePressure(boolean reportedLoad, Saturation saturation) {
    this.reportedLoad = reportedLoad;
    this.saturation = reportedLoad ? saturation
        : new Saturation(saturation.queueThreshold(), Double.POSITIVE_INFINITY);
    this.queueThreshold = saturation.queueThreshold();
  }

  int threshold() {
    return queueThreshold;
  }

  /** Replica {@code i}'s effective queue, or -1 if unknown or reported load is off. */
  int queueOf(int i, LoadView load, long now) {
    return reportedLoad ? load.effectiveQueue(i, now) : -1;
  }

  /**
   * By how much replica {@code i}'s requests recently waited longer than the fleet's: {@code
   * min(4, wait / meanWait)} when above 1 and the mean wait is long enough to compare, else 1.
   */
  double waitScale(int i, long now, FleetLoad fleet) {
    if (!(fleet.meanWait(now) >= MIN_MEAN_WAIT_SECONDS)) return 1;
    double ratio = fleet.waitRatio(i, now);
    return ratio > 1 ? Math.min(MAX_WAIT_SCALE, ratio) : 1;
  }

  /** Effective queue {@code q > 0} of replica {@code i}, lengthened by its queue wait. */
  double scaledQueue(int i, int q, long now, FleetLoad fleet) {
    return q * waitScale(i, now, fleet);
  }

  /** Replica {@code i}'s pressure, given its lengthened queue (0 if unknown). */
  double pressure(int i, double queue, LoadView load, long now) {
    return queue < queueThreshold && saturation.isCacheFull(load.kvUsage(i, now))
        ? queueThreshold : queue;
  }
}
