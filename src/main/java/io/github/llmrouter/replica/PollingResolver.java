package io.github.llmrouter.replica;

import static java.util.Objects.requireNonNull;

import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/** Asks a supplier for the fleet on an interval: see {@link ReplicaResolver#polling}. */
final class PollingResolver implements ReplicaResolver {
  private final Supplier<? extends Collection<Replica>> supplier;
  private final Duration interval;
  private volatile @Nullable ScheduledFuture<?> task;

  PollingResolver(Supplier<? extends Collection<Replica>> supplier, Duration interval) {
    this.supplier = requireNonNull(supplier, "supplier");
    requireNonNull(interval, "interval");
    if (interval.compareTo(Duration.ofMillis(10)) < 0 || interval.compareTo(Duration.ofHours(1)) > 0) {
      throw new IllegalArgumentException("polling interval must be in [10 ms, 1 h], got " + interval);
    }
    this.interval = interval;
  }

  @Override
  public void start(Context context) {
    task = context.scheduler().scheduleWithFixedDelay(() -> poll(context), 0, interval.toNanos(),
        TimeUnit.NANOSECONDS);
  }

  private void poll(Context context) {
    try {
      Collection<Replica> replicas = supplier.get();
      context.publish(ReplicaSet.of(List.copyOf(requireNonNull(replicas, "supplied replicas"))));
    } catch (RuntimeException e) {
      context.failed(e);
    }
  }

  @Override
  public void close() {
    ScheduledFuture<?> t = task;
    if (t != null) t.cancel(false);
  }

  @Override
  public String name() {
    return "polling";
  }
}
