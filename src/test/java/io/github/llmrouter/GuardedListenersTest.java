package io.github.llmrouter;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.llmrouter.api.LlmException;
import io.github.llmrouter.observe.AttemptEndedEvent;
import io.github.llmrouter.observe.AttemptFailedEvent;
import io.github.llmrouter.observe.CallFinishedEvent;
import io.github.llmrouter.observe.CallStartedEvent;
import io.github.llmrouter.observe.CircuitBreakerEvent;
import io.github.llmrouter.observe.ConnectionResentEvent;
import io.github.llmrouter.observe.EjectionEvent;
import io.github.llmrouter.observe.FleetView;
import io.github.llmrouter.observe.HealthChangedEvent;
import io.github.llmrouter.observe.MembershipEvent;
import io.github.llmrouter.observe.PanicEvent;
import io.github.llmrouter.observe.ResolverErrorEvent;
import io.github.llmrouter.observe.RoutedEvent;
import io.github.llmrouter.observe.RoutingListener;
import io.github.llmrouter.testing.ManualTicker;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Every event reaches every listener, in order, whatever the ones before it throw. */
class GuardedListenersTest {
  private final ManualTicker ticker = new ManualTicker();

  /** Records the name of each method called. */
  static class Recording implements RoutingListener {
    final List<String> heard = new ArrayList<>();
    boolean explains;

    void hear(String method) {
      heard.add(method);
    }

    @Override
    public boolean needsRoutingExplanation() {
      hear("needsRoutingExplanation");
      return explains;
    }

    @Override
    public void onClientStarted(FleetView c) {
      hear("onClientStarted");
    }

    @Override
    public void onClientClosed(FleetView c) {
      hear("onClientClosed");
    }

    @Override
    public void onCallStarted(CallStartedEvent e) {
      hear("onCallStarted");
    }

    @Override
    public void onRouted(RoutedEvent e) {
      hear("onRouted");
    }

    @Override
    public void onAttemptEnded(AttemptEndedEvent e) {
      hear("onAttemptEnded");
    }

    @Override
    public void onAttemptFailed(AttemptFailedEvent e) {
      hear("onAttemptFailed");
    }

    @Override
    public void onCallFinished(CallFinishedEvent e) {
      hear("onCallFinished");
    }

    @Override
    public void onMembershipChanged(MembershipEvent e) {
      hear("onMembershipChanged");
    }

    @Override
    public void onEjection(EjectionEvent e) {
      hear("onEjection");
    }

    @Override
    public void onCircuitBreaker(CircuitBreakerEvent e) {
      hear("onCircuitBreaker");
    }

    @Override
    public void onHealthChanged(HealthChangedEvent e) {
      hear("onHealthChanged");
    }

    @Override
    public void onPanic(PanicEvent e) {
      hear("onPanic");
    }

    @Override
    public void onResolverError(ResolverErrorEvent e) {
      hear("onResolverError");
    }

    @Override
    public void onConnectionResent(ConnectionResentEvent e) {
      hear("onConnectionResent");
    }
  }

  /** Hears every event, then throws. */
  static final class Throwing extends Recording {
    @Override
    void hear(String method) {
      super.hear(method);
      throw new IllegalStateException("listener bug on " + method);
    }
  }

  private static void everyEvent(RoutingListener l) {
    RoutedEvent routed = new RoutedEvent(1, "chat", "m", 1, "r", "10.0.0.1", 80, false, "why", 0,
        0);
    l.onClientStarted(null);
    l.onCallStarted(new CallStartedEvent(1, "chat", "m"));
    l.onRouted(routed, (name, value) -> { });
    l.onRouted(routed);
    l.onAttemptEnded(new AttemptEndedEvent(1, "chat", "m", 1, "r",
        AttemptEndedEvent.Outcome.FAILED, 1, -1, 1, null, null, -1, new LlmException("x")));
    l.onAttemptFailed(new AttemptFailedEvent(1, "chat", "m", 1, "r", new LlmException("x"), false,
        Duration.ZERO, "not retryable"));
    l.onCallFinished(new CallFinishedEvent(1, "chat", "m", 1, null, 1, new LlmException("x")));
    l.onMembershipChanged(new MembershipEvent("r", MembershipEvent.Change.ADDED, "static", 1));
    l.onEjection(new EjectionEvent("r", true, Duration.ofSeconds(1), 1, "why"));
    l.onCircuitBreaker(new CircuitBreakerEvent("r", "CLOSED", "OPEN", "why"));
    l.onHealthChanged(new HealthChangedEvent("r", false, "why"));
    l.onPanic(new PanicEvent(true, 1, "why"));
    l.onResolverError(new ResolverErrorEvent("dns", new IllegalStateException("down")));
    l.onConnectionResent(new ConnectionResentEvent("chat", "r", "reset"));
    l.onClientClosed(null);
  }

  private static final List<String> EVERY_EVENT = List.of("onClientStarted", "onCallStarted",
      "onRouted", "onRouted", "onAttemptEnded", "onAttemptFailed", "onCallFinished",
      "onMembershipChanged", "onEjection", "onCircuitBreaker", "onHealthChanged", "onPanic",
      "onResolverError", "onConnectionResent", "onClientClosed");

  @Test
  void everyEventReachesEveryListenerPastOnesThatThrow() {
    Throwing first = new Throwing();
    Recording second = new Recording();
    Throwing third = new Throwing();
    Recording fourth = new Recording();
    everyEvent(GuardedListeners.of(List.of(first, second, third, fourth), ticker));
    for (Recording r : List.of(first, second, third, fourth)) {
      assertThat(r.heard).isEqualTo(EVERY_EVENT);
    }
  }

  @Test
  void noListenerIsNone() {
    assertThat(GuardedListeners.of(List.of(), ticker)).isSameAs(RoutingListener.NONE);
    assertThat(GuardedListeners.of(List.of(RoutingListener.NONE), ticker))
        .isSameAs(RoutingListener.NONE);
    assertThat(GuardedListeners.of(List.of(new Recording()), ticker))
        .isNotSameAs(RoutingListener.NONE);
  }

  @Test
  void theExplanationIsNeededIfAnyListenerNeedsIt() {
    Recording quiet = new Recording();
    Recording explains = new Recording();
    explains.explains = true;
    Throwing broken = new Throwing();
    broken.explains = true;
    assertThat(GuardedListeners.of(List.of(quiet, new Recording()), ticker)
        .needsRoutingExplanation()).isFalse();
    assertThat(GuardedListeners.of(List.of(quiet, explains), ticker).needsRoutingExplanation())
        .isTrue();
    assertThat(GuardedListeners.of(List.of(broken, quiet), ticker).needsRoutingExplanation())
        .as("one that throws does not need it").isFalse();
    assertThat(GuardedListeners.of(List.of(broken, explains), ticker).needsRoutingExplanation())
        .isTrue();
  }
}
