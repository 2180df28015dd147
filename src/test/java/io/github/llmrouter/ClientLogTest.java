package io.github.llmrouter;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.llmrouter.api.ReplicaHttpException;
import io.github.llmrouter.observe.AttemptFailedEvent;
import io.github.llmrouter.observe.CircuitBreakerEvent;
import io.github.llmrouter.observe.EjectionEvent;
import io.github.llmrouter.observe.HealthChangedEvent;
import io.github.llmrouter.observe.MembershipEvent;
import io.github.llmrouter.observe.PanicEvent;
import io.github.llmrouter.observe.RoutedEvent;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import org.junit.jupiter.api.Test;
import org.slf4j.event.EventRecordingLogger;
import org.slf4j.event.Level;
import org.slf4j.event.SubstituteLoggingEvent;
import org.slf4j.helpers.MessageFormatter;
import org.slf4j.helpers.SubstituteLogger;

/** What a client logs of its events, at which level. */
class ClientLogTest {
  private final ArrayBlockingQueue<SubstituteLoggingEvent> recorded =
      new ArrayBlockingQueue<>(100);
  private final ClientLog log = new ClientLog(new EventRecordingLogger(
      new SubstituteLogger("io.github.llmrouter.LlmClient", recorded, false), recorded));

  private List<String> lines() {
    return recorded.stream().map(e -> e.getLevel() + " "
        + MessageFormatter.arrayFormat(e.getMessage(), e.getArgumentArray()).getMessage())
        .toList();
  }

  @Test
  void fleetChangesAreLoggedAtInfo() {
    log.onMembershipChanged(new MembershipEvent("r1", MembershipEvent.Change.ADDED,
        "resolver static", 3));
    log.onMembershipChanged(new MembershipEvent("r1", MembershipEvent.Change.REMOVED,
        "resolver static", 2));
    log.onEjection(new EjectionEvent("r2", true, Duration.ofSeconds(30), 1,
        "5 consecutive failures, last: HTTP 503"));
    log.onEjection(new EjectionEvent("r2", false, Duration.ZERO, 1, "ejection expired"));
    log.onCircuitBreaker(new CircuitBreakerEvent("r3", "CLOSED", "OPEN",
        "failure rate 60.0% >= 50.0%"));
    log.onHealthChanged(new HealthChangedEvent("r4", false, "3 failed checks"));
    log.onPanic(new PanicEvent(true, 4, "every replica ejected"));
    log.onPanic(new PanicEvent(false, 4, "r2 eligible again"));
    assertThat(lines()).containsExactly(
        "INFO replica r1 joined (resolver static); 3 in the fleet",
        "INFO replica r1 left (resolver static); 2 in the fleet",
        "INFO replica r2 ejected for 30000 ms (ejection 1): 5 consecutive failures, last: HTTP 503",
        "INFO replica r2 back from ejection: ejection expired",
        "INFO replica r3 circuit breaker CLOSED -> OPEN: failure rate 60.0% >= 50.0%",
        "INFO replica r4 unhealthy: 3 failed checks",
        "WARN panic: no eligible replica among 4, routing to all (every replica ejected)",
        "INFO panic over: r2 eligible again");
  }

  @Test
  void routingDecisionsAndFailedAttemptsAreLoggedAtDebug() {
    assertThat(log.routingLogged()).isTrue();
    assertThat(log.needsRoutingExplanation()).isTrue();
    log.onRouted(new RoutedEvent(7, "chat", "m", 1, "r1", "10.0.0.1", 8000, false,
        "key owner on the ring", 0, 3, 480, Duration.ofMillis(20), "r2 would wait 0.3 s more"));
    log.onRouted(new RoutedEvent(7, "chat", "m", 2, "r2", "10.0.0.2", 8000, true, "next", 0, 3));
    log.onRouted(new RoutedEvent(8, "chat", "m", 1, "r2", "10.0.0.2", 8000, false, "cold", 0, 3,
        0, null, ""));
    log.onAttemptFailed(new AttemptFailedEvent(7, "chat", "m", 1, "r1",
        new ReplicaHttpException("r1", 503, "overloaded", true, null), true, Duration.ofMillis(50), ""));
    assertThat(lines()).containsExactly(
        "DEBUG call 7 chat m attempt 1 -> r1: key owner on the ring; 480 cached tokens expected; "
            + "r2 would wait 0.3 s more",
        "DEBUG call 7 chat m attempt 2 -> r2: next",
        "DEBUG call 8 chat m attempt 1 -> r2: cold; 0 cached tokens expected",
        "DEBUG call 7 attempt 1 on r1 failed: " + recordedFailureMessage() + "; retrying in 50 ms");
  }

  private static String recordedFailureMessage() {
    return new ReplicaHttpException("r1", 503, "overloaded", true, null).getMessage();
  }
}
