/**
 * Who is in the fleet: {@link io.github.llmrouter.replica.Replica} and immutable {@link
 * io.github.llmrouter.replica.ReplicaSet} snapshots, published by a {@link
 * io.github.llmrouter.replica.ReplicaResolver} (a static list, DNS, or your own); and how
 * replicas' health is judged ({@link io.github.llmrouter.replica.HealthCheck} for active checks,
 * {@link io.github.llmrouter.replica.OutlierDetection} for passive ejection).
 */
@NullMarked
package io.github.llmrouter.replica;

import org.jspecify.annotations.NullMarked;
