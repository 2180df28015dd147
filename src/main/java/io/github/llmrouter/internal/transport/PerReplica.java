package io.github.llmrouter.internal.transport;

import io.github.llmrouter.replica.Replica;
import io.github.llmrouter.replica.ReplicaSet;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.Function;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import java.util.function.Supplier;
import okhttp3.Call;
import okhttp3.Callback;
import org.jspecify.annotations.Nullable;

/**
 * One background task per replica of a fleet (a health probe, a model listing): started when a
 * replica joins, stopped when it leaves, restarted when its description (URL, headers, models)
 * changes. Not thread-safe: its owner guards it (each {@link Task} is thread-safe).
 *
 * @param <T> the task
 */
public final class PerReplica<T extends PerReplica.Task> {
  /**
   * A task of one replica: its exchanges one at a time, each next one scheduled when the last
   * has ended, until {@link #stop()}. Thread-safe.
   */
  public abstract static class Task {
    private final Replica replica;
    private volatile boolean stopped;
    private volatile @Nullable ScheduledFuture<?> next;
    private volatile @Nullable Call inFlight;

    /** @param replica the replica, as it is described now */
    protected Task(Replica replica) {
      this.replica = replica;
    }

    /** {@return the replica, as it was described when the task started} */
    public final Replica replica() {
      return replica;
    }

    /** {@return whether the task has stopped} */
    protected final boolean stopped() {
      return stopped;
    }

    /**
     * Runs {@code action} on {@code scheduler} after {@code delayNanos}, unless the task has
     * stopped; a scheduler that refuses (the client is closing) stops it.
     */
    protected final void schedule(Supplier<ScheduledExecutorService> scheduler, Runnable action,
        long delayNanos) {
      if (stopped) return;
      try {
        next = scheduler.get().schedule(action, delayNanos, TimeUnit.NANOSECONDS);
      } catch (RejectedExecutionException closing) {
        stopped = true;
      }
    }

    /** Withdraws the scheduled run, if it has not started. */
    protected final void unschedule() {
      ScheduledFuture<?> f = next;
      if (f != null) f.cancel(false);
    }

    /** Sends {@code call} to the replica; {@link #stop()} cancels it. */
    protected final void send(Call call, Callback callback) {
      inFlight = call;
      call.enqueue(callback);
    }

    /** Stops the task: no run after this, the exchange in flight cancelled. Idempotent. */
    public final void stop() {
      stopped = true;
      unschedule();
      Call c = inFlight;
      if (c != null) c.cancel();
    }
  }

  private final Map<String, T> tasks = new HashMap<>();

  /**
   * Follows a new membership: stops the tasks of replicas that left, changed, or are no longer
   * {@code wanted}, and starts one for each wanted replica without one.
   *
   * @param start makes (and starts, or lets the caller start) a replica's task
   * @return the tasks started, in fleet order
   */
  public List<T> update(ReplicaSet replicas, Predicate<Replica> wanted,
      Function<Replica, T> start) {
    Map<String, Replica> next = new LinkedHashMap<>();
    for (Replica r : replicas.replicas()) {
      if (wanted.test(r)) next.put(r.id(), r);
    }
    tasks.entrySet().removeIf(e -> {
      if (Objects.equals(next.get(e.getKey()), e.getValue().replica())) return false;
      e.getValue().stop();
      return true;
    });
    List<T> started = new ArrayList<>();
    for (Replica r : next.values()) {
      if (tasks.containsKey(r.id())) continue;
      T task = start.apply(r);
      tasks.put(r.id(), task);
      started.add(task);
    }
    return started;
  }

  /** {@return the task of the replica with this id, or null if it has none} */
  public @Nullable T get(String replicaId) {
    return tasks.get(replicaId);
  }

  /** {@return the tasks, in no particular order} */
  public List<T> all() {
    return new ArrayList<>(tasks.values());
  }

  /** Stops and forgets every task. */
  public void stopAll() {
    tasks.values().forEach(Task::stop);
    tasks.clear();
  }
}
