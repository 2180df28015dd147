package io.github.llmrouter.internal.dispatch;

import io.github.llmrouter.api.Ticker;
import io.github.llmrouter.dispatch.CircuitBreakerPolicy;
import io.github.llmrouter.internal.health.StatusTracker;
import io.github.llmrouter.internal.load.LocalLoad;
import io.github.llmrouter.observe.RoutingListener;
import io.github.llmrouter.replica.OutlierDetection;
import io.github.llmrouter.replica.Replica;
import io.github.llmrouter.replica.ReplicaSet;
import io.github.llmrouter.internal.transport.ModelList;
import io.github.llmrouter.routing.KeyExtractor;
import io.github.llmrouter.routing.Ranking;
import io.github.llmrouter.routing.ReplicaPicker;
import io.github.llmrouter.routing.RoutingPolicy;
import io.github.llmrouter.routing.RoutingRequest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;

/**
 * One routing decision as a call makes it, past the policy: the default policy's ranking walked
 * by {@link EligibleWalk} to the first eligible replica, on 64 replicas that declare no models
 * ({@code none}) or one of 3 models each, requests cycling over the models: ranked by each model's
 * own picker over its replicas, as the client does ({@code 3}), or by the fleet's picker with the
 * walk skipping the other models' replicas ({@code 3-filtered}, the client before per-model
 * routes, and still for models past {@code RoutingTable.MAX_ROUTED_MODELS}); or 30 LoRA adapters
 * of the 3 models, listed by every replica of their model, each loaded on one of them by an
 * earlier call, ranked by {@link AdapterAffinity} ({@code 30-adapters}). In this package because
 * the walk is internal.
 *
 * <pre>
 * mvn -B -q test-compile exec:exec@jmh -Djmh.args="ModelFilterBenchmark -f 2 -wi 5 -w 1s -i 5 -r 1s -prof gc"
 * </pre>
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@State(Scope.Thread)
public class ModelFilterBenchmark {
  private static final int REPLICAS = 64;
  private static final int PROMPTS = 1024; // a power of two: the cursor wraps with a mask

  /** How many models the replicas declare, and how they are ranked (see the class comment). */
  @Param({"none", "3", "3-filtered", "30-adapters"})
  public String models;

  private RoutingRequest[] requests;
  private ReplicaPicker picker;
  private LocalLoad load;
  private Eligibility eligibility;
  private @Nullable ServedModels served;
  private Map<String, ModelRoute> routes = Map.of();
  private KeyExtractor keys;
  private int cursor;

  @Setup(Level.Trial)
  public void setUp() {
    boolean adapters = models.equals("30-adapters");
    boolean declared = models.equals("3") || models.equals("3-filtered");
    List<Replica> list = new ArrayList<>();
    for (int i = 0; i < REPLICAS; i++) {
      Replica.Builder b = Replica.builder("http://10.0.0." + (i + 1) + ":8000");
      if (declared) b.model("m" + (i % 3));
      list.add(b.build());
    }
    ReplicaSet replicas = ReplicaSet.of(list);
    RoutingPolicy policy = RoutingPolicy.defaultPolicy();
    picker = policy.newPicker(replicas);
    keys = policy::affinityKey;
    load = LocalLoad.of(replicas, Ticker.system(), Duration.ofSeconds(3));
    StatusTracker tracker = new StatusTracker(OutlierDetection.disabled(), Duration.ZERO,
        Duration.ZERO, Ticker.system(), RoutingListener.NONE);
    tracker.update(replicas, "benchmark");
    eligibility = Eligibility.of(tracker, new ReplicaBreakers(CircuitBreakerPolicy.disabled(),
        Ticker.system(), RoutingListener.NONE), Duration.ofMinutes(1), replicas);
    Map<String, ServedModels.Listing> listings = new HashMap<>();
    if (adapters) {
      for (int i = 0; i < REPLICAS; i++) {
        Set<String> listed = new HashSet<>();
        Map<String, String> parents = new HashMap<>();
        String base = "m" + (i % 3);
        listed.add(base);
        for (int k = i % 3; k < 30; k += 3) {
          listed.add("a" + k);
          parents.put("a" + k, base);
        }
        listings.put(list.get(i).id(), new ServedModels.Listing(list.get(i),
            new ModelList(listed, Set.of(), parents)));
      }
    }
    served = ServedModels.of(replicas, listings, adapters, false, new HashSet<>());
    if (models.equals("3") || adapters) {
      Map<String, ModelRoute> byModel = new HashMap<>();
      ServedModels s = served;
      AdapterAffinity affinity = new AdapterAffinity(replicas);
      if (s != null) {
        s.parts(RoutingTable.MAX_ROUTED_MODELS).forEach((model, part) ->
            byModel.put(model, ModelRoute.of(policy, replicas, load, model, part, affinity)));
      }
      routes = byModel;
    }
    requests = new RoutingRequest[PROMPTS];
    for (int p = 0; p < PROMPTS; p++) {
      String model = adapters ? "a" + (p % 30) : declared ? "m" + (p % 3) : "m0";
      requests[p] = RoutingRequest.of(model, "You are a helpful assistant. Question " + p
          + ": how do caches and queues interact when a fleet of replicas serves chat traffic?");
    }
    if (adapters) {
      // Each adapter loaded where an earlier call of it went, as in a running client.
      for (int k = 0; k < 30; k++) {
        RoutingRequest first = requests[k];
        Ranking ranking = routes.get(first.model()).rank(first);
        ranking.sent(ranking.next(), System.nanoTime(), true);
      }
    }
  }

  @Benchmark
  public int decide() {
    RoutingRequest request = requests[cursor];
    cursor = (cursor + 1) & (PROMPTS - 1);
    ModelRoute route = routes.isEmpty() ? null : routes.get(request.model());
    EligibleWalk walk = route != null
        ? new EligibleWalk(route.rank(request), eligibility, request, keys, null)
        : new EligibleWalk(picker.rank(request, load), eligibility, request, keys, served);
    Pick pick = walk.next(System.nanoTime());
    return pick == null ? -1 : pick.index();
  }
}
