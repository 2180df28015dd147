package io.github.llmrouter.load;

/**
 * What a routing policy knows about the load on the replicas of one {@code ReplicaSet} snapshot,
 * indexed like the snapshot.
 *
 * <p>Implementations are read on the routing hot path: every method must be non-blocking and
 * allocation-free. The client's own view counts the requests this client has in flight; the
 * simulator supplies one in virtual time.
 */
public interface LoadView {
  /** Requests this client has in flight on the replica at {@code index}. */
  int inFlight(int index);

  /**
   * This client's requests in flight on the whole fleet: the sum of {@link #inFlight(int)}, plus,
   * just after a membership change, requests still running on replicas that have left.
   */
  long totalInFlight();
}
