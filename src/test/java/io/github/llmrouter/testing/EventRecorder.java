package io.github.llmrouter.testing;

import io.github.llmrouter.observe.AttemptEndedEvent;
import io.github.llmrouter.observe.AttemptFailedEvent;
import io.github.llmrouter.observe.CallFinishedEvent;
import io.github.llmrouter.observe.CircuitBreakerEvent;
import io.github.llmrouter.observe.EjectionEvent;
import io.github.llmrouter.observe.HealthChangedEvent;
import io.github.llmrouter.observe.MembershipEvent;
import io.github.llmrouter.observe.PanicEvent;
import io.github.llmrouter.observe.ResolverErrorEvent;
import io.github.llmrouter.observe.RoutedEvent;
import io.github.llmrouter.observe.RoutingListener;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.BooleanSupplier;

/**
 * The test fixture for routing events: records every event (successful calls counted per replica)
 * for assertions. Thread-safe.
 */
public final class EventRecorder implements RoutingListener {
  public final List<RoutedEvent> routed = new CopyOnWriteArrayList<>();
  public final List<MembershipEvent> membership = new CopyOnWriteArrayList<>();
  public final List<EjectionEvent> ejections = new CopyOnWriteArrayList<>();
  public final List<CircuitBreakerEvent> breakers = new CopyOnWriteArrayList<>();
  public final List<HealthChangedEvent> health = new CopyOnWriteArrayList<>();
  public final List<PanicEvent> panics = new CopyOnWriteArrayList<>();
  public final List<ResolverErrorEvent> resolverErrors = new CopyOnWriteArrayList<>();
  public final List<AttemptFailedEvent> failedAttempts = new CopyOnWriteArrayList<>();
  public final List<io.github.llmrouter.observe.HedgeEvent> hedges = new CopyOnWriteArrayList<>();
  public final List<io.github.llmrouter.observe.StreamResumptionEvent> resumptions =
      new CopyOnWriteArrayList<>();
  /** Every attempt's end, in the order they ended. */
  public final List<AttemptEndedEvent> ended = new CopyOnWriteArrayList<>();
  public final List<CallFinishedEvent> failedCalls = new CopyOnWriteArrayList<>();
  public final List<io.github.llmrouter.observe.ConnectionResentEvent> resent =
      new CopyOnWriteArrayList<>();
  /** Successful calls per answering replica id. */
  public final java.util.concurrent.ConcurrentHashMap<String, java.util.concurrent.atomic.AtomicInteger>
      answeredBy = new java.util.concurrent.ConcurrentHashMap<>();
  /** System.nanoTime() of each ejection, parallel to {@link #ejections}. */
  public final List<Long> ejectionTimes = new CopyOnWriteArrayList<>();
  /** System.nanoTime() of each health change, parallel to {@link #health}. */
  public final List<Long> healthTimes = new CopyOnWriteArrayList<>();

  @Override
  public void onAttemptEnded(AttemptEndedEvent e) {
    ended.add(e);
  }

  @Override
  public void onRouted(RoutedEvent e) {
    routed.add(e);
  }

  @Override
  public void onMembershipChanged(MembershipEvent e) {
    membership.add(e);
  }

  @Override
  public synchronized void onEjection(EjectionEvent e) {
    ejections.add(e);
    ejectionTimes.add(System.nanoTime());
  }

  @Override
  public void onCircuitBreaker(CircuitBreakerEvent e) {
    breakers.add(e);
  }

  @Override
  public synchronized void onHealthChanged(HealthChangedEvent e) {
    health.add(e);
    healthTimes.add(System.nanoTime());
  }

  @Override
  public void onPanic(PanicEvent e) {
    panics.add(e);
  }

  @Override
  public void onResolverError(ResolverErrorEvent e) {
    resolverErrors.add(e);
  }

  @Override
  public void onConnectionResent(io.github.llmrouter.observe.ConnectionResentEvent e) {
    resent.add(e);
  }

  @Override
  public void onHedge(io.github.llmrouter.observe.HedgeEvent e) {
    hedges.add(e);
  }

  @Override
  public void onStreamResumption(io.github.llmrouter.observe.StreamResumptionEvent e) {
    resumptions.add(e);
  }

  @Override
  public void onAttemptFailed(AttemptFailedEvent e) {
    failedAttempts.add(e);
  }

  @Override
  public void onCallFinished(CallFinishedEvent e) {
    if (!e.succeeded()) failedCalls.add(e);
    else answeredBy.computeIfAbsent(e.replicaId(), k -> new java.util.concurrent.atomic.AtomicInteger())
        .incrementAndGet();
  }

  /** Successful calls answered by {@code replicaId} so far. */
  public int answered(String replicaId) {
    java.util.concurrent.atomic.AtomicInteger n = answeredBy.get(replicaId);
    return n == null ? 0 : n.get();
  }

  /** Polls {@code condition} every 5 ms for at most {@code timeout}; fails if it never holds. */
  public static void await(String what, Duration timeout, BooleanSupplier condition) {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() - deadline > 0) throw new AssertionError("timed out waiting for " + what);
      try {
        Thread.sleep(5);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new AssertionError("interrupted waiting for " + what);
      }
    }
  }
}
