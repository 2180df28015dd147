package io.github.llmrouter.dispatch;

import static java.util.Objects.requireNonNull;

import com.github.benmanes.caffeine.cache.Ticker;
import io.github.llmrouter.api.LlmException;
import io.github.llmrouter.api.LlmTimeoutException;
import io.github.llmrouter.api.NoReplicaAvailableException;
import io.github.llmrouter.api.ResponseStream;
import io.github.llmrouter.api.RetriesExhaustedException;
import io.github.llmrouter.load.InFlightCounter;
import io.github.llmrouter.load.LoadReport;
import io.github.llmrouter.load.LocalLoad;
import io.github.llmrouter.observe.AttemptFailedEvent;
import io.github.llmrouter.observe.CallFinishedEvent;
import io.github.llmrouter.observe.RoutedEvent;
import io.github.llmrouter.observe.RoutingListener;
import io.github.llmrouter.replica.Replica;
import io.github.llmrouter.replica.ReplicaSet;
import io.github.llmrouter.routing.Ranking;
import io.github.llmrouter.routing.RoutingPolicy;
import io.github.llmrouter.routing.RoutingRequest;
import io.github.llmrouter.transport.HttpTransport;
import io.github.llmrouter.transport.SseStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import okhttp3.Call;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The attempt loop shared by every call: rank the replicas once, try rank 0, and on a retryable
 * failure fail over to the next replica of the ranking after a backoff, within the attempt limit,
 * the retry budget and the call's deadline. Keeps the in-flight counters the routing policies
 * read. Internal; the public entry point is {@code LlmClient}.
 */
public final class RequestDispatcher {
  private static final Logger log = LoggerFactory.getLogger(RequestDispatcher.class);

  private final RoutingPolicy policy;
  private final HttpTransport transport;
  private final RetryPolicy retry;
  private final RetryBudget budget;
  private final long callTimeoutNanos;
  private final Ticker ticker;
  private final RoutingListener listener;
  private final Supplier<ScheduledExecutorService> scheduler;
  private final @Nullable AdmissionGate admission;
  private volatile RoutingTable table;

  /**
   * @param callTimeout the whole call's deadline across attempts ({@link Duration#ZERO} = none)
   * @param scheduler where asynchronous retries wait out their backoff; asked for lazily
   */
  public RequestDispatcher(RoutingPolicy policy, ReplicaSet replicas, HttpTransport transport,
      RetryPolicy retry, Duration callTimeout, Ticker ticker, RoutingListener listener,
      Supplier<ScheduledExecutorService> scheduler) {
    this(policy, replicas, transport, retry, callTimeout, ticker, listener, scheduler,
        LocalLoad.DEFAULT_STALE_AFTER, Admission.disabled());
  }

  /**
   * A dispatcher whose load view ignores replica reports older than {@code reportStaleAfter}
   * (aged with {@code ticker}) and that holds requests back while the fleet is saturated if
   * {@code admission} is enabled.
   */
  public RequestDispatcher(RoutingPolicy policy, ReplicaSet replicas, HttpTransport transport,
      RetryPolicy retry, Duration callTimeout, Ticker ticker, RoutingListener listener,
      Supplier<ScheduledExecutorService> scheduler, Duration reportStaleAfter,
      Admission admission) {
    this.policy = requireNonNull(policy, "policy");
    this.transport = requireNonNull(transport, "transport");
    this.retry = requireNonNull(retry, "retry");
    this.ticker = requireNonNull(ticker, "ticker");
    this.budget = new RetryBudget(retry, ticker);
    this.callTimeoutNanos = callTimeout.toNanos();
    this.listener = requireNonNull(listener, "listener");
    this.scheduler = requireNonNull(scheduler, "scheduler");
    this.table = RoutingTable.initial(
        LocalLoad.of(requireNonNull(replicas, "replicas"), ticker, reportStaleAfter), policy);
    if (admission.enabled()) {
      AdmissionGate gate = new AdmissionGate(admission, () -> table.load, scheduler);
      table.load.onRelease(gate::onLoadChanged); // a completion may make room
      this.admission = gate;
    } else {
      this.admission = null;
    }
  }

  // --- Load reports and admission (issue 4) ---

  /**
   * Publishes a load report for the replica with {@code replicaId} (ignored if it is not in the
   * fleet). A report from a response header is taken relative to the in-flight count without that
   * response's own request.
   */
  public void publishLoadReport(String replicaId, LoadReport report) {
    table.load.publish(replicaId, report, report.source() == LoadReport.Source.HEADER);
    if (admission != null) admission.onLoadChanged();
  }

  /** The current load view: in-flight counts and reports, indexed like {@link #replicas()}. */
  public LocalLoad load() {
    return table.load;
  }

  /** Requests waiting for admission now (0 when admission is off). */
  public int waitingForAdmission() {
    return admission == null ? 0 : admission.waiting();
  }

  private void admit() {
    if (admission != null) admission.await();
  }

  /** Replaces the fleet; calls in progress finish on the snapshot they started with. */
  public synchronized void updateReplicas(ReplicaSet replicas) {
    requireNonNull(replicas, "replicas");
    if (!replicas.equals(table.replicas)) table = table.next(replicas, policy);
  }

  /** The current fleet snapshot. */
  public ReplicaSet replicas() {
    return table.replicas;
  }

  /** This client's requests in flight on the replica with {@code id} (0 if unknown). */
  public int inFlight(String id) {
    RoutingTable t = table;
    int i = t.replicas.indexOf(id);
    return i < 0 ? 0 : t.load.inFlight(i);
  }

  /** A blocking call returning the parsed JSON body. */
  public <T> T call(String operation, String path, RoutingRequest request, byte[] body,
      Class<T> type) {
    admit();
    Attempts a = new Attempts(operation, request);
    while (true) {
      int index = a.nextReplica();
      Replica replica = a.table.replicas.get(index);
      InFlightCounter counter = a.table.load.counter(index);
      long backoff;
      counter.acquire();
      try {
        Call call = transport.newCall(replica, path, body, a.attemptTimeoutNanos(), false);
        T value = transport.execute(replica, call, type);
        a.succeeded(replica);
        return value;
      } catch (LlmException e) {
        backoff = a.failed(replica, e);
      } finally {
        counter.release();
      }
      a.sleep(backoff);
    }
  }

  /** An asynchronous call; the future completes on an OkHttp or scheduler thread. */
  public <T> CompletableFuture<T> callAsync(String operation, String path, RoutingRequest request,
      byte[] body, Class<T> type) {
    if (admission != null) {
      // Wait for admission without a thread, then dispatch as usual.
      CompletableFuture<T> outer = new CompletableFuture<>();
      admission.admitAsync().whenComplete((admitted, refused) -> {
        if (refused != null) {
          outer.completeExceptionally(refused);
          return;
        }
        if (outer.isDone()) return; // cancelled while waiting
        CompletableFuture<T> inner = dispatchAsync(operation, path, request, body, type);
        outer.whenComplete((v, t) -> {
          if (outer.isCancelled()) inner.cancel(true);
        });
        inner.whenComplete((v, t) -> {
          if (t != null) outer.completeExceptionally(t);
          else outer.complete(v);
        });
      });
      return outer;
    }
    return dispatchAsync(operation, path, request, body, type);
  }

  private <T> CompletableFuture<T> dispatchAsync(String operation, String path,
      RoutingRequest request, byte[] body, Class<T> type) {
    CompletableFuture<T> future = new CompletableFuture<>();
    Attempts a;
    try {
      a = new Attempts(operation, request);
    } catch (LlmException e) {
      future.completeExceptionally(e);
      return future;
    }
    attemptAsync(a, path, body, type, future);
    return future;
  }

  private <T> void attemptAsync(Attempts a, String path, byte[] body, Class<T> type,
      CompletableFuture<T> future) {
    int index;
    try {
      index = a.nextReplica();
    } catch (LlmException e) {
      future.completeExceptionally(e);
      return;
    }
    Replica replica = a.table.replicas.get(index);
    InFlightCounter counter = a.table.load.counter(index);
    counter.acquire();
    Call call;
    try {
      call = transport.newCall(replica, path, body, a.attemptTimeoutNanos(), false);
    } catch (LlmException e) {
      counter.release();
      future.completeExceptionally(e);
      return;
    }
    // Cancelling the caller's future cancels the exchange.
    future.whenComplete((v, t) -> {
      if (future.isCancelled()) call.cancel();
    });
    transport.enqueue(replica, call, type, new HttpTransport.Outcome<T>() {
      @Override
      public void succeeded(T value) {
        counter.release();
        a.succeeded(replica);
        future.complete(value);
      }

      @Override
      public void failed(LlmException failure) {
        counter.release();
        long backoff;
        try {
          backoff = a.failed(replica, failure);
        } catch (LlmException e) {
          future.completeExceptionally(e);
          return;
        }
        if (future.isDone()) return;
        Runnable next = () -> attemptAsync(a, path, body, type, future);
        if (backoff <= 0) {
          next.run();
        } else {
          try {
            scheduler.get().schedule(next, backoff, TimeUnit.NANOSECONDS);
          } catch (RejectedExecutionException closed) {
            future.completeExceptionally(new LlmException("client closed during a retry backoff"));
          }
        }
      }
    });
  }

  /**
   * A streaming call: returns once the first chunk has arrived. Failures before it are retried
   * like any call; after it, the stream belongs to the caller and is never replayed.
   */
  public <T> ResponseStream<T> stream(String operation, String path, RoutingRequest request,
      byte[] body, Class<T> type, SseStream.ChunkAdapter<T> adapter) {
    admit();
    Attempts a = new Attempts(operation, request);
    while (true) {
      int index = a.nextReplica();
      Replica replica = a.table.replicas.get(index);
      InFlightCounter counter = a.table.load.counter(index);
      long backoff;
      counter.acquire();
      try {
        Call call = transport.newCall(replica, path, body, a.attemptTimeoutNanos(), true);
        ResponseStream<T> stream = transport.openStream(replica, call, type, adapter, counter::release);
        a.succeeded(replica);
        return stream;
      } catch (LlmException e) {
        counter.release();
        backoff = a.failed(replica, e);
      }
      a.sleep(backoff);
    }
  }

  private void safely(Runnable event) {
    try {
      event.run();
    } catch (RuntimeException e) {
      log.warn("RoutingListener threw; ignoring", e);
    }
  }

  /** The state of one call across its attempts. Confined to one attempt at a time. */
  private final class Attempts {
    final String operation;
    final RoutingRequest request;
    final RoutingTable table;
    final long startNanos;
    final @Nullable Ranking ranking;
    int attempt;
    @Nullable List<LlmException> failures;

    Attempts(String operation, RoutingRequest request) {
      this.operation = operation;
      this.request = request;
      this.table = RequestDispatcher.this.table;
      this.startNanos = ticker.read();
      budget.onCall();
      if (table.picker == null) {
        LlmException e = new NoReplicaAvailableException("no replicas in the fleet");
        finished(null, e);
        throw e;
      }
      this.ranking = table.picker.rank(request, table.load);
    }

    /** The next replica's index, or the call's final failure if none is left. */
    int nextReplica() {
      int index = ranking.next();
      if (index < 0) {
        LlmException e = failures == null
            ? new NoReplicaAvailableException("every replica was tried")
            : new RetriesExhaustedException("every replica failed", failures);
        finished(null, e);
        throw e;
      }
      attempt++;
      if (listener != RoutingListener.NONE) {
        RoutedEvent event = new RoutedEvent(operation, request.model(), attempt,
            table.replicas.get(index).id(), ranking.reason(), table.load.inFlight(index),
            table.load.totalInFlight());
        safely(() -> listener.onRouted(event));
      }
      return index;
    }

    /** The timeout for the next exchange: what is left of the call's deadline (0 = none). */
    long attemptTimeoutNanos() {
      if (callTimeoutNanos <= 0) return 0;
      long left = callTimeoutNanos - (ticker.read() - startNanos);
      if (left <= 0) throw deadline(null);
      return left;
    }

    void succeeded(Replica replica) {
      finished(replica.id(), null);
    }

    /**
     * Records a failed attempt and returns the backoff before the next one, or throws the call's
     * final failure if there is to be no next one.
     */
    long failed(Replica replica, LlmException failure) {
      if (failures == null) failures = new ArrayList<>(retry.maxAttempts());
      failures.add(failure);
      String whyNot;
      long backoff = 0;
      if (failure instanceof LlmTimeoutException && !failure.isRetryable()) {
        whyNot = "deadline";
      } else if (!retry.isRetryable(failure)) {
        whyNot = "not retryable";
      } else if (attempt >= retry.maxAttempts()) {
        whyNot = "attempts exhausted";
      } else if (!budget.tryRetry()) {
        whyNot = "retry budget exhausted";
      } else {
        backoff = retry.backoffNanos(attempt, failure);
        long left = callTimeoutNanos <= 0 ? Long.MAX_VALUE
            : callTimeoutNanos - (ticker.read() - startNanos);
        whyNot = backoff >= left ? "deadline" : "";
      }
      boolean willRetry = whyNot.isEmpty();
      if (listener != RoutingListener.NONE) {
        AttemptFailedEvent event = new AttemptFailedEvent(operation, attempt, replica.id(), failure,
            willRetry, willRetry ? Duration.ofNanos(backoff) : Duration.ZERO, whyNot);
        safely(() -> listener.onAttemptFailed(event));
      }
      if (willRetry) return backoff;
      LlmException result;
      if (whyNot.equals("deadline")) {
        result = failure instanceof LlmTimeoutException && !failure.isRetryable() && attempt == 1
            ? failure : deadline(failure);
      } else if (attempt == 1) {
        result = failure;
      } else {
        result = new RetriesExhaustedException(
            whyNot.equals("not retryable") ? "a non-retryable failure" : whyNot, failures);
      }
      finished(null, result);
      throw result;
    }

    void sleep(long nanos) {
      if (nanos <= 0) return;
      try {
        TimeUnit.NANOSECONDS.sleep(nanos);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        LlmException failure = new LlmException("interrupted while waiting to retry");
        finished(null, failure);
        throw failure;
      }
    }

    private LlmException deadline(@Nullable LlmException last) {
      LlmTimeoutException e = new LlmTimeoutException("call deadline of "
          + Duration.ofNanos(callTimeoutNanos) + " expired after " + attempt + " attempt"
          + (attempt == 1 ? "" : "s"), null, last, false);
      if (failures != null) {
        for (LlmException f : failures) if (f != last) e.addSuppressed(f);
      }
      return e;
    }

    private void finished(@Nullable String replicaId, @Nullable LlmException failure) {
      if (listener == RoutingListener.NONE) return;
      CallFinishedEvent event = new CallFinishedEvent(operation, request.model(), attempt,
          replicaId, ticker.read() - startNanos, failure);
      safely(() -> listener.onCallFinished(event));
    }
  }
}
