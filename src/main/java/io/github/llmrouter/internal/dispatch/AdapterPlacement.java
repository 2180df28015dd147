package io.github.llmrouter.internal.dispatch;

import io.github.llmrouter.api.Ticker;
import io.github.llmrouter.internal.transport.AdapterLoader;
import io.github.llmrouter.internal.transport.ModelDiscovery;
import io.github.llmrouter.internal.transport.ModelList;
import io.github.llmrouter.internal.transport.RateLimitedLog;
import io.github.llmrouter.replica.LoraAdapter;
import io.github.llmrouter.replica.Replica;
import io.github.llmrouter.routing.RoutedAttempt;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Loads the client's LoRA adapters on demand: when a call asks for one that no replica lists, or
 * when the replica a call of it went to carries more than its share of the load of its base
 * model's replicas ({@link AdapterAffinity.Share}), the adapter is loaded on one more replica
 * of its base model, the first in the adapter's rendezvous order that has room for it: fewer
 * adapters listed than it runs at once ({@code max_lora} as it reports, else {@link
 * AdapterAffinity#SLOTS}), or an adapter this client loaded there that no call of this client is
 * using, which is unloaded first, the least recently used; never one it did not load. The replica
 * is taken to list the adapter as soon as the load succeeds (and asked again), so waiting calls go
 * on at once. One placement per adapter at a time; a replica that refuses a load (the server does
 * not allow runtime updates, the path is wrong) is not asked for that adapter again for {@link
 * #REFUSAL_NANOS}. Thread-safe: decisions under the object's lock, loads on the loader's threads.
 */
final class AdapterPlacement implements AdapterAffinity.Placement {
  private static final Logger log = LoggerFactory.getLogger(AdapterPlacement.class);
  /** How long a replica that refused to load an adapter is not asked for it again: 30 s. */
  static final long REFUSAL_NANOS = TimeUnit.SECONDS.toNanos(30);
  /**
   * How long after an unload a listing that still shows the adapter is taken to be older than
   * the unload: twice a listing's timeout, so that every listing asked before it has ended.
   */
  static final long UNLOADED_NANOS = 2 * ModelDiscovery.LISTING_TIMEOUT.toNanos();
  /** In {@link #unloadedUntil}: the unload has not ended yet. */
  private static final long UNLOADING = Long.MAX_VALUE;

  private final Map<String, LoraAdapter> byName = new HashMap<>();
  private final Map<Long, LoraAdapter> byHash = new HashMap<>();
  private final AdapterLoader loader;
  private final FleetState fleet;
  private final Ticker ticker;
  private final RateLimitedLog noRoom;
  private final RateLimitedLog refusals;
  // Guarded by this.
  private final Set<String> placing = new HashSet<>();
  /** Per replica id: the adapters this client loaded there, least recently used first. */
  private final Map<String, LinkedHashMap<String, Use>> ours = new HashMap<>();
  /** Per replica id and adapter name: until when not to ask it to load that adapter. */
  private final Map<String, Long> refusedUntil = new HashMap<>();
  /**
   * Per replica id and adapter name: an adapter this client unloaded there, and until when a
   * listing that still shows it is taken to have been asked before the unload.
   */
  private final Map<String, Long> unloadedUntil = new HashMap<>();

  /** This client's calls of one adapter it loaded on one replica. */
  private static final class Use {
    final AtomicInteger inFlight = new AtomicInteger();
  }

  AdapterPlacement(List<LoraAdapter> adapters, AdapterLoader loader, FleetState fleet,
      Ticker ticker) {
    for (LoraAdapter a : adapters) {
      byName.put(a.name(), a);
      byHash.put(AdapterAffinity.hash(a.name()), a);
    }
    this.loader = loader;
    this.fleet = fleet;
    this.ticker = ticker;
    this.noRoom = new RateLimitedLog(ticker, RateLimitedLog.MINUTE_NANOS);
    this.refusals = new RateLimitedLog(ticker, RateLimitedLog.MINUTE_NANOS);
  }

  /** A call asks for {@code model}, which no replica lists: load it, if it is one of ours. */
  void needed(String model) {
    LoraAdapter a = byName.get(model);
    if (a != null) place(a, true);
  }

  @Override
  public RoutedAttempt sent(String replicaId, long adapter, RoutedAttempt attempt) {
    LoraAdapter a = byHash.get(adapter);
    if (a == null) return attempt;
    if (crowded(a, replicaId)) place(a, false);
    Use use;
    synchronized (this) {
      LinkedHashMap<String, Use> there = ours.get(replicaId);
      use = there == null ? null : there.get(a.name()); // access order: now the most recent
    }
    if (use == null) return attempt; // not loaded by this client: never unloaded by it
    use.inFlight.incrementAndGet();
    Use counted = use;
    return new RoutedAttempt() {
      @Override
      public void firstToken(long nanos) {
        attempt.firstToken(nanos);
      }

      @Override
      public void completed(long promptTokens, long cachedTokens, long nanos) {
        counted.inFlight.decrementAndGet();
        attempt.completed(promptTokens, cachedTokens, nanos);
      }

      @Override
      public void failed(long nanos) {
        counted.inFlight.decrementAndGet();
        attempt.failed(nanos);
      }
    };
  }

  /**
   * Whether the replica a call of {@code a} just went to carries more than its share of the load
   * of {@code a}'s base model's replicas: then the adapter should run on one more. A pass over
   * the fleet, for the calls of adapters loaded on demand only.
   */
  private boolean crowded(LoraAdapter a, String replicaId) {
    RoutingTable table = fleet.table();
    ServedModels models = table.models;
    int chosen = table.replicas.indexOf(replicaId);
    if (models == null || chosen < 0) return false;
    int[] base = new int[table.replicas.size()];
    int n = 0;
    for (int i = 0; i < base.length; i++) {
      if (models.lists(i, a.baseModel())) base[n++] = i;
    }
    return n > 1 && !new AdapterAffinity.Share(table.load, Arrays.copyOf(base, n)).admits(chosen);
  }

  /**
   * Loads {@code a} on one more replica, if one has room and no placement of it is under way;
   * with {@code unlisted}, only if no replica lists it now (a call that waited for it may have
   * read the fleet before a load of it ended).
   */
  private void place(LoraAdapter a, boolean unlisted) {
    Replica target;
    @Nullable String victim = null;
    synchronized (this) {
      if (placing.contains(a.name())) return;
      RoutingTable table = fleet.table();
      ServedModels models = table.models;
      if (models == null) return; // nothing listed yet: a listing brings the next table
      if (unlisted && models.claims(a.name())) return;
      int[] all = new int[table.replicas.size()];
      for (int i = 0; i < all.length; i++) all[i] = i;
      long now = ticker.read();
      target = null;
      boolean claimed = models.claims(a.baseModel());
      for (int i : table.adapters.rendezvous(AdapterAffinity.hash(a.name()), all)) {
        Replica r = table.replicas.get(i);
        if (!claimed || !models.lists(i, a.baseModel()) || models.lists(i, a.name())) continue;
        Long until = refusedUntil.get(key(r.id(), a.name()));
        if (until != null && until - now > 0) continue;
        if (models.adapterCount(i) >= table.adapters.slots(i)) {
          victim = idleOfOurs(r.id());
          if (victim == null) continue;
        }
        target = r;
        break;
      }
      if (target == null) {
        if (noRoom.permit() >= 0) {
          log.warn("cannot load LoRA adapter '{}': no replica of '{}' has room for it (every "
              + "one runs as many adapters as it holds at once, none of them idle and loaded by "
              + "this client), or each refused it", a.name(), a.baseModel());
        }
        return;
      }
      placing.add(a.name());
      if (victim != null) {
        LinkedHashMap<String, Use> there = ours.get(target.id());
        if (there != null) there.remove(victim);
        unloading(target.id(), victim);
      }
    }
    Replica replica = target;
    String evicted = victim;
    CompletableFuture<AdapterLoader.Outcome> room;
    if (evicted == null) {
      room = CompletableFuture.completedFuture(AdapterLoader.Outcome.DONE);
    } else {
      // Out of the listing first, so that no call goes there while it is unloaded.
      fleet.adapterChanged(replica, evicted, null);
      room = loader.unload(replica, evicted)
          .whenComplete((o, t) -> unloaded(replica.id(), evicted));
    }
    room.thenCompose(o -> o == AdapterLoader.Outcome.FAILED
            ? CompletableFuture.completedFuture(o) : loader.load(replica, a.name(), a.path()))
        .whenComplete((o, t) -> loaded(replica, a, evicted,
            o == null ? AdapterLoader.Outcome.FAILED : o, unlisted));
  }

  private void loaded(Replica replica, LoraAdapter a, @Nullable String evicted,
      AdapterLoader.Outcome outcome, boolean unlisted) {
    boolean retry = false;
    synchronized (this) {
      placing.remove(a.name());
      if (outcome != AdapterLoader.Outcome.FAILED) unloadedUntil.remove(key(replica.id(), a.name()));
      switch (outcome) {
        case DONE -> ours.computeIfAbsent(replica.id(), id -> new LinkedHashMap<>(8, 0.75f, true))
            .put(a.name(), new Use());
        case ALREADY -> { } // someone else's: listed, never unloaded by this client
        case FAILED -> {
          refusedUntil.put(key(replica.id(), a.name()), ticker.read() + REFUSAL_NANOS);
          retry = true;
        }
      }
    }
    if (outcome != AdapterLoader.Outcome.FAILED) {
      fleet.adapterChanged(replica, a.name(), a.baseModel());
    } else {
      if (refusals.permit() >= 0) {
        log.warn("replica {} did not load LoRA adapter '{}'{}; trying another replica of '{}'",
            replica.id(), a.name(), evicted == null ? "" : " (after unloading '" + evicted + "')",
            a.baseModel());
      }
    }
    fleet.relist(replica);
    if (retry) place(a, unlisted);
  }

  /** The least recently used adapter this client loaded on {@code replicaId} and is not using. */
  private @Nullable String idleOfOurs(String replicaId) {
    LinkedHashMap<String, Use> there = ours.get(replicaId);
    if (there == null) return null;
    for (Map.Entry<String, Use> e : there.entrySet()) {
      if (e.getValue().inFlight.get() == 0) return e.getKey();
    }
    return null;
  }

  /** This client starts unloading {@code adapter} from {@code replicaId}: no listing shows it. */
  synchronized void unloading(String replicaId, String adapter) {
    unloadedUntil.put(key(replicaId, adapter), UNLOADING);
  }

  /**
   * The unload ended: a listing may show the adapter again once every listing asked before the
   * unload has ended.
   */
  synchronized void unloaded(String replicaId, String adapter) {
    unloadedUntil.put(key(replicaId, adapter), ticker.read() + UNLOADED_NANOS);
  }

  /**
   * {@code listed}, less the adapters this client unloaded from replica {@code replicaId} so
   * recently that the listing may have been asked before: a listing answered during an unload
   * must not bring calls back to an adapter about to be gone.
   */
  synchronized ModelList withoutUnloaded(String replicaId, ModelList listed) {
    if (unloadedUntil.isEmpty()) return listed;
    long now = ticker.read();
    unloadedUntil.values().removeIf(until -> until != UNLOADING && until - now < 0);
    Set<String> models = null;
    for (String m : listed.parents().keySet()) {
      if (!unloadedUntil.containsKey(key(replicaId, m))) continue;
      if (models == null) models = new HashSet<>(listed.models());
      models.remove(m);
    }
    if (models == null) return listed;
    Map<String, String> parents = new HashMap<>(listed.parents());
    parents.keySet().retainAll(models);
    return new ModelList(models, listed.unloaded(), parents);
  }

  /** Replicas left the fleet: what this client loaded there is forgotten. */
  synchronized void keepOnly(Set<String> replicaIds) {
    ours.keySet().retainAll(replicaIds);
    refusedUntil.keySet().removeIf(k -> !replicaIds.contains(k.substring(0, k.indexOf('\n'))));
    unloadedUntil.keySet().removeIf(k -> !replicaIds.contains(k.substring(0, k.indexOf('\n'))));
  }

  private static String key(String replicaId, String adapter) {
    return replicaId + '\n' + adapter;
  }

  /** Cancels the loads and unloads in flight. */
  void close() {
    loader.close();
  }
}
