package io.github.llmrouter.sim;

import static java.util.Objects.requireNonNull;

import io.github.llmrouter.routing.LeastLoaded;
import io.github.llmrouter.routing.PrefixHash;
import io.github.llmrouter.routing.RoutingPolicy;
import java.util.List;
import java.util.function.IntFunction;

/**
 * A routing policy as the simulator runs it: a name for the report and a factory giving each
 * simulated client its own {@link RoutingPolicy} instance (so that, for example, every client has
 * its own round-robin counter and its own random seed, as independent processes would).
 *
 * <pre>{@code
 * SimulatedPolicy tuned = SimulatedPolicy.of("PrefixHash c=1.5",
 *     client -> PrefixHash.builder().loadFactor(1.5).build());
 * }</pre>
 */
public final class SimulatedPolicy {
  private final String name;
  private final IntFunction<RoutingPolicy> perClient;

  private SimulatedPolicy(String name, IntFunction<RoutingPolicy> perClient) {
    this.name = name;
    this.perClient = perClient;
  }

  /** A library policy; {@code perClient} is called once per client with the client's index. */
  public static SimulatedPolicy of(String name, IntFunction<RoutingPolicy> perClient) {
    requireNonNull(name, "name");
    requireNonNull(perClient, "perClient");
    return new SimulatedPolicy(name, perClient);
  }

  /**
   * The reference oracle: it sees every replica's exact cache contents and queues and sends each
   * request to the replica with the lowest estimated time to first token. A greedy reference, not a
   * bound: it ignores the requests that will come after, and under overload it degenerates into
   * load balancing. It is one central decision maker: with several clients it still sees the whole
   * fleet, so its row does not change with the number of clients. It cannot run outside the
   * simulator.
   */
  public static SimulatedPolicy oracle() {
    return new SimulatedPolicy("Oracle", null);
  }

  /**
   * The policies every report compares, in report order: RoundRobin, Random, LeastLoaded (power of
   * two choices), PrefixHash (library defaults, keyed on the simulated prompt), CacheAware (library
   * defaults, one memory per client) and the oracle.
   * Seeded policies get {@code seed} mixed with the client index.
   */
  public static List<SimulatedPolicy> standard(long seed) {
    return List.of(
        of("RoundRobin", c -> RoutingPolicy.roundRobin()),
        of("Random", c -> RoutingPolicy.random(seed * 31 + c)),
        of("LeastLoaded", c -> LeastLoaded.powerOfTwoChoices(seed * 31 + c)),
        of("PrefixHash", c -> RoutingPolicy.prefixHash()),
        of("CacheAware", c -> RoutingPolicy.cacheAware()),
        oracle());
  }

  /**
   * The queue-awareness comparison: {@code PrefixHash} routing on this client's in-flight counts
   * only ({@code reportedLoad(false)}), and {@code PrefixHash} with its defaults, which bounds a
   * replica by its share of the fleet's scraped load (waiting + running) and skips replicas whose
   * effective queue is at least 4 or KV usage at least 0.95.
   */
  public static List<SimulatedPolicy> queueAwareComparison() {
    return List.of(
        of("PrefixHash in-flight only", c -> PrefixHash.builder().reportedLoad(false).build()),
        of("PrefixHash queue-aware", c -> PrefixHash.builder().build()));
  }

  public String name() {
    return name;
  }

  boolean isOracle() {
    return perClient == null;
  }

  RoutingPolicy newPolicy(int client) {
    return requireNonNull(perClient.apply(client), "policy factory returned null");
  }

  @Override
  public String toString() {
    return name;
  }
}
