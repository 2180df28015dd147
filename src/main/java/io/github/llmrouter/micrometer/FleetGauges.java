package io.github.llmrouter.micrometer;

import io.github.llmrouter.observe.CircuitBreakerEvent;
import io.github.llmrouter.observe.EjectionEvent;
import io.github.llmrouter.observe.FleetSnapshot;
import io.github.llmrouter.observe.FleetView;
import io.github.llmrouter.observe.MembershipEvent;
import io.github.llmrouter.replica.Replica;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.ToDoubleFunction;
import org.jspecify.annotations.Nullable;

/**
 * The fleet's side of {@link LlmRouterMetrics}: which replicas are members (as membership events
 * say, since they come before the client's own fleet changes), each member's gauges (in-flight
 * requests, load-report age, circuit-breaker state) and ejection counter, the fleet's gauges and
 * those of each model calls ask for, read from the one client it serves. Thread-safe.
 */
final class FleetGauges {
  /** How long a fleet snapshot read by the gauges is reused: one pass over the fleet a scrape. */
  private static final long SNAPSHOT_TTL_NANOS = TimeUnit.MILLISECONDS.toNanos(500);

  private static final String[] BREAKER_STATES = {"closed", "open", "half_open"};

  private final MeterRegistry registry;
  private final Tags common;
  private final double targetMeanWaiting;

  /** The fleet's replicas, as membership events say. */
  private final Set<String> members = ConcurrentHashMap.newKeySet();
  /** Per member, once the client is known: its ejection counter and its gauges. */
  private final Map<String, ReplicaMeters> replicas = new ConcurrentHashMap<>();
  private final Map<String, String> breakerStates = new ConcurrentHashMap<>();
  private final List<Meter> fleetGauges = new ArrayList<>();
  /** The models calls have asked for (bounded by the caller); guarded by fleetGauges. */
  private final Set<String> models = new LinkedHashSet<>();
  /** The gauges of those models' parts of the fleet; guarded by fleetGauges. */
  private final List<Meter> modelGauges = new ArrayList<>();

  private volatile @Nullable FleetView client;
  private volatile @Nullable Snapshot snapshot;

  FleetGauges(MeterRegistry registry, Tags common, double targetMeanWaiting) {
    this.registry = registry;
    this.common = common;
    this.targetMeanWaiting = targetMeanWaiting;
  }

  /** Whether {@code replicaId} is in the fleet now. */
  boolean isMember(String replicaId) {
    return members.contains(replicaId);
  }

  void started(FleetView started) {
    synchronized (fleetGauges) {
      if (client != null) {
        throw new IllegalStateException("an LlmRouterMetrics serves one client; give each client "
            + "its own, with a tag that tells them apart");
      }
      client = started;
      for (Replica r : started.replicas()) members.add(r.id());
      fleetGauges.add(gauge("llm.router.replicas", "Replicas in the fleet", null, Tags.empty(),
          g -> started.replicas().size()));
      fleetGauges.add(gauge("llm.router.fleet.waiting",
          "Requests waiting on the replicas with a fresh load report", null, Tags.empty(),
          g -> g.fleet().totalWaiting()));
      fleetGauges.add(gauge("llm.router.fleet.replicas_needed",
          "Replicas that would bring the mean waiting requests per replica down to the target",
          null, Tags.of("target", Double.toString(targetMeanWaiting)),
          g -> g.fleet().replicasFor(targetMeanWaiting)));
      for (String model : models) addModelGauges(model);
    }
    sync();
  }

  /**
   * A call asked for {@code model} for the first time: its part of the fleet gets gauges (see
   * {@link FleetSnapshot#forModel}), now or once the client is known.
   */
  void modelSeen(String model) {
    if (model.isEmpty()) return;
    synchronized (fleetGauges) {
      if (models.add(model) && client != null) addModelGauges(model);
    }
  }

  private void addModelGauges(String model) {
    Tags tags = Tags.of("model", model);
    modelGauges.add(gauge("llm.router.model.replicas", "Replicas that serve the model", null,
        tags, g -> g.fleet().forModel(model).replicas().size()));
    modelGauges.add(gauge("llm.router.model.waiting",
        "Requests waiting on the model's replicas with a fresh load report", null, tags,
        g -> g.fleet().forModel(model).totalWaiting()));
    modelGauges.add(gauge("llm.router.model.replicas_needed",
        "Replicas of the model that would bring its mean waiting requests per replica down to "
            + "the target", null, tags.and("target", Double.toString(targetMeanWaiting)),
        g -> g.fleet().forModel(model).replicasFor(targetMeanWaiting)));
  }

  void closed(FleetView closed) {
    synchronized (fleetGauges) {
      if (client != closed) return;
      fleetGauges.forEach(registry::remove);
      fleetGauges.clear();
      modelGauges.forEach(registry::remove);
      modelGauges.clear();
      for (ReplicaMeters r : replicas.values()) r.gauges.forEach(registry::remove);
      client = null;
    }
  }

  void membershipChanged(MembershipEvent e) {
    if (e.change() == MembershipEvent.Change.REMOVED) {
      members.remove(e.replicaId());
      breakerStates.remove(e.replicaId());
    } else {
      members.add(e.replicaId());
    }
    sync();
  }

  void ejection(EjectionEvent e) {
    if (!e.ejected()) return;
    ReplicaMeters r = replicas.get(e.replicaId());
    if (r != null) r.ejections.increment();
  }

  void circuitBreaker(CircuitBreakerEvent e) {
    breakerStates.put(e.replicaId(), e.to().toLowerCase(Locale.ROOT));
  }

  /** Gives every member its meters once the client is known, and removes those of non-members. */
  private void sync() {
    synchronized (replicas) {
      if (client != null) {
        for (String id : members) replicas.computeIfAbsent(id, this::replicaMeters);
      }
      replicas.entrySet().removeIf(en -> {
        if (isMember(en.getKey())) return false;
        en.getValue().removeFrom(registry);
        return true;
      });
    }
  }

  private ReplicaMeters replicaMeters(String id) {
    Tags tags = Tags.of("replica", id);
    List<Meter> gauges = new ArrayList<>();
    gauges.add(gauge("llm.router.in_flight", "This client's requests in flight on the replica",
        null, tags, g -> g.inFlight(id)));
    gauges.add(gauge("llm.router.load_report.age",
        "Age of the replica's latest load report (NaN if it never reported)", "seconds", tags,
        g -> g.reportAgeSeconds(id)));
    for (String state : BREAKER_STATES) {
      gauges.add(gauge("llm.router.circuit_breaker.state",
          "1 for the state the replica's circuit breaker is in, 0 for the others", null,
          tags.and("state", state),
          g -> state.equals(g.breakerStates.getOrDefault(id, "closed")) ? 1 : 0));
    }
    Counter ejections = Counter.builder("llm.router.ejections")
        .description("Times outlier detection ejected the replica").tags(common).tags(tags)
        .register(registry);
    return new ReplicaMeters(ejections, gauges);
  }

  private Gauge gauge(String name, String description, @Nullable String unit, Tags tags,
      ToDoubleFunction<FleetGauges> value) {
    return Gauge.builder(name, this, value).description(description).baseUnit(unit).tags(common)
        .tags(tags).strongReference(true).register(registry);
  }

  private double inFlight(String replicaId) {
    FleetView c = client;
    return c == null ? Double.NaN : c.inFlight(replicaId);
  }

  private double reportAgeSeconds(String replicaId) {
    FleetSnapshot.ReplicaLoad load = snapshot().byId.get(replicaId);
    Duration age = load == null ? null : load.reportAge();
    return age == null ? Double.NaN : age.toNanos() / 1e9;
  }

  private FleetSnapshot fleet() {
    return snapshot().fleet;
  }

  /** The fleet as the client sees it, read at most once per {@link #SNAPSHOT_TTL_NANOS}. */
  private Snapshot snapshot() {
    long now = System.nanoTime();
    Snapshot s = snapshot;
    if (s != null && now - s.readAt < SNAPSHOT_TTL_NANOS) return s;
    FleetView c = client;
    if (c == null) return Snapshot.EMPTY;
    s = new Snapshot(c.fleet(), now);
    snapshot = s;
    return s;
  }

  private record ReplicaMeters(Counter ejections, List<Meter> gauges) {
    void removeFrom(MeterRegistry registry) {
      registry.remove(ejections);
      gauges.forEach(registry::remove);
    }
  }

  private static final class Snapshot {
    static final Snapshot EMPTY = new Snapshot(new FleetSnapshot(List.of(), 0, 0, 0, 0, 0, 0, 0,
        0), Long.MIN_VALUE);

    final FleetSnapshot fleet;
    final Map<String, FleetSnapshot.ReplicaLoad> byId = new HashMap<>();
    final long readAt;

    Snapshot(FleetSnapshot fleet, long readAt) {
      this.fleet = fleet;
      this.readAt = readAt;
      for (FleetSnapshot.ReplicaLoad r : fleet.replicas()) byId.put(r.replicaId(), r);
    }
  }
}
