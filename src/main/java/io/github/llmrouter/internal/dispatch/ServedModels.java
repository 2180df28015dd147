package io.github.llmrouter.internal.dispatch;

import io.github.llmrouter.internal.transport.ModelList;
import io.github.llmrouter.replica.Replica;
import io.github.llmrouter.replica.ReplicaSet;
import java.util.Arrays;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import org.jspecify.annotations.Nullable;

/**
 * Which replicas of one membership snapshot serve which models: what a replica declares ({@link
 * Replica#models()}), else what it last listed ({@code /v1/models}). A model that some replica
 * declares or lists is <em>claimed</em>, and a request for it goes only to those replicas; a
 * request for a model nobody claims goes to every replica that declares nothing (its server
 * decides, as it would without routing by model: vLLM answers 404, llama.cpp its own model); a
 * request that names no model goes anywhere. Immutable; made for a snapshot, and again when a
 * listing changes, and only when it makes a difference, so that a fleet of one model pays nothing.
 */
final class ServedModels {
  /** Each replica's declared or listed models, at its snapshot index; empty if neither. */
  private final Set<String>[] byIndex;
  /** Per index: the models it serves but lists as not loaded now; usually empty. */
  private final Set<String>[] unloaded;
  /** Per index: whether the replica declares its models (then it serves nothing else). */
  private final boolean[] declares;
  /** Every claimed model, hashed for the lookups on the routing path. */
  private final Set<String> claimed;
  /** The same, sorted, for messages and routes in name order. */
  private final Set<String> sortedClaimed;
  /** Whether some replica declares nothing, and so may take models nobody claims. */
  private final boolean anyUndeclared;
  /** Replicas whose first listing has not ended yet. */
  private final int pending;
  /** Whether no listing of this fleet has been complete yet (start-up, scaling from zero). */
  private final boolean starting;
  /** Models the fleet has served and no replica of this snapshot claims; usually empty. */
  private final Set<String> gone;
  /** The claimed models some replica lists as a LoRA adapter; usually empty. */
  private final Set<String> adapters;

  private ServedModels(Set<String>[] byIndex, Set<String>[] unloaded, boolean[] declares,
      Set<String> claimed, boolean anyUndeclared, int pending, boolean starting,
      Set<String> gone, Set<String> adapters) {
    this.byIndex = byIndex;
    this.unloaded = unloaded;
    this.declares = declares;
    this.claimed = Set.copyOf(claimed);
    this.sortedClaimed = claimed;
    this.anyUndeclared = anyUndeclared;
    this.pending = pending;
    this.starting = starting;
    this.gone = gone;
    this.adapters = adapters;
  }

  /**
   * The models of a snapshot, or null if routing by model would change nothing: no replica
   * declares models, none awaits its first listing, and all listed the same.
   *
   * @param listings the last listing of each replica that has one, by replica id (a listing of a
   *     replica whose description has changed since is ignored)
   * @param listing whether replicas that declare nothing are asked for their models (then one
   *     without a listing yet is pending)
   * @param starting whether the fleet has not yet been without pending replicas since it was
   *     last empty: then every call that names a model waits for the first listings
   * @param known the models the fleet has served before; this snapshot's claimed models are
   *     added to it ({@link ModelCatalog#remember})
   */
  @SuppressWarnings("unchecked") // an array of one element type
  static @Nullable ServedModels of(ReplicaSet replicas, Map<String, Listing> listings,
      boolean listing, boolean starting, Set<String> known) {
    int n = replicas.size();
    Set<String>[] byIndex = new Set[n];
    Set<String>[] unloaded = new Set[n];
    boolean anyUnloaded = false;
    boolean[] declares = new boolean[n];
    Set<String> claimed = new TreeSet<>();
    boolean anyUndeclared = false;
    boolean anyDeclared = false;
    boolean alike = true;
    int pending = 0;
    Set<String> adapters = new HashSet<>();
    for (int i = 0; i < n; i++) {
      Replica r = replicas.get(i);
      Set<String> models = r.models();
      unloaded[i] = Set.of();
      if (!models.isEmpty()) {
        declares[i] = true;
        anyDeclared = true;
      } else {
        anyUndeclared = true;
        Listing l = listings.get(r.id());
        if (l != null && l.replica().equals(r)) {
          models = l.list().models();
          unloaded[i] = l.list().unloaded();
          anyUnloaded |= !unloaded[i].isEmpty();
          adapters.addAll(l.list().parents().keySet());
        } else if (listing) {
          pending++;
        }
      }
      byIndex[i] = models;
      claimed.addAll(models);
      if (i > 0 && !models.equals(byIndex[0])) alike = false;
    }
    Set<String> gone = Set.of();
    if (!claimed.containsAll(known)) {
      gone = new HashSet<>(known);
      gone.removeAll(claimed);
      gone = Set.copyOf(gone);
    }
    ModelCatalog.remember(known, claimed);
    if (!anyDeclared && pending == 0 && alike && gone.isEmpty() && !anyUnloaded
        && adapters.isEmpty()) {
      return null;
    }
    return new ServedModels(byIndex, unloaded, declares, claimed, anyUndeclared, pending,
        starting, gone, Set.copyOf(adapters));
  }

  /** {@return whether replica {@code index} declares or lists {@code model}} */
  boolean lists(int index, String model) {
    return byIndex[index].contains(model);
  }

  /** {@return how many LoRA adapters replica {@code index} lists} */
  int adapterCount(int index) {
    if (adapters.isEmpty()) return 0;
    int n = 0;
    for (String m : byIndex[index]) {
      if (adapters.contains(m)) n++;
    }
    return n;
  }

  /** {@return whether some replica declares or lists {@code model}} */
  boolean claims(String model) {
    return claimed.contains(model);
  }

  /**
   * Whether replica {@code index} may take a request for {@code model}: a claimed model only if
   * it declares or lists it, another only if it declares nothing; any replica a request that
   * names no model. Array and set lookups, no allocation.
   *
   * @param claimed {@link #claims claims(model)}, asked once per request
   */
  boolean serves(int index, String model, boolean claimed) {
    if (model.isEmpty()) return true;
    return claimed ? byIndex[index].contains(model) : !declares[index];
  }

  /**
   * Whether a replica other than {@code index} declares or lists {@code model}, which replica
   * {@code index} claimed too. A scan of the snapshot: for the rare answer that a claimed model
   * is unknown.
   */
  boolean servedElsewhere(int index, String model) {
    if (!byIndex[index].contains(model)) return false;
    for (int i = 0; i < byIndex.length; i++) {
      if (i != index && byIndex[i].contains(model)) return true;
    }
    return false;
  }

  /**
   * The claimed models that need a route of their own, at most {@code max} in name order: those
   * served by part of the snapshot, those some of whose replicas would have to load them first
   * (while others have them loaded), and LoRA adapters (whose calls keep to the replicas that
   * have them loaded: {@link AdapterAffinity}). Other models every replica serves, loaded, are
   * left out (the whole fleet's picker ranks them).
   */
  Map<String, Part> parts(int max) {
    Map<String, Part> parts = new TreeMap<>();
    int[] all = new int[byIndex.length];
    int[] loaded = new int[byIndex.length];
    for (String model : sortedClaimed) {
      if (parts.size() == max) break;
      int n = 0;
      int k = 0;
      for (int i = 0; i < byIndex.length; i++) {
        if (!byIndex[i].contains(model)) continue;
        all[n++] = i;
        if (!unloaded[i].contains(model)) loaded[k++] = i;
      }
      boolean partial = n > 0 && n < byIndex.length;
      boolean someUnloaded = k > 0 && k < n;
      boolean adapter = n > 0 && adapters.contains(model);
      if (partial || someUnloaded || adapter) {
        parts.put(model, new Part(Arrays.copyOf(all, n),
            someUnloaded ? Arrays.copyOf(loaded, k) : null, adapter));
      }
    }
    return parts;
  }

  /**
   * Whether replica {@code index} listed {@code model} as not loaded: a call for it there makes
   * the replica load it (and maybe unload another). An array and a set lookup.
   */
  boolean loadsOnDemand(int index, String model) {
    return unloaded[index].contains(model);
  }

  /**
   * The replicas of one model.
   *
   * @param replicas their fleet indices, ascending
   * @param loaded those that have it loaded, when only some do; else null
   * @param adapter whether the model is a LoRA adapter
   */
  record Part(int[] replicas, int @Nullable [] loaded, boolean adapter) {}

  /** {@return whether some replica of the snapshot may take a request for {@code model}} */
  boolean anyServes(String model) {
    return model.isEmpty() || anyUndeclared || claimed.contains(model);
  }

  /**
   * Whether a request for {@code model} should wait for first listings still to come: while a
   * replica not listed yet may be the one that serves a model nobody claims yet; and, at
   * start-up or after scaling from zero, for every model, so that the replicas listed first do
   * not take every call of the models they list. A replica that joins a listed fleet makes no
   * call of a claimed model wait: it takes none until it is listed.
   */
  boolean awaitsListing(String model) {
    if (pending == 0 || model.isEmpty()) return false;
    return starting || !claimed.contains(model);
  }

  /**
   * Whether a request for {@code model} should wait for a replica of it to appear: the fleet has
   * served the model before, and no replica of this snapshot declares or lists it.
   */
  boolean awaitsReplica(String model) {
    return !gone.isEmpty() && gone.contains(model);
  }

  /** {@return whether some replica has not yet ended its first listing} */
  boolean pending() {
    return pending > 0;
  }

  /** {@return the claimed models, sorted and comma-separated, for messages} */
  String claimed() {
    return String.join(", ", sortedClaimed);
  }

  /**
   * What a replica last said it serves.
   *
   * @param replica the replica as it was described when asked
   * @param list what it listed; no model if it listed none, or its first listing failed
   */
  record Listing(Replica replica, ModelList list) {}
}
