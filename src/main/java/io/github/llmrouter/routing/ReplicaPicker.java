package io.github.llmrouter.routing;

import io.github.llmrouter.load.LoadView;

/**
 * Ranks the replicas of one membership snapshot for each request. A picker is immutable with
 * respect to membership (a membership change builds a new picker) and is called concurrently by
 * every request thread: {@link #rank} must be thread-safe, non-blocking and allocation-light.
 *
 * @since 0.2.0
 */
public interface ReplicaPicker {
  /**
   * The ranking of this picker's replicas for {@code request} given the current {@code load}
   * (indexed like the snapshot the picker was built for).
   *
   * @param request the request's routing view; not null
   * @param load the load of this picker's snapshot; not null
   * @return a fresh ranking, owned by the calling request
   */
  Ranking rank(RoutingRequest request, LoadView load);
}
