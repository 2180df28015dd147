package io.github.llmrouter.internal.dispatch;

import static java.util.Objects.requireNonNull;

import io.github.llmrouter.api.Ticker;
import io.github.llmrouter.internal.health.ReplicaStatus;
import io.github.llmrouter.internal.health.StatusTracker;
import io.github.llmrouter.internal.load.AdapterActivity;
import io.github.llmrouter.internal.load.LocalLoad;
import io.github.llmrouter.internal.transport.AdapterLoader;
import io.github.llmrouter.internal.transport.LoadReportSink;
import io.github.llmrouter.internal.transport.ModelList;
import io.github.llmrouter.internal.transport.ModelListingSink;
import io.github.llmrouter.internal.transport.RateLimitedLog;
import io.github.llmrouter.load.LoadReport;
import io.github.llmrouter.replica.LoraAdapter;
import io.github.llmrouter.replica.Replica;
import io.github.llmrouter.replica.ReplicaSet;
import io.github.llmrouter.routing.RoutedAttempt;
import io.github.llmrouter.routing.RoutingPolicy;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The fleet as the dispatcher sees it: the current {@link RoutingTable} (membership snapshot,
 * picker, load view, eligibility), replaced whole when membership changes so that a call sees one
 * consistent fleet for all its attempts; the calls waiting for replicas; the admission queue; and
 * the destination of the load reports the transport reads. Thread-safe: reads are one volatile
 * read; membership updates are serialized.
 */
public final class FleetState implements LoadReportSink, ModelListingSink {
  private static final Logger LOG = LoggerFactory.getLogger(FleetState.class);
  private final RoutingPolicy policy;
  private final FleetReadiness readiness;
  private final @Nullable AdmissionGate admission;
  private final StatusTracker statuses;
  private final Supplier<ScheduledExecutorService> scheduler;
  private final Ticker ticker;
  /** Whether the stall watchdog's sweep over attempts in flight runs (it starts on first need). */
  private final AtomicBoolean sweeping = new AtomicBoolean();
  private volatile RoutingTable table;
  /** What the replicas serve, across snapshots; guarded by this. */
  private final ModelCatalog models = new ModelCatalog();
  /** Asks every replica for its models again; a no-op unless they are asked. */
  private volatile Runnable relist = () -> { };
  /** Asks one replica for its models again; a no-op unless they are asked. */
  private volatile Consumer<String> relistOne = id -> { };
  /** Loads LoRA adapters on demand; null unless the client does. */
  private volatile @Nullable AdapterPlacement placement;
  /** What every routing table's adapter affinity tells the placement, if there is one. */
  private final AdapterAffinity.Placement placementHook = (replicaId, adapter, attempt) -> {
    AdapterPlacement p = placement;
    return p == null ? attempt : p.sent(replicaId, adapter, attempt);
  };

  /**
   * An empty fleet.
   *
   * @param config the client's dispatch configuration
   * @param statuses the replicas' health, ejections, pauses and slow start
   * @param scheduler where admission waits time out and the stall watchdog looks at attempts in
   *     flight; asked for lazily
   */
  public FleetState(DispatcherConfig config, StatusTracker statuses,
      Supplier<ScheduledExecutorService> scheduler) {
    this.policy = config.policy();
    this.statuses = statuses;
    this.scheduler = scheduler;
    this.ticker = config.ticker();
    ReplicaSet none = ReplicaSet.empty();
    ReplicaBreakers breakers =
        new ReplicaBreakers(config.circuitBreaker(), config.ticker(), config.listener());
    // A breaker opened by failures to reach its replica probes as soon as the replica is back.
    statuses.onReachedAgain(breakers::reachable);
    this.table = RoutingTable.initial(
        LocalLoad.of(none, config.ticker(), config.reportStaleAfter()), policy,
        Eligibility.of(statuses, breakers, config.retry().maxRetryAfter(), none), placementHook);
    this.readiness = new FleetReadiness(config.maxWaitingCalls());
    readiness.onTable(table.replicas, false);
    if (config.admission().enabled()) {
      AdmissionGate gate = new AdmissionGate(config.admission(), () -> table.load, scheduler);
      table.load.onRelease(gate::onLoadChanged); // a completion may make room
      this.admission = gate;
    } else {
      this.admission = null;
    }
  }

  /**
   * Replaces the fleet; calls in progress finish on the snapshot they started with.
   *
   * @param replicas the new membership
   */
  public synchronized void update(ReplicaSet replicas) {
    requireNonNull(replicas, "replicas");
    if (!replicas.equals(table.replicas)) {
      models.membership(replicas);
      AdapterPlacement p = placement;
      if (p != null) {
        Set<String> ids = new HashSet<>();
        for (Replica r : replicas.replicas()) ids.add(r.id());
        p.keepOnly(ids);
      }
      table = table.next(replicas, policy, models.served(replicas));
    }
    published();
  }

  /** Tells the waiting calls about a new table. */
  private void published() {
    boolean settled = table.settled();
    if (settled) models.settled();
    readiness.onTable(table.replicas, settled);
  }

  /**
   * Routes by what replicas list as well as by what they declare: a replica that declares no
   * models takes no request for a model another replica serves until its first listing; {@code
   * relist} asks them all again. Called once, before the first snapshot.
   *
   * @param relist asks every replica for its models again (rate-limited by its owner)
   * @param relistOne asks one replica, by id, for its models again (rate-limited by its owner)
   */
  public synchronized void listModels(Runnable relist, Consumer<String> relistOne) {
    this.relist = requireNonNull(relist, "relist");
    this.relistOne = requireNonNull(relistOne, "relistOne");
    models.listing();
  }

  /**
   * Loads {@code adapters} on demand on replicas of their base models, through {@code loader}: a
   * call for one that no replica lists waits for a replica, as for a model once served. Called
   * once, after {@link #listModels} and before the first snapshot.
   */
  public synchronized void placeAdapters(List<LoraAdapter> adapters, AdapterLoader loader) {
    placement = new AdapterPlacement(adapters, loader, this, ticker);
    List<String> names = new ArrayList<>();
    for (LoraAdapter a : adapters) names.add(a.name());
    models.expect(names);
  }

  /** A call waits for a replica of {@code model}: if it is an adapter loaded on demand, load it. */
  void adapterNeeded(String model) {
    AdapterPlacement p = placement;
    if (p != null) p.needed(model);
  }

  /**
   * This client loaded {@code adapter} of {@code baseModel} on {@code replica}, or (null base)
   * is unloading it: its listing says so until the replica is listed again.
   */
  synchronized void adapterChanged(Replica replica, String adapter, @Nullable String baseModel) {
    ModelList last = models.listing(replica.id());
    if (last == null) return;
    Set<String> served = new LinkedHashSet<>(last.models());
    Map<String, String> parents = new HashMap<>(last.parents());
    if (baseModel != null) {
      served.add(adapter);
      parents.put(adapter, baseModel);
    } else {
      served.remove(adapter);
      parents.remove(adapter);
    }
    listed(replica, new ModelList(served, last.unloaded(), parents));
  }

  /** Asks {@code replica} for its models again (at most once a second). */
  void relist(Replica replica) {
    relistOne.accept(replica.id());
  }

  /**
   * A call was answered by a replica that had listed its model as not loaded: it has loaded it,
   * and may have unloaded another; ask it again.
   */
  void loadedOnDemand(Replica replica) {
    relistOne.accept(replica.id());
  }

  /**
   * Takes a replica's listing; a failed one keeps its last good listing (or, for a replica never
   * listed, ends its first listing with no models). Ignored for a replica not in the fleet.
   */
  @Override
  public synchronized void listed(Replica replica, @Nullable ModelList listed) {
    AdapterPlacement p = placement;
    if (p != null && listed != null) listed = p.withoutUnloaded(replica.id(), listed);
    if (!models.listed(table.replicas, replica, listed)) return;
    table = table.withModels(models.served(table.replicas), policy);
    published();
  }

  /**
   * What each replica of the fleet serves, as calls are routed by it: its declared models, else
   * its last listing; replicas with neither are absent. One pass over the fleet, under the lock.
   *
   * @return the model names by replica id
   */
  public synchronized Map<String, Set<String>> modelsByReplica() {
    return models.byReplica(table.replicas);
  }

  /** An answer said its replica does not know the model asked for: ask every replica again. */
  void modelUnknown() {
    relist.run();
  }

  /**
   * Publishes a load report for {@code replica} (ignored if it is not in the fleet). A report from
   * a response header is taken relative to the in-flight count without that response's own
   * request.
   */
  @Override
  public void report(Replica replica, LoadReport report) {
    table.load.publish(replica.id(), report, report.source() == LoadReport.Source.HEADER);
    if (admission != null) admission.onLoadChanged();
  }

  @Override
  public void adapters(Replica replica, AdapterActivity activity) {
    RoutingTable t = table;
    int i = t.replicas.indexOf(replica.id());
    if (i < 0) return;
    long[] hashes = new long[activity.active().size()];
    for (int k = 0; k < hashes.length; k++) {
      hashes[k] = AdapterAffinity.hash(activity.active().get(k));
    }
    t.adapters.reported(i, hashes, activity.maxLora());
  }

  @Override
  public void refused(Replica replica, String why) {
    statuses.refused(replica.id(), why);
  }

  @Override
  public void reached(Replica replica, long answerNanos) {
    statuses.reached(replica.id(), answerNanos);
  }

  @Override
  public void timedOut(Replica replica, String what) {
    statuses.timedOut(replica.id(), what);
  }

  @Override
  public long stallBoundNanos(Replica replica) {
    return statuses.stallBoundNanos(replica.id());
  }

  @Override
  public boolean awaitsReach(Replica replica) {
    ReplicaStatus status = statuses.get(replica.id());
    return status != null && status.awaitsReach();
  }

  /** {@return whether the stall watchdog is on} */
  boolean watchesStalls() {
    return statuses.sweepIntervalNanos() > 0;
  }

  /**
   * Starts the stall watchdog's periodic look at the attempts in flight ({@link
   * StatusTracker#sweep}), if it has not started: when the first attempt it can judge is sent, so
   * that a client whose calls it never judges starts no timer. A volatile read once started.
   */
  void watchAttempts() {
    if (sweeping.get() || !sweeping.compareAndSet(false, true)) return;
    long interval = statuses.sweepIntervalNanos();
    if (interval == 0) return;
    RateLimitedLog failures = new RateLimitedLog(ticker, RateLimitedLog.MINUTE_NANOS);
    Runnable sweep = () -> {
      try {
        statuses.sweep();
      } catch (RuntimeException e) {
        // A periodic task that throws is never run again: log it, and keep watching.
        long held = failures.permit();
        if (held >= 0) LOG.warn("stall watchdog sweep failed ({} more held back)", held, e);
      }
    };
    try {
      scheduler.get().scheduleWithFixedDelay(sweep, interval, interval, TimeUnit.NANOSECONDS);
    } catch (RejectedExecutionException closed) {
      // The client is closing: nothing left to watch.
    }
  }

  /** {@return the current membership snapshot} */
  public ReplicaSet replicas() {
    return table.replicas;
  }

  /** {@return the current load view: in-flight counts and reports, indexed like the snapshot} */
  public LocalLoad load() {
    return table.load;
  }

  /**
   * This client's requests in flight on one replica.
   *
   * @param replicaId a {@link Replica#id()}
   * @return the count, 0 for a replica not in the fleet
   */
  public int inFlight(String replicaId) {
    RoutingTable t = table;
    int i = t.replicas.indexOf(replicaId);
    return i < 0 ? 0 : t.load.inFlight(i);
  }

  /** {@return a future of the first non-empty membership (complete at once if there is one)} */
  public CompletableFuture<List<Replica>> whenReady() {
    return readiness.firstReady();
  }

  /**
   * Fails the calls waiting for replicas, and every later wait, and cancels adapter loads in
   * flight; called when the client closes.
   */
  public void close() {
    readiness.close();
    AdapterPlacement p = placement;
    if (p != null) p.close();
  }

  RoutingTable table() {
    return table;
  }

  FleetReadiness readiness() {
    return readiness;
  }

  @Nullable AdmissionGate admission() {
    return admission;
  }
}
