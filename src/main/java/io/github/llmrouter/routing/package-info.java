/**
 * How a replica is chosen: a {@link io.github.llmrouter.routing.RoutingPolicy} builds an
 * immutable {@link io.github.llmrouter.routing.ReplicaPicker} per membership snapshot, which
 * ranks each {@link io.github.llmrouter.routing.RoutingRequest} lazily as a {@link
 * io.github.llmrouter.routing.Ranking}, which is told what became of each attempt it ranked
 * ({@link io.github.llmrouter.routing.RoutedAttempt}). Cache-aware routing ({@link
 * io.github.llmrouter.routing.CacheAware}, the default), prefix affinity ({@link
 * io.github.llmrouter.routing.PrefixHash}), baselines, prompt blocks, hashing. No I/O, no wall
 * clock: the routing decision is lock-free and measured in nanoseconds.
 */
@NullMarked
package io.github.llmrouter.routing;

import org.jspecify.annotations.NullMarked;
