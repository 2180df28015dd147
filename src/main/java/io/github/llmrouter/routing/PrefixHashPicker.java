package io.github.llmrouter.routing;

import io.github.llmrouter.load.LoadView;
import io.github.llmrouter.replica.ReplicaSet;

/**
 * {@link PrefixHash}'s picker for one replica set: the ring, the load bound and the queue pressure
 * it was built with, and the ranking that walks the ring from a request's key. Immutable and
 * thread-safe; each ranking is confined to the thread that asked for it.
 */
final class PrefixHashPicker implements ReplicaPicker {
  final HashRing ring;
  private final KeyExtractor keyExtractor;
  private final double[] weights;
  private final double[] inverseWeights;
  private final int probes;
  private final LoadBound bound;
  private final QueuePressure pressure;

  PrefixHashPicker(HashRing ring, ReplicaSet replicas, KeyExtractor keyExtractor, LoadBound bound,
      QueuePressure pressure, int probes) {
    this.ring = ring;
    this.probes = probes;
    this.keyExtractor = keyExtractor;
    this.weights = Rankings.weights(replicas);
    this.inverseWeights = Rankings.inverse(weights);
    this.bound = bound;
    this.pressure = pressure;
  }

  @Override
  public Ranking rank(RoutingRequest request, LoadView load) {
    return new RingRanking(this, load, ring.start(keyExtractor.key(request), probes));
  }

  /** The replica owning the request's key, ignoring load (for tests and explanations). */
  int ownerOf(RoutingRequest request) {
    return ring.ownerAt(ring.start(keyExtractor.key(request), probes));
  }

  private static final class RingRanking implements Ranking {
    // Constant reasons: a decision must not build strings.
    private static final String OWNER = "key owner on the ring, within load bound";
    private static final String[] SKIPPED_OWNER = {
      "key owner over load bound: next ring replica within bound",
      "key owner's reported queue at threshold and far behind the shortest: next ring replica"
          + " within bound",
      "key owner's KV cache nearly full: next ring replica within bound"};
    private static final String FAILOVER = "failover: next ring replica within load bound";
    private static final String QUEUED =
        "every replica has a queue: first ring replica within load bound and not far behind the"
            + " shortest queue";
    private static final String NONE_LEFT =
        "no replica within load bound: least loaded by effective queue";
    private static final String FAILOVER_REST = "failover: least loaded of the rest";
    /** Ring steps without a pick before checking whether any replica can be taken at all. */
    private static final int PRECHECK_STEPS = 8;
    /** {@link #whyNot}: take it. */
    private static final int TAKE = -1;
    /** {@link #whyNot}: take it, though its pressure is at the threshold. */
    private static final int TAKE_QUEUED = -2;

    private final PrefixHashPicker picker;
    private final LoadView load;
    private final RingWalk walk;
    private final FleetLoad fleet;
    private final SeenSet seen = new SeenSet();
    private int returned;
    private String reason = "";
    /** Whether this call's {@link #survey} has set {@link #queueLimit}. */
    private boolean limitKnown;
    /** Whether this call's {@link #survey} ran to the end, setting {@link #leastQueued} too. */
    private boolean surveyComplete;
    /** Set by {@link #survey}: whether any replica not yet returned is within its load bound. */
    private boolean anyCandidate;
    /** Set by {@link #survey}: the pressure a replica at a threshold must stay below. */
    private double queueLimit;
    /** Set by {@link #survey}: the replica with the smallest queue per unit of weight. */
    private int leastQueued;

    RingRanking(PrefixHashPicker picker, LoadView load, int start) {
      this.picker = picker;
      this.load = load;
      this.walk = new RingWalk(picker.ring, start, picker.weights.length);
      this.fleet = new FleetLoad(load, picker.weights);
    }

    @Override
    public int next() {
      int n = picker.weights.length;
      if (returned == n) return -1;
      double totalPlusOne = load.totalInFlight() + 1.0;
      long now = load.now(); // one clock read per decision, however many replicas are examined
      // The survey covers the replicas not yet returned: at most once per call.
      limitKnown = false;
      surveyComplete = false;
      int skipped = -1;
      walk.newCall();
      int unexamined = n - returned;
      // Finding every replica on the ring takes about n·ln(n) steps; after a few fruitless steps,
      // one pass over the replicas tells whether any can be taken at all (and if none can, which
      // is least loaded), so an overloaded fleet costs a pass and a short walk, not a walk round
      // the ring.
      int steps = 0;
      while (walk.hasNext() && unexamined > 0) {
        if (++steps == PRECHECK_STEPS) {
          survey(totalPlusOne, now, false);
          if (!anyCandidate) break;
        }
        int owner = walk.step();
        if (seen.contains(owner) || walk.isRejected(owner)) continue;
        int why = whyNot(owner, totalPlusOne, now);
        if (why < 0) {
          reason = why == TAKE_QUEUED ? QUEUED
              : returned > 0 ? FAILOVER : skipped < 0 ? OWNER : SKIPPED_OWNER[skipped];
          return take(owner, n);
        }
        // Skipped: it stays eligible for the fallback below and for later ranks.
        if (skipped < 0) skipped = why;
        walk.reject(owner);
        unexamined--;
      }
      // No replica can be taken, or the ring ran out before reaching one that can.
      survey(totalPlusOne, now, true);
      reason = skipped >= 0 || returned == 0 ? NONE_LEFT : FAILOVER_REST;
      return take(leastQueued, n);
    }

    /**
     * {@link #TAKE} or {@link #TAKE_QUEUED} (at a threshold, but not far behind the shortest) if
     * {@code i} may be taken; otherwise why not: 0 over the load bound, 1 effective queue at the
     * threshold and far behind the shortest, 2 KV usage at the threshold and no replica with room
     * left.
     */
    private int whyNot(int i, double totalPlusOne, long now) {
      QueuePressure qp = picker.pressure;
      int q = qp.queueOf(i, load, now);
      if (!picker.bound.admits(i, q, totalPlusOne, load, now, fleet)) return 0;
      double queue = q > 0 ? qp.scaledQueue(i, q, now, fleet) : 0;
      double pressure = qp.pressure(i, queue, load, now);
      if (pressure < qp.threshold()) return TAKE;
      // Only now is the shortest queue needed: a replica below the thresholds is taken without a
      // pass over the fleet.
      survey(totalPlusOne, now, false);
      if (pressure < queueLimit) return TAKE_QUEUED;
      return queue >= qp.threshold() ? 1 : 2;
    }

    /**
     * At most once per call, one pass over the replicas not yet returned. Sets {@link
     * #anyCandidate} (some replica is within its load bound) and {@link #queueLimit} ({@code
     * queueThreshold + 3 × shortest}, {@code shortest} the smallest pressure among the replicas
     * within their bound); unless it stops at the first idle replica with room (which fixes the
     * limit), which only a caller not {@code needLeastQueued} allows, it also sets {@link
     * #leastQueued} (chosen as {@link Rankings#leastQueued} chooses, on lengthened queues).
     */
    private void survey(double totalPlusOne, long now, boolean needLeastQueued) {
      if (surveyComplete || (limitKnown && !needLeastQueued)) return;
      QueuePressure qp = picker.pressure;
      int n = picker.weights.length;
      double[] inverse = picker.inverseWeights;
      int from = walk.start() % n;
      int best = -1;
      double bestQueue = Double.MAX_VALUE;
      double bestInFlight = Double.MAX_VALUE;
      double shortest = Double.MAX_VALUE;
      boolean complete = true;
      for (int k = 0; k < n; k++) {
        int i = from + k;
        if (i >= n) i -= n;
        if (seen.contains(i)) continue;
        int inFlight = load.inFlight(i);
        int q = qp.queueOf(i, load, now);
        double scaled = q > 0 ? qp.scaledQueue(i, q, now, fleet) : 0;
        double queue = (q >= 0 ? scaled : inFlight) * inverse[i];
        double f = inFlight * inverse[i];
        if (queue < bestQueue || (queue == bestQueue && f < bestInFlight)) {
          bestQueue = queue;
          bestInFlight = f;
          best = i;
        }
        // The KV usage and the bound matter only for a queue that could be the shortest.
        if (scaled < shortest) {
          double pressure = qp.pressure(i, scaled, load, now);
          if (pressure < shortest && picker.bound.admits(i, q, totalPlusOne, load, now, fleet)) {
            shortest = pressure;
            // An idle replica with room: the limit is the threshold itself, whatever the rest.
            if (pressure == 0 && !needLeastQueued) {
              complete = false;
              break;
            }
          }
        }
      }
      if (complete) {
        leastQueued = best;
        surveyComplete = true;
      }
      limitKnown = true;
      anyCandidate = shortest != Double.MAX_VALUE;
      queueLimit = anyCandidate ? qp.threshold() + PrefixHash.SHORTEST_QUEUE_MULTIPLE * shortest
          : qp.threshold();
    }

    private int take(int index, int n) {
      seen.add(index, n);
      returned++;
      return index;
    }

    @Override
    public String reason() {
      return reason;
    }
  }
}
