package io.github.llmrouter.routing;

import io.github.llmrouter.load.LoadView;

/**
 * The fleet's reported load as one decision sees it: its reported load per unit of weight and the
 * mean recent queue wait, surveyed at most once per decision and only if a rule asks. Read from
 * the view when it keeps these sums ({@code LocalLoad} does, as reports arrive), else added up in
 * one pass over the replicas. One decision owns it; not thread-safe.
 */
final class FleetLoad {
  private final LoadView load;
  private final double[] weights;
  private boolean surveyed;
  private double loadPerWeight;
  private double meanWait;
  /** Whether the view keeps the fleet's sums (then it also has each replica's wait ratio). */
  private boolean fromView;

  FleetLoad(LoadView load, double[] weights) {
    this.load = load;
    this.weights = weights;
  }

  /**
   * The fleet's reported load per unit of weight: effective queue plus running batch over the
   * replicas that report both, plus the request being placed, over their weight; 0 if none does.
   */
  double loadPerWeight(long now) {
    survey(now);
    return loadPerWeight;
  }

  /** The mean recent queue wait, seconds, over the replicas that have one; NaN unless two do. */
  double meanWait(long now) {
    survey(now);
    return meanWait;
  }

  /**
   * How much longer than the fleet's mean replica {@code i}'s requests recently waited; NaN when
   * unknown.
   */
  double waitRatio(int i, long now) {
    survey(now);
    return fromView ? load.queueWaitRatio(i, now) : load.queueWait(i, now) / meanWait;
  }

  private void survey(long now) {
    if (surveyed) return;
    surveyed = true;
    double perWeight = load.reportedLoadPerWeight(now);
    if (!Double.isNaN(perWeight)) {
      loadPerWeight = perWeight;
      meanWait = load.meanQueueWait(now);
      fromView = true;
      return;
    }
    long total = 0;
    double weight = 0;
    double waits = 0;
    int waited = 0;
    for (int i = 0; i < weights.length; i++) {
      double wait = load.queueWait(i, now);
      if (!Double.isNaN(wait)) {
        waits += wait;
        waited++;
      }
      int reported = load.reportedLoad(i, now);
      if (reported < 0) continue;
      total += reported;
      weight += weights[i];
    }
    loadPerWeight = weight > 0 ? (total + 1) / weight : 0;
    meanWait = waited >= 2 ? waits / waited : Double.NaN;
  }
}
