package io.github.llmrouter.testing;

import io.github.llmrouter.api.Ticker;
import io.github.llmrouter.replica.ReplicaResolver;
import io.github.llmrouter.replica.ReplicaSet;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ScheduledExecutorService;

/**
 * The test fixture for resolvers: a {@link ReplicaResolver.Context} that records every snapshot
 * and error a resolver reports, on the scheduler the test gives it. Thread-safe.
 */
public final class RecordingContext implements ReplicaResolver.Context {
  public final List<ReplicaSet> published = new CopyOnWriteArrayList<>();
  public final List<Throwable> errors = new CopyOnWriteArrayList<>();
  private final ScheduledExecutorService scheduler;

  public RecordingContext(ScheduledExecutorService scheduler) {
    this.scheduler = scheduler;
  }

  @Override
  public void publish(ReplicaSet replicas) {
    published.add(replicas);
  }

  @Override
  public void failed(Throwable error) {
    errors.add(error);
  }

  @Override
  public ScheduledExecutorService scheduler() {
    return scheduler;
  }

  @Override
  public Ticker ticker() {
    return Ticker.system();
  }

  /** The last snapshot published; fails if there is none. */
  public ReplicaSet last() {
    return published.get(published.size() - 1);
  }
}
