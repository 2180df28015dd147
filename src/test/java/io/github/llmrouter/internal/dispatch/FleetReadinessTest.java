package io.github.llmrouter.internal.dispatch;

import static io.github.llmrouter.routing.Fleets.named;
import static org.assertj.core.api.Assertions.assertThat;

import io.github.llmrouter.api.LlmException;
import io.github.llmrouter.replica.ReplicaSet;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** Calls waiting for an empty fleet to have replicas: bounded, released, failed on close. */
class FleetReadinessTest {
  private final FleetReadiness readiness = new FleetReadiness(2);

  /** Starts an asynchronous wait; the future completes with the reason it failed, if any. */
  private CompletableFuture<Optional<LlmException>> waitAsync(long timeoutNanos) {
    CompletableFuture<Optional<LlmException>> done = new CompletableFuture<>();
    assertThat(readiness.enter()).isTrue();
    readiness.awaitThenLeave(false, timeoutNanos, e -> done.complete(Optional.ofNullable(e)));
    return done;
  }

  @Test
  void theFirstNonEmptySnapshotCompletesFirstReadyAndEndsTheWaits() throws Exception {
    readiness.onTable(ReplicaSet.empty(), false);
    CompletableFuture<Optional<LlmException>> waiting = waitAsync(0);
    assertThat(readiness.waiting()).isEqualTo(1);
    assertThat(readiness.firstReady()).isNotDone();
    assertThat(waiting).isNotDone();

    readiness.onTable(named(2), true);
    assertThat(readiness.firstReady().get()).isEqualTo(named(2).replicas());
    assertThat(waiting.get(5, TimeUnit.SECONDS)).isEmpty();
    assertThat(readiness.waiting()).as("the wait left its slot").isZero();

    readiness.onTable(named(3), true);
    assertThat(readiness.firstReady().get()).as("only the first counts").hasSize(2);
  }

  @Test
  void atMostMaxWaitersWaitAtOnce() {
    assertThat(readiness.enter()).isTrue();
    assertThat(readiness.enter()).isTrue();
    assertThat(readiness.enter()).as("a third waiter").isFalse();
    readiness.leave();
    assertThat(readiness.enter()).isTrue();
    assertThat(new FleetReadiness(0).enter()).as("none may wait").isFalse();
  }

  @Test
  void aFleetThatEmptiesAgainMakesCallsWaitAgain() throws Exception {
    readiness.onTable(named(1), true);
    assertThat(waitAsync(0).get(5, TimeUnit.SECONDS)).as("not empty: no wait").isEmpty();
    readiness.onTable(ReplicaSet.empty(), false);
    CompletableFuture<Optional<LlmException>> waiting = waitAsync(0);
    assertThat(waiting).isNotDone();
    readiness.onTable(named(1), true);
    assertThat(waiting.get(5, TimeUnit.SECONDS)).isEmpty();
  }

  @Test
  void callsWaitForTheFirstListingsOfAFleetThatHasReplicas() throws Exception {
    readiness.onTable(named(2), false);
    assertThat(readiness.firstReady()).as("the replicas are there").isDone();
    CompletableFuture<Optional<LlmException>> waiting = waitAsync(0);
    assertThat(waiting).isNotDone();
    readiness.onTable(named(2), true);
    assertThat(waiting.get(5, TimeUnit.SECONDS)).isEmpty();
    readiness.onTable(named(3), false);
    assertThat(waitAsync(TimeUnit.MILLISECONDS.toNanos(20)).get(5, TimeUnit.SECONDS))
        .as("a wait that times out ends without a failure").isEmpty();
  }

  @Test
  void aWaitForTheNextTableEndsWithTheNextTableWhateverItHolds() throws Exception {
    readiness.onTable(named(2), true);
    CompletableFuture<Void> next = readiness.nextTable();
    assertThat(readiness.enter()).isTrue();
    CompletableFuture<Optional<LlmException>> waiting = new CompletableFuture<>();
    readiness.awaitThenLeave(next, false, 0, e -> waiting.complete(Optional.ofNullable(e)));
    assertThat(waiting).isNotDone();
    readiness.onTable(named(2), true);
    assertThat(waiting.get(5, TimeUnit.SECONDS)).isEmpty();
    assertThat(readiness.nextTable()).as("a fresh one for the next wait").isNotDone();
    readiness.close();
    assertThat(readiness.nextTable()).isCompletedExceptionally();
  }

  @Test
  void closingFailsEveryWaitingCallAndEveryLaterOne() throws Exception {
    CompletableFuture<Optional<LlmException>> waiting = waitAsync(0);
    readiness.close();
    assertThat(waiting.get(5, TimeUnit.SECONDS)).hasValueSatisfying(e ->
        assertThat(e).hasMessage("client closed while waiting for replicas"));
    assertThat(readiness.firstReady()).isCompletedExceptionally();

    List<LlmException> blocking = new ArrayList<>();
    assertThat(readiness.enter()).isTrue();
    readiness.awaitThenLeave(true, 0, blocking::add);
    assertThat(blocking).singleElement().isInstanceOf(LlmException.class);
    assertThat(readiness.waiting()).isZero();
  }

  @Test
  void aWaitEndsAtItsTimeoutWithTheFleetStillEmpty() throws Exception {
    long millis = Duration.ofMillis(1).toNanos();
    assertThat(waitAsync(millis).get(5, TimeUnit.SECONDS)).as("asynchronous").isEmpty();
    List<Optional<LlmException>> blocking = new ArrayList<>();
    assertThat(readiness.enter()).isTrue();
    readiness.awaitThenLeave(true, millis, e -> blocking.add(Optional.ofNullable(e)));
    assertThat(blocking).containsExactly(Optional.empty());
    assertThat(readiness.waiting()).isZero();
  }

  @Test
  void anInterruptedBlockingWaitFailsLeavesAndKeepsTheInterrupt() {
    List<LlmException> blocking = new ArrayList<>();
    assertThat(readiness.enter()).isTrue();
    Thread.currentThread().interrupt();
    try {
      readiness.awaitThenLeave(true, 0, blocking::add);
    } finally {
      assertThat(Thread.interrupted()).as("the interrupt is kept").isTrue();
    }
    assertThat(blocking).singleElement().extracting(LlmException::getMessage)
        .isEqualTo("interrupted while waiting for replicas");
    assertThat(readiness.waiting()).isZero();
  }
}
