package io.github.llmrouter.internal.dispatch;

import static io.github.llmrouter.routing.Fleets.named;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.github.llmrouter.api.FleetSaturatedException;
import io.github.llmrouter.dispatch.Admission;
import io.github.llmrouter.internal.load.LocalLoad;
import io.github.llmrouter.load.LoadReport;
import io.github.llmrouter.testing.ManualScheduler;
import io.github.llmrouter.testing.ManualTicker;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The admission queue: saturation from reports, FIFO admission as room appears, its limits. */
class AdmissionGateTest {
  private final ManualTicker ticker = new ManualTicker();
  private final ManualScheduler scheduler = new ManualScheduler();
  private final LocalLoad load = LocalLoad.of(named(2), ticker, Duration.ofSeconds(3));
  private final AdmissionGate gate = new AdmissionGate(Admission.builder().capacity(2)
      .maxWait(Duration.ofSeconds(10)).queueThreshold(4).kvUsageThreshold(0.9).build(),
      () -> load, () -> scheduler);

  @AfterEach
  void stop() {
    scheduler.shutdownNow();
  }

  private void report(int replica, int waiting, double kvUsage) {
    load.publish(replica, new LoadReport(waiting, 8, kvUsage, Double.NaN, Double.NaN,
        ticker.read(), LoadReport.Source.SCRAPE), false);
  }

  private void saturate() {
    report(0, 4, 0.2);
    report(1, 0, 0.95);
  }

  @Test
  void aFleetWithoutReportsIsNeverSaturated() {
    assertThat(gate.hasRoom(load)).isTrue();
    assertThat(gate.room(load)).isEqualTo(Long.MAX_VALUE);
    assertThat(gate.admitAsync()).isCompleted();
    gate.await(); // returns at once
  }

  @Test
  void roomIsTheQueueLeftOnEveryReplicaThatIsNotSaturated() {
    report(0, 1, 0.2);
    report(1, 0, 0.95);
    assertThat(gate.hasRoom(load)).isTrue();
    assertThat(gate.room(load)).as("3 on r0; r1's cache is full").isEqualTo(3);
    saturate();
    assertThat(gate.hasRoom(load)).isFalse();
    assertThat(gate.room(load)).isZero();
  }

  @Test
  void whileEveryReplicaIsSaturatedCallsWaitAndAreAdmittedInArrivalOrderAsRoomAppears() {
    saturate();
    CompletableFuture<Void> first = gate.admitAsync();
    CompletableFuture<Void> second = gate.admitAsync();
    assertThat(gate.waiting()).isEqualTo(2);
    assertThat(first).isNotDone();

    report(0, 3, 0.2); // room for one
    gate.onLoadChanged();
    assertThat(first).isCompleted();
    assertThat(second).isNotDone();
    assertThat(gate.waiting()).isEqualTo(1);

    report(1, 0, 0.5); // r1's cache freed: room for four more
    gate.onLoadChanged();
    assertThat(second).isCompleted();
    assertThat(gate.waiting()).isZero();
  }

  @Test
  void aCallNeverOvertakesOneThatIsWaiting() {
    saturate();
    CompletableFuture<Void> waiting = gate.admitAsync();
    report(0, 3, 0.2); // room, but nobody has told the gate yet
    assertThat(gate.admitAsync()).as("queued behind the first").isNotDone();
    gate.onLoadChanged();
    assertThat(waiting).isCompleted();
  }

  @Test
  void aFullQueueRefusesAtOnce() {
    saturate();
    gate.admitAsync();
    gate.admitAsync();
    assertThat(gate.admitAsync()).failsWithin(Duration.ofSeconds(5))
        .withThrowableOfType(ExecutionException.class)
        .withCauseInstanceOf(FleetSaturatedException.class)
        .withMessageContaining("the admission queue is full (2 waiting)");
    assertThatThrownBy(gate::await).isInstanceOf(FleetSaturatedException.class);
  }

  @Test
  void aCallNotAdmittedWithinMaxWaitFailsAndLeavesTheQueue() {
    saturate();
    CompletableFuture<Void> waiting = gate.admitAsync();
    assertThat(scheduler.runNext()).as("the wait's limit")
        .isEqualTo(Duration.ofSeconds(10).toNanos());
    assertThat(waiting).failsWithin(Duration.ofSeconds(5))
        .withThrowableOfType(ExecutionException.class)
        .withCauseInstanceOf(FleetSaturatedException.class)
        .withMessageContaining("every replica reports a queue of at least 4 or KV usage of at "
            + "least 0.9; not admitted within PT10S");
    assertThat(gate.waiting()).isZero();
  }

  @Test
  void aReplicaWithAnEmptyQueueHasRoomForAFullThreshold() {
    report(0, 0, 0.2);
    report(1, 2, 0.2);
    assertThat(gate.room(load)).as("4 on r0, 2 on r1").isEqualTo(6);
  }

  @Test
  void aCallAdmittedBeforeItsWaitEndsIsNotFailedByTheWaitsLimit() {
    saturate();
    CompletableFuture<Void> waiting = gate.admitAsync();
    report(0, 3, 0.2);
    gate.onLoadChanged();
    scheduler.runNext(); // the wait's limit, after admission

    assertThat(waiting).isCompletedWithValue(null);
    assertThat(gate.waiting()).isZero();
  }

  @Test
  void anInterruptedWaitFailsLeavesTheQueueAndKeepsTheInterrupt() {
    saturate();
    Thread.currentThread().interrupt();
    try {
      assertThatThrownBy(gate::await).isInstanceOf(FleetSaturatedException.class)
          .hasMessage("interrupted while waiting for admission");
    } finally {
      assertThat(Thread.interrupted()).as("the interrupt is kept for the caller").isTrue();
    }
    assertThat(gate.waiting()).isZero();
  }

  @Test
  void aWaitingAsyncCallFailsAtOnceWhenTheClientIsClosed() {
    saturate();
    scheduler.shutdownNow(); // the client's scheduler: closed with the client

    assertThat(gate.admitAsync()).failsWithin(Duration.ofSeconds(5))
        .withThrowableOfType(ExecutionException.class)
        .withCauseInstanceOf(FleetSaturatedException.class).withMessageContaining("client closed");
    assertThat(gate.waiting()).isZero();
  }
}
