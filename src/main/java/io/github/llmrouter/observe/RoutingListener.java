package io.github.llmrouter.observe;

/**
 * Receives routing events: every replica choice with the reason for it, every failed attempt, and
 * the end of every call; and, from the side, every membership change, ejection, circuit-breaker
 * transition, health flip and panic. Request events are called on the request's thread (or an
 * OkHttp thread for asynchronous calls); fleet events on whichever thread noticed the change (a
 * request thread, the client's scheduler or a resolver's thread). Methods must return quickly and
 * be thread-safe; an exception thrown by a listener is logged and otherwise ignored.
 *
 * <pre>{@code
 * LlmClient client = LlmClient.builder()
 *     .replicas("http://10.0.0.7:8000", "http://10.0.0.8:8000")
 *     .listener(new RoutingListener() {
 * public void onRouted(RoutedEvent e) { log.debug("{} -> {} ({})", e.model(), e.replicaId(),
 * e.reason()); }
 *     })
 *     .build();
 * }</pre>
 */
public interface RoutingListener {
  /** A listener that ignores everything. */
  RoutingListener NONE = new RoutingListener() {};

  /**
   * A replica was chosen for an attempt.
   *
   * @param event the event; never null
   */
  default void onRouted(RoutedEvent event) {}

  /**
   * An attempt failed; {@link AttemptFailedEvent#willRetry()} says whether another follows.
   *
   * @param event the event; never null
   */
  default void onAttemptFailed(AttemptFailedEvent event) {}

  /**
   * A call ended, successfully or not (for streams: when the first chunk arrived or all failed).
   *
   * @param event the event; never null
   */
  default void onCallFinished(CallFinishedEvent event) {}

  // Fleet events: membership, ejection, breakers, health, panic.

  /**
   * A replica joined, left or changed.
   *
   * @param event the event; never null
   */
  default void onMembershipChanged(MembershipEvent event) {}

  /**
   * Outlier detection ejected a replica, or an ejection ended.
   *
   * @param event the event; never null
   */
  default void onEjection(EjectionEvent event) {}

  /**
   * A replica's circuit breaker changed state.
   *
   * @param event the event; never null
   */
  default void onCircuitBreaker(CircuitBreakerEvent event) {}

  /**
   * Active health checking flipped a replica's health.
   *
   * @param event the event; never null
   */
  default void onHealthChanged(HealthChangedEvent event) {}

  /**
   * Panic mode began or ended.
   *
   * @param event the event; never null
   */
  default void onPanic(PanicEvent event) {}

  /**
   * A resolver failed; the last published replicas stay in use.
   *
   * @param event the event; never null
   */
  default void onResolverError(ResolverErrorEvent event) {}

  /**
   * A request found its pooled connection closed by the replica and was sent again on a fresh
   * one; the attempt goes on. Called on the request's thread (or an OkHttp thread).
   *
   * @param event the event; never null
   */
  default void onConnectionResent(ConnectionResentEvent event) {}
}
