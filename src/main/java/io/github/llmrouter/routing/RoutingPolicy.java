package io.github.llmrouter.routing;

import io.github.llmrouter.replica.ReplicaSet;

/**
 * How to choose a replica for a request: the routing SPI.
 *
 * <p>A policy turns each membership snapshot into an immutable {@link ReplicaPicker} (off the
 * request path, when membership changes); the picker ranks replicas for each request. Rank 0 is
 * tried first; the following ranks are the failover order.
 *
 * <pre>{@code
 * RoutingPolicy cacheAware = CacheAware.builder().indexBlocks(1 << 20).build();
 * RoutingPolicy affinity = PrefixHash.builder().prefixChars(200).loadFactor(1.25).build();
 * RoutingPolicy baseline = RoutingPolicy.roundRobin();
 * }</pre>
 *
 * <p>Built-in policies: {@link CacheAware} (the default: lowest estimated time to first token,
 * counting what each replica has cached and queued), {@link PrefixHash} (consistent hashing with
 * bounded loads), {@link #roundRobin()}, {@link #random(long)}, {@link LeastLoaded}.
 *
 * @since 0.2.0
 */
public interface RoutingPolicy {
  /**
   * The picker for {@code replicas}. Called once per membership change; may be expensive (the
   * prefix-hash ring is built here). {@code replicas} is never empty.
   *
   * @param replicas the new membership snapshot
   * @return an immutable, thread-safe picker for that snapshot
   */
  ReplicaPicker newPicker(ReplicaSet replicas);

  /**
   * The affinity key of {@code request}: requests with equal keys belong together (one
   * conversation, one session) and this policy sends them to the same replica while load allows.
   * The client treats a key's requests alike where a decision concerns whole groups of requests:
   * a replica in its slow start admits a growing share of keys, so that every request of a key
   * gets one answer and keys move to the newcomer monotonically.
   *
   * <p>Must be a pure, thread-safe function of the request, the same in every client of a fleet
   * (no per-client state, no randomness); called on the request path only when a decision needs
   * it. The default is {@link RoutingRequest#prefixKey()}, the model and the first {@value
   * KeyExtractor#DEFAULT_PREFIX_CHARS} prompt characters (or the explicit routing key).
   *
   * @param request the request; not null
   * @return the 64-bit affinity key
   */
  default long affinityKey(RoutingRequest request) {
    return request.prefixKey();
  }

  /** {@return a short name for reports and events, such as {@code "PrefixHash"}} */
  default String name() {
    return getClass().getSimpleName();
  }

  /** {@return {@link CacheAware} with its defaults: a new client memory on each call} */
  static RoutingPolicy cacheAware() {
    return CacheAware.builder().build();
  }

  /**
   * {@return the policy {@code LlmClient} routes with when none is set: {@link CacheAware} with
   * its defaults; a new instance (a new client memory) on each call}
   */
  static RoutingPolicy defaultPolicy() {
    return cacheAware();
  }

  /** {@return {@link PrefixHash} with its defaults} */
  static RoutingPolicy prefixHash() {
    return PrefixHash.builder().build();
  }

  /**
   * Each request to the next replica in turn; failover continues in the same order.
   *
   * @return a new policy with its own counter
   */
  static RoutingPolicy roundRobin() {
    return new RoundRobin();
  }

  /**
   * Each request to a uniformly random replica; failover continues from there in snapshot order.
   * Seeded so that simulations are repeatable.
   *
   * @param seed the seed of the random source
   * @return a new policy
   */
  static RoutingPolicy random(long seed) {
    return new RandomPick(seed);
  }

  /** {@return {@link #random(long)} with a seed drawn from the clock} */
  static RoutingPolicy random() {
    return new RandomPick(System.nanoTime());
  }
}
