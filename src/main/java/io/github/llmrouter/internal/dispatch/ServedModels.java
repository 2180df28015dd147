package io.github.llmrouter.internal.dispatch;

import io.github.llmrouter.replica.Replica;
import io.github.llmrouter.replica.ReplicaSet;
import java.util.Set;
import java.util.TreeSet;
import org.jspecify.annotations.Nullable;

/**
 * Which replicas of one membership snapshot serve which models, as their {@link Replica#models()}
 * declare: a request for a model goes only to replicas that declare it or declare nothing (those
 * serve whatever they are asked for). Immutable; made once per snapshot, and only for a fleet in
 * which some replica declares models, so that a fleet that declares none pays nothing.
 */
final class ServedModels {
  /** Each replica's declared models, at its snapshot index; empty for "any model". */
  private final Set<String>[] byIndex;
  /** Every model some replica declares, sorted, for messages. */
  private final Set<String> declared;
  /** Whether some replica declares nothing, and so serves any model. */
  private final boolean anyServesAll;

  @SuppressWarnings("unchecked") // an array of one element type
  private ServedModels(ReplicaSet replicas) {
    byIndex = new Set[replicas.size()];
    Set<String> all = new TreeSet<>();
    boolean open = false;
    for (int i = 0; i < byIndex.length; i++) {
      Set<String> models = replicas.get(i).models();
      byIndex[i] = models;
      all.addAll(models);
      if (models.isEmpty()) open = true;
    }
    declared = all;
    anyServesAll = open;
  }

  /** {@return the snapshot's models, or null if no replica declares any} */
  static @Nullable ServedModels of(ReplicaSet replicas) {
    for (Replica r : replicas.replicas()) {
      if (!r.models().isEmpty()) return new ServedModels(replicas);
    }
    return null;
  }

  /**
   * Whether replica {@code index} may take a request for {@code model}: it declares that model or
   * none; any replica may take a request that names no model. A set lookup.
   */
  boolean serves(int index, String model) {
    Set<String> models = byIndex[index];
    return model.isEmpty() || models.isEmpty() || models.contains(model);
  }

  /** {@return whether some replica of the snapshot may take a request for {@code model}} */
  boolean anyServes(String model) {
    return model.isEmpty() || anyServesAll || declared.contains(model);
  }

  /** {@return the models the replicas declare, sorted and comma-separated, for messages} */
  String declared() {
    return String.join(", ", declared);
  }
}
