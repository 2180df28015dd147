package io.github.llmrouter.load;

import static java.util.Objects.requireNonNull;

import io.github.llmrouter.replica.Replica;
import io.github.llmrouter.replica.ReplicaSet;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The client's own in-flight counts, as a {@link LoadView} over one membership snapshot.
 *
 * <p>Counters are kept per replica id and carried into the next snapshot by {@link #next}, so a
 * replica that stays in the fleet keeps its count, and a request in flight across a membership
 * change releases the counter it acquired.
 */
public final class LocalLoad implements LoadView {
  private final ReplicaSet replicas;
  private final InFlightCounter[] counters;
  private final AtomicInteger total;

  private LocalLoad(ReplicaSet replicas, InFlightCounter[] counters, AtomicInteger total) {
    this.replicas = replicas;
    this.counters = counters;
    this.total = total;
  }

  /** A view with zero load over {@code replicas}. */
  public static LocalLoad of(ReplicaSet replicas) {
    return new LocalLoad(ReplicaSet.empty(), new InFlightCounter[0], new AtomicInteger())
        .next(replicas);
  }

  /**
   * The view over a new snapshot: replicas that remain keep their counters, new ones start at 0.
   * Requests in flight on removed replicas stop counting towards the total when they release.
   */
  public LocalLoad next(ReplicaSet snapshot) {
    requireNonNull(snapshot, "snapshot");
    Map<String, InFlightCounter> previous = new HashMap<>();
    for (int i = 0; i < counters.length; i++) previous.put(replicas.get(i).id(), counters[i]);
    InFlightCounter[] next = new InFlightCounter[snapshot.size()];
    for (int i = 0; i < next.length; i++) {
      Replica r = snapshot.get(i);
      InFlightCounter c = previous.get(r.id());
      next[i] = c != null ? c : new InFlightCounter(total);
    }
    return new LocalLoad(snapshot, next, total);
  }

  /** The snapshot this view is indexed by. */
  public ReplicaSet replicas() {
    return replicas;
  }

  /** The counter of the replica at {@code index}. */
  public InFlightCounter counter(int index) {
    return counters[index];
  }

  @Override
  public int inFlight(int index) {
    return counters[index].get();
  }

  @Override
  public long totalInFlight() {
    return total.get();
  }
}
