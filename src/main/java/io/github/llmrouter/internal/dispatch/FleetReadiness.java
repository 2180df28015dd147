package io.github.llmrouter.internal.dispatch;

import io.github.llmrouter.api.LlmException;
import io.github.llmrouter.replica.Replica;
import io.github.llmrouter.replica.ReplicaSet;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Lets calls wait for the fleet to have replicas (at start-up, or after scaling to zero), at most
 * {@code maxWaiters} at a time; and completes {@link #firstReady()} when the first replicas
 * arrive.
 */
final class FleetReadiness {
  private final int maxWaiters;
  private final AtomicInteger waiters = new AtomicInteger();
  private final CompletableFuture<List<Replica>> firstReady = new CompletableFuture<>();
  /** Complete while the fleet has replicas; replaced by a fresh one when it empties. */
  private volatile CompletableFuture<Void> nonEmpty = new CompletableFuture<>();
  private volatile boolean closed;

  FleetReadiness(int maxWaiters) {
    this.maxWaiters = maxWaiters;
  }

  /** Called with every new snapshot, under the dispatcher's update lock. */
  void onSnapshot(ReplicaSet replicas) {
    if (!replicas.isEmpty()) {
      firstReady.complete(replicas.replicas());
      nonEmpty.complete(null);
    } else if (nonEmpty.isDone() && !closed) {
      nonEmpty = new CompletableFuture<>();
    }
  }

  CompletableFuture<List<Replica>> firstReady() {
    return firstReady;
  }

  /** Fails every waiting call and every later wait. */
  void close() {
    closed = true;
    LlmException e = new LlmException("client closed while waiting for replicas");
    nonEmpty.completeExceptionally(e);
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
   * Blocks until the fleet has replicas, at most {@code timeoutNanos} (0 = no limit).
   *
   * @return whether it has
   * @throws LlmException if the client closed or the thread was interrupted
   */
  boolean await(long timeoutNanos) {
    CompletableFuture<Void> f = nonEmpty;
    try {
      if (timeoutNanos <= 0) f.get();
      else f.get(timeoutNanos, TimeUnit.NANOSECONDS);
      return true;
    } catch (TimeoutException e) {
      return false;
    } catch (ExecutionException e) {
      throw (LlmException) e.getCause();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new LlmException("interrupted while waiting for replicas");
    }
  }

  /** Completes when the fleet has replicas; never times out by itself. */
  CompletableFuture<Void> whenNonEmpty() {
    return nonEmpty;
  }
}
