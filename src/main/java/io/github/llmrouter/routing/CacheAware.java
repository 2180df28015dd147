package io.github.llmrouter.routing;

import static java.util.Objects.requireNonNull;

import io.github.llmrouter.load.LoadView;
import io.github.llmrouter.load.Saturation;
import io.github.llmrouter.replica.ReplicaSet;

/**
 * Cache-aware routing: each request goes to the replica expected to give it its first token
 * soonest, counting both the prompt tokens that replica would have to prefill and the prefill work
 * already queued there.
 *
 * <p><b>How it decides.</b> For every replica it estimates the time to first token as {@code wait
 * + memory + (1 + λ) × uncached / rate}:
 * <ul>
 *   <li><em>uncached</em>: the request's prompt tokens minus those predicted cached on the replica,
 *       the best of three predictions: this client's {@linkplain Builder#indexBlocks(int) index} of
 *       the prompt blocks it recently sent where; the request's <em>conversation home</em>, the ring
 *       owner of its first block after the shared prefix, which probably holds the conversation's
 *       earlier turns whichever client sent them; and the <em>system-prompt home</em>, the ring
 *       owner of the shared prefix. The two ring predictions come from the request alone, so
 *       independent clients agree on them; each is weighted by a confidence learnt per replica
 *       from the cached tokens its answers report ({@code usage.prompt_tokens_details.cached_tokens},
 *       also at the end of streams). The shared prefix ends where the system prompt ends when
 *       roles are known, or after the blocks this client has seen followed by at least four
 *       different blocks;</li>
 *   <li><em>a conversation's home</em>: for a conversation this client has not sent before, its
 *       home counts the shared prefix as cached too, when that prefix carries more than one
 *       replica's share of this client's requests (it was last sent within as many requests as
 *       there are replicas), weighted by the share of prompts seen again that came back longer
 *       (conversations going on) rather than unchanged (questions asked again). The home copies
 *       the prefix once and then holds it for every conversation homed there; so conversations
 *       spread over their homes, where every client sends their later turns, instead of all
 *       following the replica that cached the shared prefix first. A rarer prefix (one tenant's of
 *       many) stays where it is cached;</li>
 *   <li><em>wait</em>: the prefill work ahead, the later of this client's own sent-but-unstarted
 *       prefills (exact on streams, whose first token tells when each started) and the other
 *       clients' from the replica's last load report (requests awaiting their first token, drained
 *       by the time since the report);</li>
 *   <li><em>memory</em>: where the replica reports its KV-cache capacity (vLLM, SGLang), the time
 *       until its KV memory has room for the whole prompt: none while the prompt fits beside what
 *       its running requests hold (the reported usage, drained by the report's age over a typical
 *       run, or this client's own unfinished requests' prompts if more), else the share of a
 *       typical run after the first token (learnt from the answers) that the requests holding the
 *       excess need to end. Predicted cached tokens never exceed the capacity;</li>
 *   <li><em>a place to run</em>: where the replica's reports have shown how many requests it runs
 *       at once ({@link io.github.llmrouter.load.LoadView#concurrency}), a request that finds it
 *       full waits for as many running ones to end as are ahead of it past that limit, their ends
 *       spread over a typical run; the cost adds the longer of this and the memory wait, and the
 *       fleet's busyness below counts it;</li>
 *   <li><em>rate</em>: the prefill rate learnt from streams, times the replica's weight, divided
 *       by how much longer its queue waits than the fleet's (a slow replica);</li>
 *   <li><em>λ</em> is the fleet's mean wait (prefill ahead and the wait for a place to run) over a
 *       typical request's prefill time: the busier the fleet, the more a cached prefix is worth.
 *       When even the least busy replica has more than 2 s to wait, ring predictions are trusted
 *       fully, so that an overloaded fleet keeps its caches rather than balancing them away.</li>
 * </ul>
 * On top, a replica whose requests awaiting their first token (every client's, from its last
 * report, or this client's own if more) exceed {@code loadFactor} times its share of the fleet's,
 * plus 4, is passed over while another is within that cap, so that no burst herds onto one
 * replica. Failover ranks continue in order of estimated time to first token.
 *
 * <p><b>Every client its own memory.</b> Each policy instance is one client's memory (its index,
 * confidences and rates): give each {@code LlmClient} its own instance. Clients share nothing
 * and need not coordinate; the ring predictions make them agree.
 *
 * <p><b>Cost.</b> A decision hashes nothing new (the request's blocks are computed once), makes a
 * binary search of the index per distinct cached depth, two ring look-ups, and two passes over
 * the replicas' counters and reports; it is lock-free. Sending a request records its blocks in
 * the index (a few array writes per block).
 *
 * <pre>{@code
 * LlmClient client = LlmClient.builder()
 *     .replicas(urls)
 *     .routingPolicy(CacheAware.builder().indexBlocks(1 << 20).build())
 *     .build();
 * }</pre>
 *
 * @since 0.2.0
 */
public final class CacheAware implements RoutingPolicy {
  /** Default characters per prompt block: {@value}. */
  public static final int DEFAULT_BLOCK_CHARS = PromptBlocks.DEFAULT_BLOCK_CHARS;
  /** Default prompt blocks the index remembers: {@value} (12 MiB). */
  public static final int DEFAULT_INDEX_BLOCKS = 1 << 19;
  /** Default load cap factor: {@value}. */
  public static final double DEFAULT_LOAD_FACTOR = 2.0;
  /** Ring points per unit of weight; the same ring as {@link PrefixHash}'s default. */
  static final int POINTS_PER_WEIGHT = PrefixHash.DEFAULT_POINTS_PER_WEIGHT;
  /** Ring look-ups per key. */
  static final int PROBES = PrefixHash.DEFAULT_PROBES;

  private final int blockChars;
  private final int indexBlocks;
  private final double loadFactor;
  private final FleetMemory memory;

  private CacheAware(Builder b) {
    this.blockChars = b.blockChars;
    this.indexBlocks = b.indexBlocks;
    this.loadFactor = b.loadFactor;
    this.memory = new FleetMemory(b.indexBlocks);
  }

  /** {@return a builder with every knob at its default} */
  public static Builder builder() {
    return new Builder();
  }

  @Override
  public ReplicaPicker newPicker(ReplicaSet replicas) {
    requireNonNull(replicas, "replicas");
    if (replicas.isEmpty()) throw new IllegalArgumentException("replicas must not be empty");
    return new Picker(this, replicas);
  }

  @Override
  public String name() {
    return "CacheAware";
  }

  /**
   * {@return the key of the conversation's ring home: the explicit routing key if the request has
   * one, else the hash of the prompt through its first block after the shared system prompt}
   * Hashes the prompt into blocks once per request (kept by the request for the routing decision).
   */
  @Override
  public long affinityKey(RoutingRequest request) {
    PromptBlocks blocks = request.blocks(blockChars);
    return conversationKey(request, blocks, blocks.sharedBlocks());
  }

  /**
   * The conversation's ring key: the explicit routing key's, else the chained hash through the
   * first block after {@code shared} leading shared blocks (the last block if none follows).
   */
  static long conversationKey(RoutingRequest request, PromptBlocks blocks, int shared) {
    int n = blocks.size();
    if (request.routingKey() != null || n == 0) return request.prefixKey();
    return blocks.hash(Math.min(shared, n - 1));
  }

  /** {@return the bytes this client's prefix index takes (allocated with the first picker)} */
  public long indexBytes() {
    return (long) PrefixIndex.capacityFor(indexBlocks) * PrefixIndex.BYTES_PER_ENTRY;
  }

  FleetMemory memory() {
    return memory;
  }

  @Override
  public String toString() {
    return "CacheAware{blockChars=" + blockChars + ", indexBlocks=" + indexBlocks
        + ", loadFactor=" + loadFactor + '}';
  }

  /** One membership snapshot: the ring, each replica's state, the load cap. Immutable. */
  static final class Picker implements ReplicaPicker {
    final ReplicaSet replicas;
    final HashRing ring;
    final ReplicaState[] states;
    /** Snapshot index of each index slot, -1 if none. */
    final int[] indexOfSlot = new int[PrefixIndex.SLOTS];
    /** Replica weights, and the same relative to their mean. */
    final double[] weights;
    final double[] relativeWeights;
    final LoadBound cap;
    final QueuePressure pressure;
    final FleetMemory memory;
    final PrefixIndex index;
    final int blockChars;

    Picker(CacheAware policy, ReplicaSet replicas) {
      this.replicas = replicas;
      this.memory = policy.memory;
      this.blockChars = policy.blockChars;
      this.ring = HashRing.build(replicas, POINTS_PER_WEIGHT);
      this.states = memory.statesFor(replicas);
      this.index = memory.index();
      java.util.Arrays.fill(indexOfSlot, -1);
      for (int i = 0; i < states.length; i++) {
        if (states[i].slot >= 0) indexOfSlot[states[i].slot] = i;
      }
      this.weights = Rankings.weights(replicas);
      this.relativeWeights = new double[weights.length];
      double meanWeight = replicas.totalWeight() / weights.length;
      for (int i = 0; i < weights.length; i++) relativeWeights[i] = weights[i] / meanWeight;
      this.cap = new LoadBound(weights, replicas.totalWeight(), policy.loadFactor,
          policy.loadFactor, CacheAwareRanking.LOAD_SLACK);
      this.pressure = new QueuePressure(true, Saturation.defaults());
    }

    @Override
    public Ranking rank(RoutingRequest request, LoadView load) {
      return new CacheAwareRanking(this, request, load);
    }

    /** The ring owner of {@code key}. */
    int home(long key) {
      return ring.ownerAt(ring.start(key, PROBES));
    }
  }

  /** Builds a {@link CacheAware} policy. Not thread-safe. */
  public static final class Builder {
    private int blockChars = DEFAULT_BLOCK_CHARS;
    private int indexBlocks = DEFAULT_INDEX_BLOCKS;
    private double loadFactor = DEFAULT_LOAD_FACTOR;

    private Builder() {}

    /**
     * Characters per prompt block, a proxy for tokens, in [16, 65536]; default {@value
     * #DEFAULT_BLOCK_CHARS} (about 64 tokens). Every client of a fleet must use the same value:
     * it decides where a conversation's home is.
     *
     * @param blockChars characters per block
     * @return this builder
     */
    public Builder blockChars(int blockChars) {
      this.blockChars = blockChars;
      return this;
    }

    /**
     * Prompt blocks the index remembers, in [1024, 2^26], rounded up to a power of two; default
     * {@value #DEFAULT_INDEX_BLOCKS}. Each takes 24 bytes,
     * allocated once: the default is 12 MiB. Beyond it the least recently sent blocks are
     * forgotten.
     *
     * @param indexBlocks blocks the index holds
     * @return this builder
     */
    public Builder indexBlocks(int indexBlocks) {
      this.indexBlocks = indexBlocks;
      return this;
    }

    /**
     * The load cap: a replica whose requests awaiting their first token exceed this factor times
     * its share of the fleet's, plus 4, is passed over while another is within it; in [1.0, 100],
     * default {@value #DEFAULT_LOAD_FACTOR}.
     *
     * @param loadFactor the cap's factor
     * @return this builder
     */
    public Builder loadFactor(double loadFactor) {
      this.loadFactor = loadFactor;
      return this;
    }

    /**
     * {@return the policy}
     *
     * @throws IllegalArgumentException naming the first knob out of range
     */
    public CacheAware build() {
      if (blockChars < 16 || blockChars > 65_536) {
        throw new IllegalArgumentException("CacheAware.blockChars must be in [16, 65536], got "
            + blockChars);
      }
      if (indexBlocks < 1024 || indexBlocks > (1 << 26)) {
        throw new IllegalArgumentException("CacheAware.indexBlocks must be in [1024, 67108864], got "
            + indexBlocks);
      }
      if (!(loadFactor >= 1.0 && loadFactor <= 100.0)) {
        throw new IllegalArgumentException("CacheAware.loadFactor must be in [1.0, 100], got "
            + loadFactor);
      }
      return new CacheAware(this);
    }
  }
}
