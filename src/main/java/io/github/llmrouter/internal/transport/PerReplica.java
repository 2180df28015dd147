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
import java.util.function.Predicate;
import org.jspecify.annotations.Nullable;

/**
 * One background task per replica of a fleet (a health probe, a model listing): started when a
 * replica joins, stopped when it leaves, restarted when its description (URL, headers, models)
 * changes. Not thread-safe: its owner guards it.
 *
 * @param <T> the task
 */
public final class PerReplica<T extends PerReplica.Task> {
  /** A task of one replica. */
  public interface Task {
    /** {@return the replica, as it was described when the task started} */
    Replica replica();

    /** Stops the task; idempotent. */
    void stop();
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
