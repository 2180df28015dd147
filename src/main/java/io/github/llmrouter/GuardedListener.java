package io.github.llmrouter;

import io.github.llmrouter.observe.AttemptFailedEvent;
import io.github.llmrouter.observe.CallFinishedEvent;
import io.github.llmrouter.observe.CircuitBreakerEvent;
import io.github.llmrouter.observe.ConnectionResentEvent;
import io.github.llmrouter.observe.EjectionEvent;
import io.github.llmrouter.observe.HealthChangedEvent;
import io.github.llmrouter.observe.MembershipEvent;
import io.github.llmrouter.observe.PanicEvent;
import io.github.llmrouter.observe.ResolverErrorEvent;
import io.github.llmrouter.observe.RoutedEvent;
import io.github.llmrouter.observe.RoutingListener;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The application's {@link RoutingListener}, with the one rule for a listener that throws: it is
 * logged and otherwise ignored, so that no event can fail a call or a fleet update. The client
 * wraps its listener once and every part of it reports through the wrapper.
 */
final class GuardedListener implements RoutingListener {
  private static final Logger log = LoggerFactory.getLogger(RoutingListener.class);

  private final RoutingListener delegate;

  private GuardedListener(RoutingListener delegate) {
    this.delegate = delegate;
  }

  /**
   * {@code listener}, guarded: {@link RoutingListener#NONE} stays {@code NONE}, so that callers
   * can still skip building events nobody hears.
   */
  static RoutingListener of(RoutingListener listener) {
    return listener == RoutingListener.NONE || listener instanceof GuardedListener ? listener
        : new GuardedListener(listener);
  }

  private <E> void deliver(E event, Consumer<E> method) {
    try {
      method.accept(event);
    } catch (RuntimeException e) {
      log.warn("RoutingListener threw; ignoring", e);
    }
  }

  @Override
  public void onRouted(RoutedEvent event) {
    deliver(event, delegate::onRouted);
  }

  @Override
  public void onAttemptFailed(AttemptFailedEvent event) {
    deliver(event, delegate::onAttemptFailed);
  }

  @Override
  public void onCallFinished(CallFinishedEvent event) {
    deliver(event, delegate::onCallFinished);
  }

  @Override
  public void onMembershipChanged(MembershipEvent event) {
    deliver(event, delegate::onMembershipChanged);
  }

  @Override
  public void onEjection(EjectionEvent event) {
    deliver(event, delegate::onEjection);
  }

  @Override
  public void onCircuitBreaker(CircuitBreakerEvent event) {
    deliver(event, delegate::onCircuitBreaker);
  }

  @Override
  public void onHealthChanged(HealthChangedEvent event) {
    deliver(event, delegate::onHealthChanged);
  }

  @Override
  public void onPanic(PanicEvent event) {
    deliver(event, delegate::onPanic);
  }

  @Override
  public void onResolverError(ResolverErrorEvent event) {
    deliver(event, delegate::onResolverError);
  }

  @Override
  public void onConnectionResent(ConnectionResentEvent event) {
    deliver(event, delegate::onConnectionResent);
  }
}
