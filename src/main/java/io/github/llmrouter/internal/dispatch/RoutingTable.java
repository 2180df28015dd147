package io.github.llmrouter.internal.dispatch;

import io.github.llmrouter.internal.load.LocalLoad;
import io.github.llmrouter.replica.ReplicaSet;
import io.github.llmrouter.routing.ReplicaPicker;
import io.github.llmrouter.routing.RoutingPolicy;
import java.util.HashMap;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * One membership snapshot with its picker, load view, eligibility and served models: replaced as a whole when
 * membership changes, never mutated, so a request sees a consistent fleet for all its attempts.
 * Immutable (the objects it points to keep their own thread-safe state).
 */
final class RoutingTable {
  /** Models routed with a picker of their own: at most this many per table. */
  static final int MAX_ROUTED_MODELS = 64;

  final ReplicaSet replicas;
  final LocalLoad load;
  final @Nullable ReplicaPicker picker;
  /** Which replicas may take attempts: health, ejection, pauses, breakers, slow start. */
  final Eligibility eligibility;
  /** Which replicas serve which models; null when routing by model changes nothing. */
  final @Nullable ServedModels models;
  /** Where LoRA adapters' calls went, kept while the membership is. */
  final AdapterAffinity adapters;
  /**
   * The models served or loaded by part of the fleet, and the adapters, each with its own route;
   * usually empty.
   */
  private final Map<String, ModelRoute> routes;

  private RoutingTable(ReplicaSet replicas, LocalLoad load, @Nullable ReplicaPicker picker,
      Eligibility eligibility, @Nullable ServedModels models, RoutingPolicy policy,
      AdapterAffinity adapters) {
    this.replicas = replicas;
    this.load = load;
    this.picker = picker;
    this.eligibility = eligibility;
    this.models = models;
    this.adapters = adapters;
    this.routes = routes(policy, replicas, load, models, adapters);
  }

  private static Map<String, ModelRoute> routes(RoutingPolicy policy, ReplicaSet replicas,
      LocalLoad load, @Nullable ServedModels models, AdapterAffinity adapters) {
    if (models == null) return Map.of();
    Map<String, ModelRoute> routes = new HashMap<>();
    models.parts(MAX_ROUTED_MODELS).forEach((model, part) ->
        routes.put(model, ModelRoute.of(policy, replicas, load, model, part, adapters)));
    return routes;
  }

  /**
   * The route of {@code model} if part of the fleet serves it (then its picker ranks only that
   * part), else null (the fleet's picker ranks, skipping replicas of other models). A map lookup.
   */
  @Nullable ModelRoute route(String model) {
    return routes.isEmpty() ? null : routes.get(model);
  }

  /** The first table, over a load view configured by the caller (staleness, ticker). */
  static RoutingTable initial(LocalLoad load, RoutingPolicy policy, Eligibility eligibility,
      AdapterAffinity.Placement placement) {
    ReplicaSet replicas = load.replicas();
    return new RoutingTable(replicas, load, replicas.isEmpty() ? null : policy.newPicker(replicas),
        eligibility, null, policy, new AdapterAffinity(replicas, placement));
  }

  RoutingTable next(ReplicaSet replicas, RoutingPolicy policy, @Nullable ServedModels models) {
    return new RoutingTable(replicas, load.next(replicas),
        replicas.isEmpty() ? null : policy.newPicker(replicas), eligibility.next(replicas), models,
        policy, adapters.next(replicas));
  }

  /** This table with other served models: what a new listing changed. */
  RoutingTable withModels(@Nullable ServedModels models, RoutingPolicy policy) {
    return new RoutingTable(replicas, load, picker, eligibility, models, policy, adapters);
  }

  /**
   * Whether a call for {@code model} may start on this table: the fleet has replicas, no listing
   * the request's routing depends on is still to come, and the model, if the fleet served it
   * before, has a replica.
   */
  boolean routable(String model) {
    return picker != null
        && (models == null || !(models.awaitsListing(model) || models.awaitsReplica(model)));
  }

  /** Whether every call may start: the fleet has replicas and no first listing is to come. */
  boolean settled() {
    return picker != null && (models == null || !models.pending());
  }
}
