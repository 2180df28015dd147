package io.github.llmrouter.testing;

import io.github.llmrouter.replica.Replica;
import io.github.llmrouter.replica.ReplicaResolver;
import io.github.llmrouter.replica.ReplicaSet;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;

/** The test fixture for membership: a resolver that publishes what the test hands it. */
public final class HandResolver implements ReplicaResolver {
  private final AtomicReference<Context> context = new AtomicReference<>();

  @Override
  public void start(Context c) {
    context.set(c);
  }

  /** Publishes {@code replicas} as the fleet; the client must have been built. */
  public void publish(List<Replica> replicas) {
    context.get().publish(ReplicaSet.of(replicas));
  }

  @Override
  public String name() {
    return "by hand";
  }
}
