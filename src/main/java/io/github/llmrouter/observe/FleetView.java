package io.github.llmrouter.observe;

import io.github.llmrouter.replica.Replica;
import java.util.List;

/**
 * What a listener may read of a running client: its replicas and the load on them, for gauges
 * and health indicators. {@code LlmClient} is one; a listener gets it in {@link
 * RoutingListener#onClientStarted(FleetView)} and may keep it until {@link
 * RoutingListener#onClientClosed(FleetView)}.
 *
 * <p>Thread-safe; every method reads the client's current state without blocking.
 *
 * @since 0.3.0
 */
public interface FleetView {
  /** {@return the replicas in the fleet now, ready or not, in fleet order; unmodifiable} */
  List<Replica> replicas();

  /**
   * Requests this client has in flight on one replica.
   *
   * @param replicaId a replica's id; not null
   * @return in-flight requests, 0 for a replica not in the fleet
   */
  int inFlight(String replicaId);

  /** {@return the load on the fleet as this client sees it now; one pass over the replicas} */
  FleetSnapshot fleet();
}
