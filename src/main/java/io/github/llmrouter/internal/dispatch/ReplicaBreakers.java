package io.github.llmrouter.internal.dispatch;

import io.github.llmrouter.api.Ticker;
import io.github.llmrouter.dispatch.CircuitBreakerPolicy;
import io.github.llmrouter.observe.CircuitBreakerEvent;
import io.github.llmrouter.observe.RoutingListener;
import io.github.llmrouter.replica.ReplicaSet;
import io.github.resilience4j.circuitbreaker.CircuitBreaker;
import io.github.resilience4j.circuitbreaker.CircuitBreakerConfig;
import io.github.resilience4j.circuitbreaker.CircuitBreakerConfig.SlidingWindowSynchronizationStrategy;
import io.github.resilience4j.circuitbreaker.CircuitBreakerConfig.SlidingWindowType;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;

/**
 * One Resilience4j circuit breaker per replica id, as {@link CircuitBreakerPolicy} configures
 * them, kept across membership snapshots; transitions are reported to the listener. Thread-safe.
 */
final class ReplicaBreakers {
  private final CircuitBreakerPolicy policy;
  private final @Nullable CircuitBreakerConfig config;
  private final RoutingListener listener;
  private final ConcurrentHashMap<String, CircuitBreaker> byId = new ConcurrentHashMap<>();

  ReplicaBreakers(CircuitBreakerPolicy policy, Ticker ticker, RoutingListener listener) {
    this.policy = policy;
    this.listener = listener;
    this.config = !policy.enabled() ? null : CircuitBreakerConfig.custom()
        .failureRateThreshold(policy.failureRateThreshold())
        .slidingWindow(policy.slidingWindowSize(), policy.minimumCalls(),
            SlidingWindowType.COUNT_BASED, SlidingWindowSynchronizationStrategy.LOCK_FREE)
        .waitDurationInOpenState(policy.openDuration())
        .permittedNumberOfCallsInHalfOpenState(policy.halfOpenCalls())
        // Failures open a breaker, slowness does not: an LLM answer may rightly take minutes
        // (the call's own timeouts bound it), and Resilience4j's default would open on a window
        // of answers that each took over 60 s.
        .slowCallDurationThreshold(Duration.ofNanos(Long.MAX_VALUE))
        // Open → half-open is decided lazily by the next call's permission check, in the
        // client's time: no timer thread, and virtual time in tests.
        .automaticTransitionFromOpenToHalfOpenEnabled(false)
        .clock(new TickerClock(ticker))
        .currentTimestampFunction(clock -> ticker.read(), TimeUnit.NANOSECONDS)
        .build();
  }

  /** The breakers of {@code snapshot}'s replicas at their indices, or null when disabled. */
  CircuitBreaker @Nullable [] forSnapshot(ReplicaSet snapshot) {
    if (config == null) return null;
    CircuitBreaker[] breakers = new CircuitBreaker[snapshot.size()];
    Set<String> ids = new HashSet<>();
    for (int i = 0; i < breakers.length; i++) {
      String id = snapshot.get(i).id();
      ids.add(id);
      breakers[i] = byId.computeIfAbsent(id, this::newBreaker);
    }
    byId.keySet().retainAll(ids);
    return breakers;
  }

  /**
   * The replica with {@code id}, out for being unreachable, answered again: an open breaker lets
   * its probe calls through now rather than after its open duration (which only a call trying it
   * would end).
   */
  void reachable(String id) {
    CircuitBreaker breaker = byId.get(id);
    if (breaker != null && breaker.getState() == CircuitBreaker.State.OPEN) {
      breaker.transitionToHalfOpenState();
    }
  }

  private CircuitBreaker newBreaker(String id) {
    CircuitBreaker breaker = CircuitBreaker.of(id, config);
    if (listener != RoutingListener.NONE) {
      breaker.getEventPublisher().onStateTransition(e -> {
        CircuitBreaker.State from = e.getStateTransition().getFromState();
        CircuitBreaker.State to = e.getStateTransition().getToState();
        listener.onCircuitBreaker(new CircuitBreakerEvent(id, from.name(), to.name(),
            reason(breaker, from, to)));
      });
    }
    return breaker;
  }

  private String reason(CircuitBreaker breaker, CircuitBreaker.State from, CircuitBreaker.State to) {
    float rate = breaker.getMetrics().getFailureRate();
    switch (to) {
      case OPEN:
        return (from == CircuitBreaker.State.HALF_OPEN ? "probe calls failed: " : "")
            + "failure rate " + (rate < 0 ? "n/a" : rate + "%") + " >= "
            + policy.failureRateThreshold() + "%";
      case HALF_OPEN:
        return "open for " + policy.openDuration() + ": letting " + policy.halfOpenCalls()
            + " probe calls through";
      case CLOSED:
        return "probe calls succeeded";
      default:
        return "transition to " + to;
    }
  }

  /** A {@link Clock} that reads the client's ticker, so breaker timing follows injected time. */
  private static final class TickerClock extends Clock {
    private final Ticker ticker;

    TickerClock(Ticker ticker) {
      this.ticker = ticker;
    }

    @Override
    public ZoneId getZone() {
      return ZoneOffset.UTC;
    }

    @Override
    public Clock withZone(ZoneId zone) {
      return this;
    }

    @Override
    public Instant instant() {
      return Instant.EPOCH.plusNanos(ticker.read());
    }
  }
}
