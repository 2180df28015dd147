package io.github.llmrouter;

import static java.util.Objects.requireNonNull;

import io.github.llmrouter.api.Ticker;
import io.github.llmrouter.internal.dispatch.FleetState;
import io.github.llmrouter.internal.health.HealthProber;
import io.github.llmrouter.internal.health.StatusTracker;
import io.github.llmrouter.internal.transport.ModelDiscovery;
import io.github.llmrouter.internal.transport.RateLimitedLog;
import io.github.llmrouter.observe.ResolverErrorEvent;
import io.github.llmrouter.observe.RoutingListener;
import io.github.llmrouter.replica.ReplicaResolver;
import io.github.llmrouter.replica.ReplicaSet;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Connects a {@link ReplicaResolver} to the client: every snapshot it publishes goes to the status
 * tracker (membership events, slow start), the fleet (a new routing table), the health prober
 * (probes for new replicas) and model discovery (listings for new replicas), in that order and one
 * snapshot at a time. Owns the prober and the discovery: closing it closes them. Thread-safe.
 */
final class Membership implements ReplicaResolver.Context, AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(Membership.class);

  private final ReplicaResolver resolver;
  private final FleetState fleet;
  private final StatusTracker statuses;
  private final @Nullable HealthProber prober;
  private final @Nullable ModelDiscovery discovery;
  private final Supplier<ScheduledExecutorService> scheduler;
  private final Ticker ticker;
  private final RoutingListener listener;
  private boolean closed; // guarded by this
  /** A resolver that keeps failing is logged at WARN once a minute at most. */
  private final RateLimitedLog failureLog;
  /** Failures since the last snapshot published. */
  private final AtomicInteger failures = new AtomicInteger();

  /**
   * @param prober the active health checks, or null if there are none
   * @param discovery asks replicas which models they serve, or null if they are not asked
   * @param listener receives resolver errors; must not throw
   */
  Membership(ReplicaResolver resolver, FleetState fleet, StatusTracker statuses,
      @Nullable HealthProber prober, @Nullable ModelDiscovery discovery,
      Supplier<ScheduledExecutorService> scheduler, Ticker ticker, RoutingListener listener) {
    this.resolver = resolver;
    this.fleet = fleet;
    this.statuses = statuses;
    this.prober = prober;
    this.discovery = discovery;
    this.scheduler = scheduler;
    this.ticker = ticker;
    this.listener = listener;
    this.failureLog = new RateLimitedLog(ticker, RateLimitedLog.MINUTE_NANOS);
  }

  void start() {
    resolver.start(this);
  }

  @Override
  public synchronized void publish(ReplicaSet replicas) {
    requireNonNull(replicas, "replicas");
    if (closed) return;
    int failed = failures.getAndSet(0);
    if (failed > 0) {
      log.info("{} recovered after {} failures", resolver.name(), failed);
      failureLog.reset();
    }
    // Statuses first, so a joining replica's slow start is set before it becomes routable.
    statuses.update(replicas, resolver.name());
    fleet.update(replicas);
    if (prober != null) prober.update(replicas);
    if (discovery != null) discovery.update(replicas);
  }

  @Override
  public void failed(Throwable error) {
    requireNonNull(error, "error");
    int failed = failures.incrementAndGet();
    long held = failureLog.permit();
    if (held >= 0) {
      log.warn("{} failed{}; keeping the last replicas: {}", resolver.name(),
          failed == 1 ? "" : " (" + failed + " times in a row)", error.toString());
    }
    if (listener != RoutingListener.NONE) {
      listener.onResolverError(new ResolverErrorEvent(resolver.name(), error));
    }
  }

  @Override
  public ScheduledExecutorService scheduler() {
    return scheduler.get();
  }

  @Override
  public Ticker ticker() {
    return ticker;
  }

  @Override
  public void close() {
    synchronized (this) {
      if (closed) return;
      closed = true;
    }
    try {
      resolver.close();
    } catch (RuntimeException e) {
      log.warn("{} failed to close", resolver.name(), e);
    }
    if (prober != null) prober.close();
    if (discovery != null) discovery.close();
  }
}
