package io.github.llmrouter.internal.dispatch;

import static java.util.Objects.requireNonNull;

import io.github.llmrouter.api.Ticker;
import io.github.llmrouter.dispatch.Admission;
import io.github.llmrouter.dispatch.CircuitBreakerPolicy;
import io.github.llmrouter.dispatch.HedgePolicy;
import io.github.llmrouter.dispatch.RetryPolicy;
import io.github.llmrouter.observe.RoutingListener;
import io.github.llmrouter.routing.RoutingPolicy;
import java.time.Duration;
import java.util.function.BooleanSupplier;

/**
 * What the dispatcher and its view of the fleet are configured with, validated by the client's
 * builder. Immutable.
 *
 * @param policy ranks the replicas of each request
 * @param retry attempts, backoff, {@code Retry-After} and the retry budget
 * @param hedge whether and when a waiting attempt is raced by a second one
 * @param callTimeout the whole call's deadline across attempts ({@link Duration#ZERO}: none)
 * @param circuitBreaker the per-replica circuit breakers
 * @param admission whether and how to hold calls back while the fleet is saturated
 * @param maxWaitingCalls calls allowed to wait for replicas while the fleet is empty
 * @param reportStaleAfter load reports older than this are ignored
 * @param ticker the client's time source
 * @param listener receives routing events; must not throw (the client guards the application's)
 * @param callEvents whether a call's events (start, routing, attempts, end) are heard now; when
 *     not, a call skips building them
 * @param maxStreamResumptions how many times a stream that breaks after its first chunk may be
 *     continued on another replica (0: never)
 */
public record DispatcherConfig(RoutingPolicy policy, RetryPolicy retry, HedgePolicy hedge,
    Duration callTimeout,
    CircuitBreakerPolicy circuitBreaker, Admission admission, int maxWaitingCalls,
    Duration reportStaleAfter, Ticker ticker, RoutingListener listener,
    BooleanSupplier callEvents, int maxStreamResumptions) {
  /**
   * Checks that nothing is null.
   *
   * @param policy ranks the replicas of each request
   * @param retry attempts, backoff, {@code Retry-After} and the retry budget
   * @param hedge whether and when a waiting attempt is raced by a second one
   * @param callTimeout the whole call's deadline across attempts ({@link Duration#ZERO}: none)
   * @param circuitBreaker the per-replica circuit breakers
   * @param admission whether and how to hold calls back while the fleet is saturated
   * @param maxWaitingCalls calls allowed to wait for replicas while the fleet is empty
   * @param reportStaleAfter load reports older than this are ignored
   * @param ticker the client's time source
   * @param listener receives routing events; must not throw
   * @param callEvents whether a call's events are heard now
   * @param maxStreamResumptions how many times a broken stream may be continued (0: never)
   */
  public DispatcherConfig {
    requireNonNull(policy, "policy");
    requireNonNull(retry, "retry");
    requireNonNull(hedge, "hedge");
    requireNonNull(callTimeout, "callTimeout");
    requireNonNull(circuitBreaker, "circuitBreaker");
    requireNonNull(admission, "admission");
    requireNonNull(reportStaleAfter, "reportStaleAfter");
    requireNonNull(ticker, "ticker");
    requireNonNull(listener, "listener");
    requireNonNull(callEvents, "callEvents");
  }
}
