package io.github.llmrouter;

import io.github.llmrouter.api.Ticker;
import io.github.llmrouter.internal.transport.RateLimitedLog;
import io.github.llmrouter.observe.AttemptEndedEvent;
import io.github.llmrouter.observe.AttemptFailedEvent;
import io.github.llmrouter.observe.CallFinishedEvent;
import io.github.llmrouter.observe.CallStartedEvent;
import io.github.llmrouter.observe.CircuitBreakerEvent;
import io.github.llmrouter.observe.ConnectionResentEvent;
import io.github.llmrouter.observe.EjectionEvent;
import io.github.llmrouter.observe.FleetView;
import io.github.llmrouter.observe.HealthChangedEvent;
import io.github.llmrouter.observe.HedgeEvent;
import io.github.llmrouter.observe.StreamResumptionEvent;
import io.github.llmrouter.observe.MembershipEvent;
import io.github.llmrouter.observe.PanicEvent;
import io.github.llmrouter.observe.RequestHeaders;
import io.github.llmrouter.observe.ResolverErrorEvent;
import io.github.llmrouter.observe.RoutedEvent;
import io.github.llmrouter.observe.RoutingListener;
import java.util.List;
import java.util.function.BiConsumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The application's listeners as one, with the one rule for a listener that throws: it is logged
 * (once a minute per listener at most) and otherwise ignored, so that no event can fail a call or
 * a fleet update, nor keep the listeners after it from hearing the event. Each event goes to every
 * listener in the order they were added, on the event's thread. The client wraps its listeners
 * once and every part of it reports through the wrapper.
 */
final class GuardedListeners implements RoutingListener {
  private static final Logger log = LoggerFactory.getLogger(RoutingListener.class);

  private final RoutingListener[] listeners;
  private final RateLimitedLog[] logs;

  private GuardedListeners(List<RoutingListener> listeners, Ticker ticker) {
    this.listeners = listeners.toArray(new RoutingListener[0]);
    this.logs = new RateLimitedLog[this.listeners.length];
    for (int i = 0; i < logs.length; i++) {
      logs[i] = new RateLimitedLog(ticker, RateLimitedLog.MINUTE_NANOS);
    }
  }

  /**
   * {@code listeners}, guarded; none is {@link RoutingListener#NONE}, so that callers can still
   * skip building events nobody hears.
   */
  static RoutingListener of(List<RoutingListener> listeners, Ticker ticker) {
    List<RoutingListener> heard = listeners.stream().filter(l -> l != RoutingListener.NONE)
        .toList();
    return heard.isEmpty() ? RoutingListener.NONE : new GuardedListeners(heard, ticker);
  }

  private <E> void deliver(String name, E event, BiConsumer<RoutingListener, E> method) {
    RoutingListener[] ls = listeners;
    for (int i = 0; i < ls.length; i++) {
      try {
        method.accept(ls[i], event);
      } catch (RuntimeException | LinkageError e) {
        threw(i, name, e);
      }
    }
  }

  /**
   * Listener {@code i} threw {@code e} in {@code method}. A LinkageError counts too: a listener
   * compiled against an optional jar that is missing must not fail the call that told it.
   */
  private void threw(int i, String method, Throwable e) {
    long held = logs[i].permit();
    if (held < 0) return;
    log.warn("RoutingListener {} threw in {}; ignoring it{}", listeners[i].getClass().getName(),
        method,
        held == 0 ? "" : " (" + held + " more since the last report)", e);
  }

  @Override
  public void onClientStarted(FleetView client) {
    deliver("onClientStarted", client, RoutingListener::onClientStarted);
  }

  @Override
  public void onClientClosed(FleetView client) {
    deliver("onClientClosed", client, RoutingListener::onClientClosed);
  }

  @Override
  public void onCallStarted(CallStartedEvent event) {
    deliver("onCallStarted", event, RoutingListener::onCallStarted);
  }

  @Override
  public void onRouted(RoutedEvent event) {
    deliver("onRouted", event, RoutingListener::onRouted);
  }

  @Override
  public void onRouted(RoutedEvent event, RequestHeaders headers) {
    RoutingListener[] ls = listeners;
    for (int i = 0; i < ls.length; i++) {
      try {
        ls[i].onRouted(event, headers);
      } catch (RuntimeException | LinkageError e) {
        threw(i, "onRouted", e);
      }
    }
  }

  @Override
  public boolean needsRoutingExplanation() {
    RoutingListener[] ls = listeners;
    for (int i = 0; i < ls.length; i++) {
      try {
        if (ls[i].needsRoutingExplanation()) return true;
      } catch (RuntimeException | LinkageError e) {
        threw(i, "needsRoutingExplanation", e);
      }
    }
    return false;
  }

  @Override
  public void onAttemptEnded(AttemptEndedEvent event) {
    deliver("onAttemptEnded", event, RoutingListener::onAttemptEnded);
  }

  @Override
  public void onAttemptFailed(AttemptFailedEvent event) {
    deliver("onAttemptFailed", event, RoutingListener::onAttemptFailed);
  }

  @Override
  public void onCallFinished(CallFinishedEvent event) {
    deliver("onCallFinished", event, RoutingListener::onCallFinished);
  }

  @Override
  public void onMembershipChanged(MembershipEvent event) {
    deliver("onMembershipChanged", event, RoutingListener::onMembershipChanged);
  }

  @Override
  public void onEjection(EjectionEvent event) {
    deliver("onEjection", event, RoutingListener::onEjection);
  }

  @Override
  public void onCircuitBreaker(CircuitBreakerEvent event) {
    deliver("onCircuitBreaker", event, RoutingListener::onCircuitBreaker);
  }

  @Override
  public void onHealthChanged(HealthChangedEvent event) {
    deliver("onHealthChanged", event, RoutingListener::onHealthChanged);
  }

  @Override
  public void onPanic(PanicEvent event) {
    deliver("onPanic", event, RoutingListener::onPanic);
  }

  @Override
  public void onResolverError(ResolverErrorEvent event) {
    deliver("onResolverError", event, RoutingListener::onResolverError);
  }

  @Override
  public void onConnectionResent(ConnectionResentEvent event) {
    deliver("onConnectionResent", event, RoutingListener::onConnectionResent);
  }

  @Override
  public void onHedge(HedgeEvent event) {
    deliver("onHedge", event, RoutingListener::onHedge);
  }

  @Override
  public void onStreamResumption(StreamResumptionEvent event) {
    deliver("onStreamResumption", event, RoutingListener::onStreamResumption);
  }
}
