package io.github.llmrouter;

import io.github.llmrouter.observe.AttemptFailedEvent;
import io.github.llmrouter.observe.CircuitBreakerEvent;
import io.github.llmrouter.observe.EjectionEvent;
import io.github.llmrouter.observe.HealthChangedEvent;
import io.github.llmrouter.observe.MembershipEvent;
import io.github.llmrouter.observe.PanicEvent;
import io.github.llmrouter.observe.RoutedEvent;
import io.github.llmrouter.observe.RoutingListener;
import io.github.llmrouter.observe.StreamResumptionEvent;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What a client logs of its events, as the first of its listeners: at INFO, each change to the
 * fleet (a replica joining, leaving or changing, an ejection and its end, a breaker's transition,
 * a health flip, panic); at DEBUG, each routing decision with its reasons and each failed
 * attempt. Events carry no secret (no key, header value or prompt), so neither do these lines.
 * Logger {@code io.github.llmrouter.LlmClient}.
 */
final class ClientLog implements RoutingListener {
  private final Logger log;

  /** Logs to {@code io.github.llmrouter.LlmClient}. */
  ClientLog() {
    this(LoggerFactory.getLogger(LlmClient.class));
  }

  ClientLog(Logger log) {
    this.log = log;
  }

  /** Whether routing decisions are logged now: a call's events are built for them then. */
  boolean routingLogged() {
    return log.isDebugEnabled();
  }

  @Override
  public boolean needsRoutingExplanation() {
    return routingLogged();
  }

  @Override
  public void onRouted(RoutedEvent e) {
    if (!routingLogged()) return;
    log.debug("call {} {} {} attempt {} -> {}: {}{}{}", e.callId(), e.operation(), e.model(),
        e.attempt(), e.replicaId(), e.reason(),
        e.predictedCachedTokens() < 0 ? "" : "; " + e.predictedCachedTokens() + " cached tokens "
            + "expected",
        e.versusRunnerUp().isEmpty() ? "" : "; " + e.versusRunnerUp());
  }

  @Override
  public void onAttemptFailed(AttemptFailedEvent e) {
    if (!routingLogged()) return;
    log.debug("call {} attempt {} on {} failed: {}; {}", e.callId(), e.attempt(), e.replicaId(),
        e.failure().getMessage(), e.willRetry() ? "retrying in " + e.backoff().toMillis() + " ms"
            : "giving up: " + e.whyNot());
  }

  @Override
  public void onStreamResumption(StreamResumptionEvent e) {
    switch (e.outcome()) {
      case RESUMED -> log.info("{} stream from replica {} broke after {} characters; resumed on {} "
          + "(resumption {})", e.operation(), e.replicaId(), e.charactersCarried(), e.resumedOn(),
          e.resumption());
      case FAILED -> log.info("{} stream from replica {} broke after {} characters; its "
          + "continuation failed: {}", e.operation(), e.replicaId(), e.charactersCarried(), e.why());
      case SKIPPED -> log.debug("{} stream from replica {} broke after {} characters; not "
          + "resumed: {}", e.operation(), e.replicaId(), e.charactersCarried(), e.why());
    }
  }

  @Override
  public void onMembershipChanged(MembershipEvent e) {
    String what = switch (e.change()) {
      case ADDED -> "joined";
      case REMOVED -> "left";
      case UPDATED -> "changed";
    };
    log.info("replica {} {} ({}); {} in the fleet", e.replicaId(), what, e.reason(),
        e.fleetSize());
  }

  @Override
  public void onEjection(EjectionEvent e) {
    if (e.ejected()) {
      log.info("replica {} ejected for {} ms (ejection {}): {}", e.replicaId(),
          e.duration().toMillis(), e.ejections(), e.reason());
    } else {
      log.info("replica {} back from ejection: {}", e.replicaId(), e.reason());
    }
  }

  @Override
  public void onCircuitBreaker(CircuitBreakerEvent e) {
    log.info("replica {} circuit breaker {} -> {}: {}", e.replicaId(), e.from(), e.to(),
        e.reason());
  }

  @Override
  public void onHealthChanged(HealthChangedEvent e) {
    log.info("replica {} {}: {}", e.replicaId(), e.healthy() ? "healthy" : "unhealthy",
        e.reason());
  }

  @Override
  public void onPanic(PanicEvent e) {
    if (e.entered()) {
      log.warn("panic: no eligible replica among {}, routing to all ({})", e.fleetSize(),
          e.reason());
    } else {
      log.info("panic over: {}", e.reason());
    }
  }
}
