package io.github.llmrouter.internal.dispatch;

import io.github.llmrouter.api.FleetSaturatedException;
import io.github.llmrouter.dispatch.Admission;
import io.github.llmrouter.internal.load.LocalLoad;
import io.github.llmrouter.load.Saturation;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * The admission queue that {@link Admission} configures: a bounded FIFO of calls waiting for the
 * fleet to have room. Thread-safe; the fast path (queue empty, some replica not saturated) takes
 * no lock, and the queue is locked only while the fleet is saturated or calls are waiting.
 */
final class AdmissionGate {
  private final Admission config;
  private final Saturation saturation;
  private final Supplier<LocalLoad> load;
  private final Supplier<ScheduledExecutorService> scheduler;
  private final ArrayDeque<CompletableFuture<Void>> waiters = new ArrayDeque<>();
  private volatile int waiting;

  AdmissionGate(Admission config, Supplier<LocalLoad> load,
      Supplier<ScheduledExecutorService> scheduler) {
    this.config = config;
    this.saturation = config.saturation();
    this.load = load;
    this.scheduler = scheduler;
  }

  /** Blocks until admitted; throws {@link FleetSaturatedException} if not admitted in time. */
  void await() {
    CompletableFuture<Void> ticket = enter();
    if (ticket == null) return;
    try {
      ticket.get(config.maxWait().toNanos(), TimeUnit.NANOSECONDS);
    } catch (TimeoutException e) {
      if (!leave(ticket)) return; // admitted just as the wait ran out
      throw timedOut();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      leave(ticket);
      throw new FleetSaturatedException("interrupted while waiting for admission");
    } catch (ExecutionException e) {
      throw (RuntimeException) e.getCause();
    }
  }

  /** A future completing when admitted, or exceptionally with {@link FleetSaturatedException}. */
  CompletableFuture<Void> admitAsync() {
    CompletableFuture<Void> ticket;
    try {
      ticket = enter();
    } catch (FleetSaturatedException e) {
      return CompletableFuture.failedFuture(e);
    }
    if (ticket == null) return CompletableFuture.completedFuture(null);
    try {
      scheduler.get().schedule(() -> {
        if (leave(ticket)) ticket.completeExceptionally(timedOut());
      }, config.maxWait().toNanos(), TimeUnit.NANOSECONDS);
    } catch (RejectedExecutionException closed) {
      if (leave(ticket)) ticket.completeExceptionally(new FleetSaturatedException("client closed"));
    }
    return ticket;
  }

  /** Requests waiting now. */
  int waiting() {
    return waiting;
  }

  /** Admits waiting requests, in order, as far as the fleet has room. Cheap when none wait. */
  void onLoadChanged() {
    if (waiting == 0) return;
    List<CompletableFuture<Void>> admitted = new ArrayList<>();
    synchronized (this) {
      long room = room(load.get());
      while (room > 0 && !waiters.isEmpty()) {
        CompletableFuture<Void> next = waiters.pollFirst();
        if (next.isDone()) continue; // gave up meanwhile
        admitted.add(next);
        room--;
      }
      waiting = waiters.size();
    }
    // Outside the lock: an admitted asynchronous call dispatches on this thread.
    for (CompletableFuture<Void> ticket : admitted) ticket.complete(null);
  }

  /** Null if admitted at once; otherwise the ticket to wait on. */
  private @Nullable CompletableFuture<Void> enter() {
    if (waiting == 0 && hasRoom(load.get())) return null;
    synchronized (this) {
      // Arrival order: nobody overtakes a waiting request.
      if (waiters.isEmpty() && hasRoom(load.get())) return null;
      if (waiters.size() >= config.capacity()) {
        throw new FleetSaturatedException("fleet saturated and the admission queue is full ("
            + config.capacity() + " waiting)");
      }
      CompletableFuture<Void> ticket = new CompletableFuture<>();
      waiters.addLast(ticket);
      waiting = waiters.size();
      return ticket;
    }
  }

  /** Removes a ticket that gave up; false if it had been admitted meanwhile. */
  private synchronized boolean leave(CompletableFuture<Void> ticket) {
    if (ticket.isDone()) return false;
    waiters.remove(ticket);
    waiting = waiters.size();
    return true;
  }

  private FleetSaturatedException timedOut() {
    return new FleetSaturatedException("every replica reports a queue of at least "
        + saturation.queueThreshold() + " or KV usage of at least "
        + saturation.kvUsageThreshold()
        + "; not admitted within " + Duration.ofNanos(config.maxWait().toNanos()));
  }

  /** Whether some replica is not saturated; stops at the first one. */
  boolean hasRoom(LocalLoad view) {
    int n = view.replicas().size();
    long now = view.now();
    for (int i = 0; i < n; i++) {
      if (!saturation.isSaturated(view, i, now)) return true;
    }
    return false;
  }

  /**
   * How many requests the fleet can take now: for each replica that is not saturated, {@code
   * queueThreshold − effective queue}; unbounded if any replica has no fresh report. Stops at the
   * first replica with unknown load, so the common case reads one replica.
   */
  long room(LocalLoad view) {
    long room = 0;
    int n = view.replicas().size();
    long now = view.now();
    for (int i = 0; i < n; i++) {
      int q = view.effectiveQueue(i, now);
      if (saturation.isSaturated(q, view.kvUsage(i, now))) continue;
      if (q < 0) return Long.MAX_VALUE;
      room += saturation.queueThreshold() - q;
    }
    return room;
  }
}
