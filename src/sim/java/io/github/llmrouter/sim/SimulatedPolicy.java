package io.github.llmrouter.sim;

import static java.util.Objects.requireNonNull;

import io.github.llmrouter.routing.LeastLoaded;
import io.github.llmrouter.routing.PrefixHash;
import io.github.llmrouter.routing.RoutingPolicy;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
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
  private final boolean seesEveryBlock;
  private final boolean adapterAware;

  private SimulatedPolicy(String name, IntFunction<RoutingPolicy> perClient,
      boolean seesEveryBlock) {
    this(name, perClient, seesEveryBlock, true);
  }

  private SimulatedPolicy(String name, IntFunction<RoutingPolicy> perClient,
      boolean seesEveryBlock, boolean adapterAware) {
    this.name = name;
    this.perClient = perClient;
    this.seesEveryBlock = seesEveryBlock;
    this.adapterAware = adapterAware;
  }

  /**
   * The same policy with the client's adapter affinity off: each LoRA adapter's calls are
   * ranked by the policy over its base model's replicas, wherever the adapter is loaded.
   */
  public SimulatedPolicy adapterUnaware() {
    return new SimulatedPolicy(name + " adapter-unaware", perClient, seesEveryBlock, false);
  }

  /** Whether the client orders an adapter's calls by where it is loaded, as the library does. */
  boolean adapterAware() {
    return adapterAware;
  }

  /**
   * A library policy; {@code perClient} is called once per client with the client's index. Its
   * requests carry what a client keeps of a prompt's blocks ({@link
   * io.github.llmrouter.routing.PromptBlocks#sampled}), as in production.
   */
  public static SimulatedPolicy of(String name, IntFunction<RoutingPolicy> perClient) {
    requireNonNull(name, "name");
    requireNonNull(perClient, "perClient");
    return new SimulatedPolicy(name, perClient, false);
  }

  /** A model of another router, which sees every block of a prompt as that router does. */
  static SimulatedPolicy peer(String name, IntFunction<RoutingPolicy> perClient) {
    return new SimulatedPolicy(name, perClient, true);
  }

  /** Whether its requests carry every block of a prompt rather than what a client keeps. */
  boolean seesEveryBlock() {
    return seesEveryBlock;
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
    return new SimulatedPolicy("Oracle", null, true);
  }

  /**
   * The library's own policies, in report order: RoundRobin, Random, LeastLoaded (power of two
   * choices), PrefixHash (library defaults, keyed on the simulated prompt), CacheAware (library
   * defaults, one memory per client) and the oracle. Seeded policies get {@code seed} mixed with
   * the client index.
   */
  public static List<SimulatedPolicy> standard(long seed) {
    return List.of(named("roundrobin", seed), named("random", seed), named("leastloaded", seed),
        named("prefixhash", seed), named("cacheaware", seed), oracle());
  }

  /**
   * The peers modelled for comparison, one instance per client: an SGLang-style cache-aware
   * router, an llm-d-style scorer blend and a Dynamo-style KV-router cost (see docs/simulator.md
   * for what each follows and what it cannot do client-side).
   */
  public static List<SimulatedPolicy> peers(long seed) {
    return List.of(named("sglang", seed), named("llm-d", seed), named("dynamo", seed));
  }

  /** Every named policy of {@link #NAMES} but {@code prefixhash-inflight}: the full comparison. */
  public static List<SimulatedPolicy> all(long seed) {
    List<SimulatedPolicy> all = new ArrayList<>();
    for (String n : NAMES) if (!n.equals("prefixhash-inflight")) all.add(named(n, seed));
    return List.copyOf(all);
  }

  /**
   * The queue-awareness comparison: {@code PrefixHash} routing on this client's in-flight counts
   * only ({@code reportedLoad(false)}), and {@code PrefixHash} with its defaults, which bounds a
   * replica by its share of the fleet's scraped load (waiting + running) and skips replicas whose
   * effective queue is at least 4 or KV usage at least 0.95.
   */
  public static List<SimulatedPolicy> queueAwareComparison() {
    return List.of(named("prefixhash-inflight", 0),
        of("PrefixHash queue-aware", c -> PrefixHash.builder().build()));
  }

  /** The names {@link #named} accepts, in report order. */
  public static final List<String> NAMES = List.of("roundrobin", "random", "leastloaded",
      "prefixhash", "cacheaware", "sglang", "llm-d", "dynamo", "oracle", "prefixhash-inflight");

  /**
   * The policy called {@code name} (one of {@link #NAMES}, case-insensitive); seeded ones get
   * {@code seed} mixed with the client index.
   *
   * @throws IllegalArgumentException for an unknown name, listing the known ones
   */
  public static SimulatedPolicy named(String name, long seed) {
    requireNonNull(name, "name");
    switch (name.toLowerCase(Locale.ROOT)) {
      case "roundrobin": return of("RoundRobin", c -> RoutingPolicy.roundRobin());
      case "random": return of("Random", c -> RoutingPolicy.random(seed * 31 + c));
      case "leastloaded":
        return of("LeastLoaded", c -> LeastLoaded.powerOfTwoChoices(seed * 31 + c));
      case "prefixhash": return of("PrefixHash", c -> RoutingPolicy.prefixHash());
      case "cacheaware": return of("CacheAware", c -> RoutingPolicy.cacheAware());
      case "sglang": return peer("SGLang", c -> SglangCacheAware.policy(seed * 31 + c));
      case "llm-d": return peer("llm-d", c -> LlmdScorer.policy(seed * 31 + c));
      case "dynamo": return peer("Dynamo", c -> DynamoKvRouter.policy(seed * 31 + c));
      case "oracle": return oracle();
      case "prefixhash-inflight":
        return of("PrefixHash in-flight only", c -> PrefixHash.builder().reportedLoad(false).build());
      default:
        throw new IllegalArgumentException("unknown policy '" + name + "'; known policies: "
            + String.join(", ", NAMES) + " (or the sets all, standard, peers, queue-aware)");
    }
  }

  /**
   * The policies a comma-separated {@code spec} names, in its order: policy names ({@link #NAMES})
   * and the sets {@code all}, {@code standard}, {@code peers} and {@code queue-aware}; a policy
   * named twice is kept once.
   *
   * @throws IllegalArgumentException for an empty spec or an unknown name
   */
  public static List<SimulatedPolicy> parse(String spec, long seed) {
    requireNonNull(spec, "spec");
    Map<String, SimulatedPolicy> out = new LinkedHashMap<>();
    for (String part : spec.split(",", -1)) {
      String name = part.trim().toLowerCase(Locale.ROOT);
      if (name.isEmpty()) {
        throw new IllegalArgumentException("policy list '" + spec + "' has an empty name");
      }
      List<SimulatedPolicy> set;
      switch (name) {
        case "all": set = all(seed); break;
        case "standard": set = standard(seed); break;
        case "peers": set = peers(seed); break;
        case "queue-aware": set = queueAwareComparison(); break;
        default: set = List.of(named(name, seed));
      }
      for (SimulatedPolicy p : set) out.putIfAbsent(p.name(), p);
    }
    return List.copyOf(out.values());
  }

  public String name() {
    return name;
  }

  boolean isOracle() {
    return perClient == null;
  }

  /**
   * Whether this is the policy {@code LlmClient} routes with when none is set ({@link
   * RoutingPolicy#defaultPolicy()}): its policies are of the same class and describe their
   * configuration ({@code toString()}) the same way. Derived from the client's default, not from a
   * name, so it follows a change of default.
   */
  public boolean isClientDefault() {
    if (isOracle()) return false;
    RoutingPolicy mine = newPolicy(0);
    RoutingPolicy theDefault = RoutingPolicy.defaultPolicy();
    return mine.getClass() == theDefault.getClass() && mine.toString().equals(theDefault.toString());
  }

  RoutingPolicy newPolicy(int client) {
    return requireNonNull(perClient.apply(client), "policy factory returned null");
  }

  @Override
  public String toString() {
    return name;
  }
}
