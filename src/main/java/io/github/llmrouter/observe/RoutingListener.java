package io.github.llmrouter.observe;


/**
 * Receives routing events: the start of every call, every replica choice with the reason for it,
 * the end of every attempt and of every call; and, from the side, every membership change,
 * ejection, circuit-breaker transition, health flip and panic. Request events are called on the
 * request's thread (or an OkHttp thread for asynchronous calls and stream ends); fleet events on
 * whichever thread noticed the change (a request thread, the client's scheduler or a resolver's
 * thread).
 *
 * <p>A call's events share its {@link CallStartedEvent#callId() callId} and come in this order:
 * {@code onCallStarted}; then per attempt {@code onRouted}, {@code onAttemptEnded} and, if it
 * failed, {@code onAttemptFailed}; then {@code onCallFinished}. A stream's call finishes at its
 * first chunk, and its answering attempt ends when the stream does.
 *
 * <p>A client may have several listeners ({@link io.github.llmrouter.LlmClientBuilder#listener}),
 * called one after the other in the order they were added, on the thread of the event. Methods
 * must be thread-safe and should return in microseconds: request events run on the request path,
 * so a listener that blocks delays the call by as long (and an asynchronous call's OkHttp thread
 * with it). An exception thrown by a listener is logged (at most once a minute per listener) and
 * otherwise ignored: it fails no call, and the other listeners still hear the event.
 *
 * <p>Events are immutable records, and later releases may give them more components: a new one
 * comes with the earlier constructor kept as an overload and its accessor added, so code that
 * reads events or builds them (in its own tests) keeps compiling. Record patterns that
 * deconstruct an event name every component and do not survive an added one; read events through
 * their accessors. New methods here have empty defaults, so a listener that overrides some keeps
 * compiling too.
 *
 * <pre>{@code
 * LlmClient client = LlmClient.builder()
 *     .replicas("http://10.0.0.7:8000", "http://10.0.0.8:8000")
 *     .listener(new RoutingListener() {
 *       public void onRouted(RoutedEvent e) {
 *         log.debug("{} -> {} ({})", e.model(), e.replicaId(), e.reason());
 *       }
 *     })
 *     .build();
 * }</pre>
 *
 * @since 0.2.0
 */
public interface RoutingListener {
  /** A listener that ignores everything. */
  RoutingListener NONE = new RoutingListener() {};

  /**
   * The client was built and is running: a listener that reads the fleet (gauges of {@link
   * FleetView#fleet()}, for instance) can keep {@code client} until {@link
   * #onClientClosed(FleetView)}. Called once per client, on the thread that built it.
   *
   * @param client the new client; never null
   */
  default void onClientStarted(FleetView client) {}

  /**
   * The client was closed; no event follows but for calls still in progress.
   *
   * @param client the closed client; never null
   */
  default void onClientClosed(FleetView client) {}

  /**
   * A call began.
   *
   * @param event the event; never null
   */
  default void onCallStarted(CallStartedEvent event) {}

  /**
   * A replica was chosen for an attempt.
   *
   * @param event the event; never null
   */
  default void onRouted(RoutedEvent event) {}

  /**
   * A replica was chosen for an attempt whose request is about to be built: a listener that
   * propagates context (such as a tracer's {@code traceparent}) sets its headers here. The
   * default calls {@link #onRouted(RoutedEvent)}; the client calls only this method.
   *
   * @param event the event; never null
   * @param headers where to set headers on the attempt's request; valid only during this call
   */
  default void onRouted(RoutedEvent event, RequestHeaders headers) {
    onRouted(event);
  }

  /**
   * Whether this listener reads {@link RoutedEvent#versusRunnerUp()}. That explanation, with the
   * figures the policy compared, costs a few microseconds and kilobytes per attempt to write, so
   * the client writes it only while some listener needs it; otherwise events carry {@code ""}.
   * Asked before each attempt's {@link RoutedEvent}. The default is {@code true}.
   *
   * @return whether {@link RoutedEvent#versusRunnerUp()} should be filled in
   */
  default boolean needsRoutingExplanation() {
    return true;
  }

  /**
   * An attempt ended: answered, failed or abandoned by the caller.
   *
   * @param event the event; never null
   */
  default void onAttemptEnded(AttemptEndedEvent event) {}

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

  /**
   * A hedged call's race is decided: which of its two attempts delivered first. Called on the
   * thread that decided it (the caller's, an OkHttp thread or the client's scheduler).
   *
   * @param event the event; never null
   */
  default void onHedge(HedgeEvent event) {}

  /**
   * A stream that may be continued broke after its first chunk: continued on another replica, or
   * not (and why). Called on the thread reading the stream.
   *
   * @param event the event; never null
   * @since 0.3.0
   */
  default void onStreamResumption(StreamResumptionEvent event) {}
}
