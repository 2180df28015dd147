package io.github.llmrouter;

import io.github.llmrouter.internal.transport.DaemonThreads;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * The client's scheduler, shared by asynchronous retry backoffs, admission timeouts, health checks
 * and resolvers: two daemon threads, started on first use (a client that never needs them starts
 * none) and stopped when the client closes. Thread-safe.
 */
final class ClientScheduler implements Supplier<ScheduledExecutorService> {
  private @Nullable ScheduledExecutorService scheduler; // guarded by this
  private boolean closed; // guarded by this

  /**
   * The scheduler, started if need be.
   *
   * @throws RejectedExecutionException if the client is closed
   */
  @Override
  public synchronized ScheduledExecutorService get() {
    if (closed) throw new RejectedExecutionException("client closed");
    if (scheduler == null) {
      // Two threads, so that a slow DNS lookup does not hold up a retry.
      ScheduledThreadPoolExecutor s =
          new ScheduledThreadPoolExecutor(2, DaemonThreads.named("llm-router-scheduler"));
      s.setRemoveOnCancelPolicy(true);
      scheduler = s;
    }
    return scheduler;
  }

  /** Stops the threads; tasks waiting to run are dropped. Idempotent. */
  synchronized void close() {
    closed = true;
    if (scheduler != null) scheduler.shutdownNow();
  }
}
