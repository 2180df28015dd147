package io.github.llmrouter.internal.dispatch;

import static java.util.Objects.requireNonNull;

import io.github.llmrouter.api.Ticker;
import io.github.llmrouter.internal.health.ReplicaStatus;
import io.github.llmrouter.internal.health.StatusTracker;
import io.github.llmrouter.internal.load.AdapterActivity;
import io.github.llmrouter.internal.load.LocalLoad;
import io.github.llmrouter.internal.transport.LoadReportSink;
import io.github.llmrouter.internal.transport.ModelList;
import io.github.llmrouter.internal.transport.ModelListingSink;
import io.github.llmrouter.internal.transport.RateLimitedLog;
import io.github.llmrouter.load.LoadReport;
import io.github.llmrouter.replica.Replica;
import io.github.llmrouter.replica.ReplicaSet;
import io.github.llmrouter.routing.RoutingPolicy;
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
        Eligibility.of(statuses, breakers, config.retry().maxRetryAfter(), none));
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

  /** Fails the calls waiting for replicas, and every later wait; called when the client closes. */
  public void close() {
    readiness.close();
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
