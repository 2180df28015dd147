package io.github.llmrouter.replica;

import static java.util.Objects.requireNonNull;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * An immutable snapshot of the fleet's membership. Routing policies index replicas by their
 * position in this snapshot; a membership change produces a new snapshot, never a mutation.
 *
 * @since 0.2.0
 */
public final class ReplicaSet {
  private static final ReplicaSet EMPTY = new ReplicaSet(List.of());

  private final List<Replica> replicas;
  private final Map<String, Integer> indexById;
  private final double totalWeight;

  private ReplicaSet(List<Replica> replicas) {
    this.replicas = List.copyOf(replicas);
    Map<String, Integer> index = new HashMap<>();
    double total = 0;
    for (int i = 0; i < this.replicas.size(); i++) {
      Replica r = this.replicas.get(i);
      if (index.putIfAbsent(r.id(), i) != null) {
        throw new IllegalArgumentException("replica ids must be unique, '" + r.id()
            + "' appears twice");
      }
      total += r.weight();
    }
    this.indexById = Map.copyOf(index);
    this.totalWeight = total;
  }

  /**
   * A snapshot of {@code replicas}, in that order.
   *
   * @param replicas the replicas, with unique ids; copied, not null
   * @return an immutable snapshot
   * @throws IllegalArgumentException if two replicas share an id
   */
  public static ReplicaSet of(List<Replica> replicas) {
    requireNonNull(replicas, "replicas");
    return replicas.isEmpty() ? EMPTY : new ReplicaSet(replicas);
  }

  /** {@return the empty snapshot} */
  public static ReplicaSet empty() {
    return EMPTY;
  }

  /** {@return the replicas, each at its snapshot index} */
  public List<Replica> replicas() {
    return replicas;
  }

  /** {@return the number of replicas} */
  public int size() {
    return replicas.size();
  }

  /** {@return whether the snapshot holds no replica} */
  public boolean isEmpty() {
    return replicas.isEmpty();
  }

  /**
   * {@return the replica at snapshot index {@code index}}
   *
   * @param index in [0, {@link #size()})
   * @throws IndexOutOfBoundsException if {@code index} is out of range
   */
  public Replica get(int index) {
    return replicas.get(index);
  }

  /**
   * {@return the snapshot index of the replica with this id, or -1 if it is not in the snapshot}
   *
   * @param id a replica id
   */
  public int indexOf(String id) {
    Integer i = indexById.get(id);
    return i == null ? -1 : i;
  }

  /** {@return the sum of all replicas' weights} */
  public double totalWeight() {
    return totalWeight;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof ReplicaSet && ((ReplicaSet) o).replicas.equals(replicas);
  }

  @Override
  public int hashCode() {
    return replicas.hashCode();
  }

  @Override
  public String toString() {
    List<String> ids = new ArrayList<>(replicas.size());
    for (Replica r : replicas) ids.add(r.id());
    return "ReplicaSet" + ids;
  }
}
