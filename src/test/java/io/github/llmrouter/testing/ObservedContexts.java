package io.github.llmrouter.testing;

import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationHandler;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * The test fixture for observations: keeps every context an observation registry started, in
 * order, and those it stopped. Thread-safe.
 */
public final class ObservedContexts implements ObservationHandler<Observation.Context> {
  public final List<Observation.Context> started = new CopyOnWriteArrayList<>();
  public final Set<Observation.Context> stopped = ConcurrentHashMap.newKeySet();

  @Override
  public void onStart(Observation.Context context) {
    started.add(context);
  }

  @Override
  public void onStop(Observation.Context context) {
    stopped.add(context);
  }

  @Override
  public boolean supportsContext(Observation.Context context) {
    return true;
  }

  /** {@return the contexts started with {@code name}, in order} */
  public List<Observation.Context> named(String name) {
    return started.stream().filter(c -> c.getName().equals(name)).toList();
  }
}
