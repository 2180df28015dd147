package io.github.llmrouter;

import static java.util.Objects.requireNonNull;

import io.github.llmrouter.dispatch.RequestDispatcher;
import io.github.llmrouter.observe.ResolverErrorEvent;
import io.github.llmrouter.observe.RoutingListener;
import io.github.llmrouter.replica.HealthChecker;
import io.github.llmrouter.replica.HealthTracker;
import io.github.llmrouter.replica.ReplicaResolver;
import io.github.llmrouter.replica.ReplicaSet;
import java.util.concurrent.ScheduledExecutorService;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Connects a {@link ReplicaResolver} to the client: every snapshot it publishes goes to the health
 * tracker (membership events, slow start), the dispatcher (a new routing table) and the health
 * checker (probes for new replicas), in that order and one snapshot at a time.
 */
final class Membership implements ReplicaResolver.Context, AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(Membership.class);

  private final ReplicaResolver resolver;
  private final RequestDispatcher dispatcher;
  private final HealthTracker health;
  private final @Nullable HealthChecker checker;
  private final Supplier<ScheduledExecutorService> scheduler;
  private final Ticker ticker;
  private final RoutingListener listener;
  private boolean closed; // guarded by this

  Membership(ReplicaResolver resolver, RequestDispatcher dispatcher, HealthTracker health,
      @Nullable HealthChecker checker, Supplier<ScheduledExecutorService> scheduler, Ticker ticker,
      RoutingListener listener) {
    this.resolver = resolver;
    this.dispatcher = dispatcher;
    this.health = health;
    this.checker = checker;
    this.scheduler = scheduler;
    this.ticker = ticker;
    this.listener = listener;
  }

  void start() {
    resolver.start(this);
  }

  @Override
  public synchronized void publish(ReplicaSet replicas) {
    requireNonNull(replicas, "replicas");
    if (closed) return;
    // Health first, so a joining replica's slow start is set before it becomes routable.
    health.update(replicas, resolver.name());
    dispatcher.updateReplicas(replicas);
    if (checker != null) checker.update(replicas);
  }

  @Override
  public void failed(Throwable error) {
    requireNonNull(error, "error");
    log.warn("{} failed; keeping the last replicas: {}", resolver.name(), error.toString());
    if (listener == RoutingListener.NONE) return;
    try {
      listener.onResolverError(new ResolverErrorEvent(resolver.name(), error));
    } catch (RuntimeException e) {
      log.warn("RoutingListener threw; ignoring", e);
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
    if (checker != null) checker.close();
  }
}
