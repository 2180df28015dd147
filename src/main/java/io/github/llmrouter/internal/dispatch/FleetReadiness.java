package io.github.llmrouter.internal.dispatch;

import io.github.llmrouter.api.LlmException;
import io.github.llmrouter.replica.Replica;
import io.github.llmrouter.replica.ReplicaSet;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;

/**
 * Lets calls wait for the fleet to have replicas (at start-up, or after scaling to zero) and for
 * the first listings of their models, at most {@code maxWaiters} at a time; and completes {@link
 * #firstReady()} when the first replicas arrive. Thread-safe.
 */
final class FleetReadiness {
  private final int maxWaiters;
  private final AtomicInteger waiters = new AtomicInteger();
  private final CompletableFuture<List<Replica>> firstReady = new CompletableFuture<>();
  /**
   * Complete while the fleet has replicas and no first listing of their models is to come;
   * replaced by a fresh one when that stops being so.
   */
  private volatile CompletableFuture<Void> settled = new CompletableFuture<>();
  /** Completed by the next table, and replaced: what a call waiting for a model's replica awaits. */
  private volatile CompletableFuture<Void> changed = new CompletableFuture<>();
  private volatile boolean closed;

  FleetReadiness(int maxWaiters) {
    this.maxWaiters = maxWaiters;
  }

  /**
   * Called with every new routing table, under the fleet's update lock.
   *
   * @param replicas its membership
   * @param settled whether every call may start on it ({@link RoutingTable#settled()})
   */
  void onTable(ReplicaSet replicas, boolean settled) {
    if (!replicas.isEmpty()) firstReady.complete(replicas.replicas());
    CompletableFuture<Void> last = changed;
    if (!closed) changed = new CompletableFuture<>();
    last.complete(null);
    if (settled) {
      this.settled.complete(null);
    } else if (this.settled.isDone() && !closed) {
      this.settled = new CompletableFuture<>();
    }
  }

  CompletableFuture<List<Replica>> firstReady() {
    return firstReady;
  }

  /** Fails every waiting call and every later wait. */
  void close() {
    closed = true;
    LlmException e = new LlmException("client closed while waiting for replicas");
    settled.completeExceptionally(e);
    changed.completeExceptionally(e);
    firstReady.completeExceptionally(e);
  }

  /**
   * Takes a waiter slot.
   *
   * @return false when {@code maxWaiters} calls are already waiting
   */
  boolean enter() {
    while (true) {
      int n = waiters.get();
      if (n >= maxWaiters) return false;
      if (waiters.compareAndSet(n, n + 1)) return true;
    }
  }

  void leave() {
    waiters.decrementAndGet();
  }

  /** Calls waiting now. */
  int waiting() {
    return waiters.get();
  }

  /**
   * After {@link #enter}: waits until the fleet has replicas and no first listing is to come, or
   * {@code timeoutNanos} have passed (0 = no limit), leaves, then runs {@code then} with null, or
   * with the reason the wait failed (the client closed, the thread was interrupted). {@code blocking}: on this thread, before
   * returning; otherwise without a thread, on the one that ends the wait.
   */
  void awaitThenLeave(boolean blocking, long timeoutNanos,
      Consumer<@Nullable LlmException> then) {
    awaitThenLeave(settled, blocking, timeoutNanos, then);
  }

  /**
   * The next table's future: a caller reads it before it reads the table it finds wanting, so
   * that a table published in between still ends its wait.
   */
  CompletableFuture<Void> nextTable() {
    return changed;
  }

  /** As {@link #awaitThenLeave(boolean, long, Consumer)}, until {@code f} completes. */
  void awaitThenLeave(CompletableFuture<Void> f, boolean blocking, long timeoutNanos,
      Consumer<@Nullable LlmException> then) {
    if (!blocking) {
      if (timeoutNanos > 0) f = f.copy().orTimeout(timeoutNanos, TimeUnit.NANOSECONDS);
      f.whenComplete((v, t) -> {
        leave();
        Throwable cause = t instanceof CompletionException ? t.getCause() : t;
        then.accept(cause instanceof LlmException ? (LlmException) cause : null);
      });
      return;
    }
    LlmException failure = null;
    try {
      if (timeoutNanos <= 0) f.get();
      else f.get(timeoutNanos, TimeUnit.NANOSECONDS);
    } catch (TimeoutException e) {
      // the caller finds the fleet still empty
    } catch (ExecutionException e) {
      failure = (LlmException) e.getCause();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      failure = new LlmException("interrupted while waiting for replicas");
    } finally {
      leave();
    }
    then.accept(failure);
  }
}
