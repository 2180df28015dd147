package io.github.llmrouter.internal.dispatch;

import io.github.llmrouter.internal.transport.ModelList;
import io.github.llmrouter.replica.Replica;
import io.github.llmrouter.replica.ReplicaSet;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * What a client knows of the models its replicas serve, across membership snapshots: each
 * replica's last listing, whether replicas are listed at all, whether the fleet has been listed
 * in full since it was last empty, and the models the fleet has served (at most {@value
 * #MAX_KNOWN}, the oldest forgotten first), from which it makes each snapshot's {@link
 * ServedModels}. Not thread-safe: its owner ({@link FleetState}) guards it.
 */
final class ModelCatalog {
  /** Models remembered as once served. */
  static final int MAX_KNOWN = 1024;

  private final Map<String, ServedModels.Listing> listings = new HashMap<>();
  /** Every model declared or listed since the client started, oldest first. */
  private final Set<String> known = new LinkedHashSet<>();
  private boolean listing;
  /** Whether the fleet has had replicas, all listed, since it was last empty. */
  private boolean listedOnce;

  /** Replicas that declare no models are listed from now on (before the first snapshot). */
  void listing() {
    listing = true;
  }

  /**
   * Models calls may ask for before any replica serves them (adapters the client loads on
   * demand): a call for one waits for a replica, as for a model once served.
   */
  void expect(Collection<String> models) {
    remember(known, new LinkedHashSet<>(models));
  }

  /** {@return the last listing of replica {@code id}, or null} */
  @Nullable ModelList listing(String id) {
    ServedModels.Listing l = listings.get(id);
    return l == null ? null : l.list();
  }

  /** A new membership: replicas that left, or whose description changed, lose their listing. */
  void membership(ReplicaSet replicas) {
    listings.values().removeIf(l -> !inFleet(replicas, l.replica()));
    if (replicas.isEmpty()) listedOnce = false;
  }

  /**
   * Takes a replica's listing (null: it failed, which keeps the last good one, or for a replica
   * never listed ends its first listing with no models).
   *
   * @return whether what the fleet serves changed
   */
  boolean listed(ReplicaSet replicas, Replica replica, @Nullable ModelList models) {
    if (!inFleet(replicas, replica)) return false;
    ServedModels.Listing last = listings.get(replica.id());
    if (models == null && last != null) return false;
    ModelList now = models == null ? ModelList.of(Set.of()) : models;
    if (last != null && last.list().equals(now)) return false;
    listings.put(replica.id(), new ServedModels.Listing(replica, now));
    return true;
  }

  /** {@return what each replica of {@code replicas} serves: its declared models, else its listing} */
  Map<String, Set<String>> byReplica(ReplicaSet replicas) {
    Map<String, Set<String>> served = new HashMap<>();
    for (Replica r : replicas.replicas()) {
      ServedModels.Listing l = listings.get(r.id());
      if (!r.models().isEmpty()) served.put(r.id(), r.models());
      else if (l != null && l.replica().equals(r)) served.put(r.id(), l.list().models());
    }
    return served;
  }

  /** A table was published on which no first listing is to come. */
  void settled() {
    listedOnce = true;
  }

  /** {@return the served models of {@code replicas}, or null if routing by model changes nothing} */
  @Nullable ServedModels served(ReplicaSet replicas) {
    return ServedModels.of(replicas, listings, listing, !listedOnce, known);
  }

  /** Adds {@code models} to the known ones, forgetting the oldest beyond {@link #MAX_KNOWN}. */
  static void remember(Set<String> known, Set<String> models) {
    for (String m : models) {
      if (known.add(m) && known.size() > MAX_KNOWN) {
        known.remove(known.iterator().next());
      }
    }
  }

  private static boolean inFleet(ReplicaSet replicas, Replica replica) {
    int i = replicas.indexOf(replica.id());
    return i >= 0 && replicas.get(i).equals(replica);
  }
}
