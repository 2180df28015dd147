package io.github.llmrouter.routing;

import static java.util.Objects.requireNonNull;

import io.github.llmrouter.load.LoadView;
import io.github.llmrouter.load.Saturation;
import io.github.llmrouter.replica.ReplicaSet;
import org.jspecify.annotations.Nullable;

/**
 * Prefix-affinity routing: consistent hashing with bounded loads (CHWBL). Not the default (that is
 * {@link CacheAware}); {@link RoutingPolicy#prefixHash()}.
 *
 * <p><b>Key.</b> A request's ring key is a hash of its model name and the first {@link
 * Builder#prefixChars(int) prefixChars} characters of its first user message (completions: of the
 * prompt), or of its explicit routing key; see {@link KeyExtractor#prefix(int)}. Requests that
 * share
 * a system prompt and opening message share a key, so they reach the replica whose KV cache
 * already holds that prefix.
 *
 * <p><b>Ring.</b> Each replica owns {@code round(weight × pointsPerWeight)} points (256 per unit of
 * weight by default) placed by hashing its id. The ring depends on replica ids and weights only, so
 * independent clients rank every key identically.
 *
 * <p><b>Probes.</b> A key is looked up at {@link Builder#probes(int) probes} positions (3 by
 * default: the key's hash and two re-mixes of it) and starts at the probe closest to its next
 * ring point (multi-probe consistent hashing). With independent random points a replica's share of
 * keys has a relative spread of {@code 1/√points}, about 6% at 256 points, so in a fleet of 32 the
 * unluckiest replica owns ~15–20% more or less than its share; three probes cut that spread by
 * more than half at the cost of two more binary searches. Membership changes still move only the
 * keys they must: a new replica's points can only shorten a probe's distance (keys move to it),
 * and a removed replica's keys are the only ones whose closest point disappears.
 *
 * <p><b>Bounded load.</b> With {@code total} requests in flight from this client, replica {@code
 * i} is <em>within bound</em> while {@code inFlight(i) ≤ c × (total + 1) × weight(i) / Σweight}
 * ({@code c} = {@link Builder#loadFactor(double) loadFactor}, 1.25 by default). Rank 0 is the first
 * replica within bound walking clockwise from the key's start (the best probe, below). Later ranks
 * (the failover order) continue
 * the walk with distinct replicas, again taking only replicas within bound at the time of the
 * retry, so a retry lands on the key's next ring neighbour. Once the walk has gone all the way
 * round, the remaining replicas follow by least load per unit of weight.
 *
 * <p><b>Reported load.</b> When the view has fresh load reports (see {@code LoadView}), the walk
 * also passes over a replica that reports itself saturated (see {@link Saturation}) while another
 * has room. The exact rule: walking clockwise from the key's start, take the first replica not
 * yet returned that is
 * <ol>
 *   <li>within its load bound: for a replica with a fresh report of both its queue and its
 *       running batch, {@code effectiveQueue(i) + running(i) ≤ c_r × weight(i) × (L + 1) / W},
 *       where {@code L} sums {@code effectiveQueue + running} over the replicas reporting both,
 *       {@code W} is their total weight and {@code c_r} is {@link
 *       Builder#reportedLoadFactor(double) reportedLoadFactor} (default {@value
 *       #DEFAULT_REPORTED_LOAD_FACTOR}); for any other replica the in-flight bound above; and
 *   <li>whose <em>pressure</em> is below {@link Builder#queueThreshold(int) queueThreshold}
 *       (default {@value Saturation#DEFAULT_QUEUE_THRESHOLD}), or below {@code queueThreshold +
 *       3 × shortest}, where {@code shortest} is the smallest pressure among the replicas not yet
 *       returned that are within their load bound.
 * </ol>
 * A replica's pressure is its effective queue lengthened by its queue wait (below), 0 if unknown,
 * and raised to {@code queueThreshold} if its KV-cache usage is at least {@link
 * Builder#kvUsageThreshold(double) kvUsageThreshold} (default {@value
 * Saturation#DEFAULT_KV_USAGE_THRESHOLD}): a nearly full cache admits no new prompt until memory frees, so
 * it is as good as a queue at the threshold. While some replica within bound is idle with room
 * in its cache ({@code shortest = 0}) this is the plain rule: skip a replica whose queue is at the
 * threshold or whose cache is nearly full. Once every replica has a queue, a replica keeps its
 * keys until its queue is far behind the shortest (a slow or stalled replica): moving a request
 * off its key's owner would then only trade a cached prefix for another queue. If no replica is
 * within its load bound, take the one with the smallest effective queue per unit of weight,
 * counting this client's in-flight requests for a replica without a fresh report (ties: the
 * fewest in flight per unit of weight, then the first in snapshot order from an index derived
 * from the key's ring position). Without reports the rule is exactly the bounded-load walk.
 *
 * <p><em>Lengthened by its queue wait</em>: when the fleet's mean recent queue wait ({@code
 * LoadView.meanQueueWait}, from the replicas' queue-time histograms) is at least {@value
 * #MIN_MEAN_WAIT_SECONDS} s, a replica whose requests recently waited longer than that mean counts
 * its effective queue {@code min(}{@value #MAX_WAIT_SCALE}{@code , wait / mean)} times; otherwise
 * the queue counts as it is.
 *
 * <p>Why: the reported-load bound counts every client's requests, where this client's in-flight
 * share sees only its own and calls a hot key's owner "over bound" after one or two; the
 * queue-wait lengthening tells a slow replica from the others, which a waiting count cannot; the
 * limit relative to the shortest queue keeps a busy fleet's hot prefixes on their owners instead
 * of scattering them to whichever neighbour's queue momentarily dipped below the threshold. The
 * measurements behind each are in {@code docs/routing.md}.
 *
 * <p><b>Cost.</b> Each replica is examined at most once per walk. A replica below the thresholds
 * is taken without looking at the others; one at a threshold costs one pass over the replicas to
 * find the shortest pressure, as do 8 ring steps without a pick (the pass then also tells whether
 * any replica is within its bound at all), so a busy fleet costs one pass and a short walk, not a
 * walk round the ring.
 *
 * @since 0.2.0
 */
public final class PrefixHash implements RoutingPolicy {
  /** Default load factor {@code c}: {@value}. */
  public static final double DEFAULT_LOAD_FACTOR = 1.25;
  /** Default ring points per unit of replica weight: {@value}. */
  public static final int DEFAULT_POINTS_PER_WEIGHT = 256;
  /** Default ring look-ups per key: {@value}. */
  public static final int DEFAULT_PROBES = 3;
  /**
   * A replica whose pressure is at {@code queueThreshold} keeps its keys while it stays below
   * {@code queueThreshold} plus this many times the shortest among the replicas within bound.
   */
  static final int SHORTEST_QUEUE_MULTIPLE = 3;
  /** The most a replica's longer queue wait can lengthen its queue: {@value}×. */
  static final double MAX_WAIT_SCALE = QueuePressure.MAX_WAIT_SCALE;
  /** Below this mean queue wait, seconds, waits are too short to compare: {@value}. */
  static final double MIN_MEAN_WAIT_SECONDS = QueuePressure.MIN_MEAN_WAIT_SECONDS;
  /** Default load factor for bounds on reported load: {@value}. */
  public static final double DEFAULT_REPORTED_LOAD_FACTOR = 2.0;

  private final KeyExtractor keyExtractor;
  private final double loadFactor;
  private final double reportedLoadFactor;
  private final int pointsPerWeight;
  private final int probes;
  private final boolean reportedLoad;
  private final int queueThreshold;
  private final double kvUsageThreshold;

  private PrefixHash(Builder b) {
    this.keyExtractor = b.keyExtractor != null ? b.keyExtractor : KeyExtractor.prefix(b.prefixChars);
    this.loadFactor = b.loadFactor;
    this.reportedLoadFactor = b.reportedLoadFactor;
    this.pointsPerWeight = b.pointsPerWeight;
    this.probes = b.probes;
    this.reportedLoad = b.reportedLoad;
    this.queueThreshold = b.queueThreshold;
    this.kvUsageThreshold = b.kvUsageThreshold;
  }

  /** {@return a new builder holding every default; not thread-safe} */
  public static Builder builder() {
    return new Builder();
  }

  /** {@return the load factor {@code c}} */
  public double loadFactor() {
    return loadFactor;
  }

  /** {@return what places a request on the ring: the builder's extractor, or the default one} */
  public KeyExtractor keyExtractor() {
    return keyExtractor;
  }

  /** {@return the ring key of {@code request}, from the {@link #keyExtractor()}} */
  @Override
  public long affinityKey(RoutingRequest request) {
    return keyExtractor.key(request);
  }

  @Override
  public ReplicaPicker newPicker(ReplicaSet replicas) {
    requireNonNull(replicas, "replicas");
    if (replicas.isEmpty()) throw new IllegalArgumentException("replicas must not be empty");
    double[] weights = Rankings.weights(replicas);
    return new PrefixHashPicker(HashRing.build(replicas, pointsPerWeight), replicas, keyExtractor,
        new LoadBound(weights, replicas.totalWeight(), loadFactor, reportedLoadFactor, 0),
        new QueuePressure(reportedLoad, new Saturation(queueThreshold, kvUsageThreshold)), probes);
  }

  @Override
  public String name() {
    return "PrefixHash";
  }

  @Override
  public String toString() {
    return "PrefixHash{loadFactor=" + loadFactor + ", pointsPerWeight=" + pointsPerWeight
        + ", probes=" + probes + (reportedLoad ? ", reportedLoadFactor=" + reportedLoadFactor
        + ", queueThreshold=" + queueThreshold + ", kvUsageThreshold=" + kvUsageThreshold
        : ", reportedLoad=false") + '}';
  }

  /** Builds a {@link PrefixHash}. Not thread-safe. */
  public static final class Builder {
    private int prefixChars = KeyExtractor.DEFAULT_PREFIX_CHARS;
    private double loadFactor = DEFAULT_LOAD_FACTOR;
    private double reportedLoadFactor = DEFAULT_REPORTED_LOAD_FACTOR;
    private int pointsPerWeight = DEFAULT_POINTS_PER_WEIGHT;
    private int probes = DEFAULT_PROBES;
    private boolean reportedLoad = true;
    private int queueThreshold = Saturation.DEFAULT_QUEUE_THRESHOLD;
    private double kvUsageThreshold = Saturation.DEFAULT_KV_USAGE_THRESHOLD;
    private @Nullable KeyExtractor keyExtractor;

    private Builder() {}

    /**
     * Characters of the first user message (or prompt) hashed into the key; at least 1, default
     * {@value KeyExtractor#DEFAULT_PREFIX_CHARS}. Ignored when a {@link #keyExtractor} is set.
     *
     * @param prefixChars the prefix chars, checked at {@link #build()}
     * @return this builder
     */
    public Builder prefixChars(int prefixChars) {
      this.prefixChars = prefixChars;
      return this;
    }

    /**
     * The bound {@code c} on a replica's share of this client's in-flight requests relative to the
     * mean, in [1.0, 100]; default {@value #DEFAULT_LOAD_FACTOR}. It applies to replicas without a
     * fresh report of their queue and running batch (see {@link #reportedLoadFactor}). Lower
     * spreads load more evenly at the cost of affinity; higher keeps affinity under skew.
     *
     * @param loadFactor the load factor, checked at {@link #build()}
     * @return this builder
     */
    public Builder loadFactor(double loadFactor) {
      this.loadFactor = loadFactor;
      return this;
    }

    /**
     * The bound on a replica's share of the fleet's reported load (waiting plus running, every
     * client's requests) relative to the mean, applied instead of {@link #loadFactor} to replicas
     * with a fresh report of both, in [1.0, 100]; default {@value #DEFAULT_REPORTED_LOAD_FACTOR}.
     * Looser than the in-flight bound because the queue threshold already guards a reporting
     * replica; it stops a replica from hoarding a hot key's traffic while its queue is still
     * short.
     *
     * @param reportedLoadFactor the reported load factor, checked at {@link #build()}
     * @return this builder
     */
    public Builder reportedLoadFactor(double reportedLoadFactor) {
      this.reportedLoadFactor = reportedLoadFactor;
      return this;
    }

    /**
     * Ring points per unit of replica weight, in [1, 4096]; default {@value
     * #DEFAULT_POINTS_PER_WEIGHT}.
     *
     * @param pointsPerWeight the points per weight, checked at {@link #build()}
     * @return this builder
     */
    public Builder pointsPerWeight(int pointsPerWeight) {
      this.pointsPerWeight = pointsPerWeight;
      return this;
    }

    /**
     * Ring look-ups per key, in [1, 8]; default {@value #DEFAULT_PROBES}. 1 is the classic ring
     * (the key's own position), as KubeAI uses; more probes balance key ownership better.
     *
     * @param probes the probes, checked at {@link #build()}
     * @return this builder
     */
    public Builder probes(int probes) {
      this.probes = probes;
      return this;
    }

    /**
     * The effective queue (reported waiting requests corrected by this client's dispatches since)
     * at which a replica is skipped, in [1, 100000]; default {@value
     * Saturation#DEFAULT_QUEUE_THRESHOLD}, the middle of the 3–5 waiting requests practitioners
     * start from.
     *
     * @param queueThreshold the queue threshold, checked at {@link #build()}
     * @return this builder
     */
    public Builder queueThreshold(int queueThreshold) {
      this.queueThreshold = queueThreshold;
      return this;
    }

    /**
     * The reported KV-cache usage at which a replica is skipped, in (0, 1]; default {@value
     * Saturation#DEFAULT_KV_USAGE_THRESHOLD}. A nearly full cache means new prompts evict cached
     * prefixes or wait for memory.
     *
     * @param kvUsageThreshold the kv usage threshold, checked at {@link #build()}
     * @return this builder
     */
    public Builder kvUsageThreshold(double kvUsageThreshold) {
      this.kvUsageThreshold = kvUsageThreshold;
      return this;
    }

    /**
     * Whether reported queue depth and KV usage take part in the ranking; default true. False
     * gives the in-flight-only bounded-load walk, whatever the replicas report.
     *
     * @param reportedLoad the reported load, checked at {@link #build()}
     * @return this builder
     */
    public Builder reportedLoad(boolean reportedLoad) {
      this.reportedLoad = reportedLoad;
      return this;
    }

    /**
     * Replaces the key extractor (for example to key on a session id).
     *
     * @param keyExtractor the key extractor; not null
     * @return this builder
     */
    public Builder keyExtractor(KeyExtractor keyExtractor) {
      this.keyExtractor = requireNonNull(keyExtractor, "keyExtractor");
      return this;
    }

    /**
     * Validates every setting and builds the PrefixHash.
     *
     * @return an immutable, thread-safe {@code PrefixHash}
     * @throws IllegalArgumentException naming the first knob out of range
     */
    public PrefixHash build() {
      if (prefixChars < 1) {
        throw new IllegalArgumentException("PrefixHash.prefixChars must be >= 1, got " + prefixChars);
      }
      if (!(loadFactor >= 1.0 && loadFactor <= 100.0)) {
        throw new IllegalArgumentException("PrefixHash.loadFactor must be in [1.0, 100], got "
            + loadFactor);
      }
      if (!(reportedLoadFactor >= 1.0 && reportedLoadFactor <= 100.0)) {
        throw new IllegalArgumentException("PrefixHash.reportedLoadFactor must be in [1.0, 100], got "
            + reportedLoadFactor);
      }
      if (pointsPerWeight < 1 || pointsPerWeight > 4096) {
        throw new IllegalArgumentException("PrefixHash.pointsPerWeight must be in [1, 4096], got "
            + pointsPerWeight);
      }
      if (probes < 1 || probes > 8) {
        throw new IllegalArgumentException("PrefixHash.probes must be in [1, 8], got " + probes);
      }
      if (queueThreshold < 1 || queueThreshold > 100_000) {
        throw new IllegalArgumentException("PrefixHash.queueThreshold must be in [1, 100000], got "
            + queueThreshold);
      }
      if (!(kvUsageThreshold > 0 && kvUsageThreshold <= 1)) {
        throw new IllegalArgumentException("PrefixHash.kvUsageThreshold must be in (0, 1], got "
            + kvUsageThreshold);
      }
      return new PrefixHash(this);
    }
  }
}
