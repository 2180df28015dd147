package io.github.llmrouter.replica;

import static java.util.Objects.requireNonNull;

import io.github.llmrouter.api.Ticker;
import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.concurrent.ScheduledExecutorService;
import java.util.function.Supplier;

/**
 * Tells the client who is in the fleet: the discovery SPI. A resolver publishes immutable {@link
 * ReplicaSet} snapshots whenever membership changes; the client swaps its routing table on each,
 * off the request path. Replicas are matched across snapshots by {@link Replica#id()}: a replica
 * that stays keeps its ring positions, in-flight counters, health and circuit breaker, so a
 * membership change moves only the keys it must.
 *
 * <p>Built in: {@link #of(List)} (a fixed list), {@link #polling(Supplier, Duration)} (asks a
 * supplier on an interval), {@link DnsResolver} (A/AAAA records of a headless Service) and {@code
 * io.github.llmrouter.replica.kubernetes.KubernetesResolver} (EndpointSlices; needs the optional
 * fabric8 client). A registry that pushes changes implements {@link #start} itself:
 *
 * <pre>{@code
 * ReplicaResolver fromRegistry = context -> registry.watch(instances ->
 *     context.publish(ReplicaSet.of(instances.stream()
 *         .map(i -> Replica.builder(i.url()).weight(i.gpus()).build())
 *         .toList())));
 * LlmClient client = LlmClient.builder().resolver(fromRegistry).build();
 * }</pre>
 *
 * <p>Until the first non-empty snapshot, calls wait for it (up to their deadline); see {@code
 * LlmClient.whenReady()}.
 *
 * @since 0.2.0
 */
@FunctionalInterface
public interface ReplicaResolver extends AutoCloseable {
  /**
   * Starts resolving. Called once, by the client's builder; must not block for long: do lookups
   * on {@link Context#scheduler()} or the resolver's own threads, and publish from there.
   *
   * @param context where to publish snapshots and report failures; valid until {@link #close()}
   */
  void start(Context context);

  /** Stops resolving and releases the resolver's resources; called by {@code LlmClient.close()}. */
  @Override
  default void close() {}

  /**
   * {@return a short description for events and logs, e.g. {@code "DnsResolver:
   * my-llm.default.svc."}}
   */
  default String name() {
    return getClass().getSimpleName();
  }

  /**
   * A resolver that publishes {@code replicas} once and never changes.
   *
   * @param replicas the fleet; copied, not null
   * @return an immutable resolver
   */
  static ReplicaResolver of(List<Replica> replicas) {
    ReplicaSet set = ReplicaSet.of(requireNonNull(replicas, "replicas"));
    return new ReplicaResolver() {
      @Override
      public void start(Context context) {
        context.publish(set);
      }

      @Override
      public String name() {
        return "static";
      }
    };
  }

  /**
   * A resolver that asks {@code supplier} for the replicas now and then every {@code interval},
   * on the client's scheduler, and publishes what it returns when it differs from the last
   * answer. An exception from the supplier keeps the last answer and is reported as a {@code
   * ResolverErrorEvent}.
   *
   * @param supplier asked for the current fleet; called on the client's scheduler, so it should
   *     not block for long; not null
   * @param interval in [10 ms, 1 h]
   * @return a resolver that starts polling when the client starts it
   */
  static ReplicaResolver polling(Supplier<? extends Collection<Replica>> supplier,
      Duration interval) {
    return new PollingResolver(supplier, interval);
  }

  /**
   * What a resolver may use: where to publish, a scheduler for periodic work and the client's
   * time source. Thread-safe.
   */
  interface Context {
    /**
     * Publishes the fleet as it is now. A snapshot equal to the current one is ignored. Never
     * blocks on I/O: the routing table is rebuilt on the calling thread.
     *
     * @param replicas the whole fleet; not null
     */
    void publish(ReplicaSet replicas);

    /**
     * Reports a failed resolution; the last published snapshot stays in use. Delivered to the
     * listener as a {@code ResolverErrorEvent}.
     *
     * @param error what went wrong; not null
     */
    void failed(Throwable error);

    /**
     * The client's daemon scheduler, shut down by {@code LlmClient.close()}. Tasks must be short
     * and non-blocking or bounded by a timeout: the scheduler is shared with health checks.
     *
     * @return the scheduler; do not shut it down
     */
    ScheduledExecutorService scheduler();

    /** {@return the client's time source} */
    Ticker ticker();
  }
}
