/**
 * How a replica is chosen: a {@link io.github.llmrouter.routing.RoutingPolicy} builds an
 * immutable {@link io.github.llmrouter.routing.ReplicaPicker} per membership snapshot, which
 * ranks each {@link io.github.llmrouter.routing.RoutingRequest} lazily as a {@link
 * io.github.llmrouter.routing.Ranking}. Prefix affinity ({@link
 * io.github.llmrouter.routing.PrefixHash}, the default), baselines, hashing. No I/O, no wall
 * clock: the routing decision is lock-free and measured in nanoseconds.
 */
@NullMarked
package io.github.llmrouter.routing;

import org.jspecify.annotations.NullMarked;
