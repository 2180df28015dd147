package io.github.llmrouter.routing;

import io.github.llmrouter.load.LoadView;

/**
 * Bounded load (the "BL" of CHWBL): whether a replica may take one more request. A replica with a
 * fresh report of its queue and running batch is bounded by its share of the fleet's reported
 * load, every client's requests included: {@code effectiveQueue + running ≤ reportedFactor ×
 * weight × loadPerWeight + slack}; any other replica by its share of this client's requests in
 * flight: {@code inFlight ≤ factor × (total + 1) × weight / Σweight + slack}. Immutable; built
 * with each picker.
 */
final class LoadBound {
  /** factor × weight(i) / Σweight: multiplied by (total + 1) gives replica i's bound. */
  private final double[] inFlightShare;
  /** reportedFactor × weight(i): times the fleet's reported load per weight, replica i's bound. */
  private final double[] reportedShare;
  private final double slack;

  LoadBound(double[] weights, double totalWeight, double factor, double reportedFactor,
      double slack) {
    this.inFlightShare = new double[weights.length];
    this.reportedShare = new double[weights.length];
    for (int i = 0; i < weights.length; i++) {
      inFlightShare[i] = factor * weights[i] / totalWeight;
      reportedShare[i] = reportedFactor * weights[i];
    }
    this.slack = slack;
  }

  /**
   * Whether replica {@code i}, whose effective queue is {@code q} (-1 unknown), is within its
   * bound; {@code totalPlusOne} is this client's requests in flight plus the one being placed.
   */
  boolean admits(int i, int q, double totalPlusOne, LoadView load, long now, FleetLoad fleet) {
    if (q >= 0) {
      int running = load.running(i, now);
      if (running >= 0) return admits(i, (long) q + running, fleet.loadPerWeight(now));
    }
    return load.inFlight(i) <= inFlightShare[i] * totalPlusOne + slack;
  }

  /**
   * Whether replica {@code i}, carrying {@code load} of some measure while the fleet carries
   * {@code loadPerWeight} of it per unit of weight, is within {@code reportedFactor × weight ×
   * loadPerWeight + slack}.
   */
  boolean admits(int i, double load, double loadPerWeight) {
    return load <= reportedShare[i] * loadPerWeight + slack;
  }
}
