package io.github.llmrouter.internal.dispatch;

import io.github.llmrouter.internal.load.LocalLoad;
import io.github.llmrouter.replica.ReplicaSet;
import io.github.llmrouter.routing.ReplicaPicker;
import io.github.llmrouter.routing.RoutingPolicy;
import org.jspecify.annotations.Nullable;

/**
 * One membership snapshot with its picker, load view, eligibility and served models: replaced as a whole when
 * membership changes, never mutated, so a request sees a consistent fleet for all its attempts.
 * Immutable (the objects it points to keep their own thread-safe state).
 */
final class RoutingTable {
  final ReplicaSet replicas;
  final LocalLoad load;
  final @Nullable ReplicaPicker picker;
  /** Which replicas may take attempts: health, ejection, pauses, breakers, slow start. */
  final Eligibility eligibility;
  /** Which replicas serve which models; null when no replica declares any. */
  final @Nullable ServedModels models;

  private RoutingTable(ReplicaSet replicas, LocalLoad load, @Nullable ReplicaPicker picker,
      Eligibility eligibility) {
    this.replicas = replicas;
    this.load = load;
    this.picker = picker;
    this.eligibility = eligibility;
    this.models = ServedModels.of(replicas);
  }

  /** The first table, over a load view configured by the caller (staleness, ticker). */
  static RoutingTable initial(LocalLoad load, RoutingPolicy policy, Eligibility eligibility) {
    ReplicaSet replicas = load.replicas();
    return new RoutingTable(replicas, load, replicas.isEmpty() ? null : policy.newPicker(replicas),
        eligibility);
  }

  RoutingTable next(ReplicaSet replicas, RoutingPolicy policy) {
    return new RoutingTable(replicas, load.next(replicas),
        replicas.isEmpty() ? null : policy.newPicker(replicas), eligibility.next(replicas));
  }
}
