package io.github.llmrouter.dispatch;

import static java.util.Objects.requireNonNull;

import io.github.llmrouter.Ticker;
import io.github.llmrouter.api.ApiObject;
import io.github.llmrouter.api.FailedAttempt;
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
import io.github.llmrouter.observe.PanicEvent;
import io.github.llmrouter.observe.RoutedEvent;
import io.github.llmrouter.observe.RoutingListener;
import io.github.llmrouter.replica.HealthTracker;
import io.github.llmrouter.replica.OutlierDetection;
import io.github.llmrouter.replica.Replica;
import io.github.llmrouter.replica.ReplicaSet;
import io.github.llmrouter.routing.Ranking;
import io.github.llmrouter.routing.RoutedAttempt;
import io.github.llmrouter.routing.RoutingPolicy;
import io.github.llmrouter.routing.RoutingRequest;
import io.github.llmrouter.transport.HttpTransport;
import io.github.llmrouter.transport.ResponseShape;
import io.github.llmrouter.transport.SseStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
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
 *
 * <p>Eligibility: the ranking is walked by an {@link EligibleWalk} that skips replicas which are
 * unhealthy, ejected or behind an open circuit breaker, and defers those whose slow start declines
 * the key; if no replica is eligible the call goes to all of them in ranking order (panic). Each
 * attempt's outcome feeds outlier detection and the replica's breaker. While the fleet is empty a
 * call waits for replicas up to its deadline, with at most {@code maxWaitingCalls} waiting.
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
  // Issue 5: eligibility, breakers, waiting for replicas, panic.
  private final HealthTracker health;
  private final ReplicaBreakers breakers;
  private final FleetReadiness readiness;
  private final AtomicBoolean panic = new AtomicBoolean();

  /**
   * A dispatcher without health tracking, circuit breakers or waiting for replicas.
   *
   * @see #RequestDispatcher(RoutingPolicy, ReplicaSet, HttpTransport, RetryPolicy, Duration,
   *     Ticker, RoutingListener, Supplier, HealthTracker, CircuitBreakerPolicy, int)
   */
  public RequestDispatcher(RoutingPolicy policy, ReplicaSet replicas, HttpTransport transport,
      RetryPolicy retry, Duration callTimeout, Ticker ticker, RoutingListener listener,
      Supplier<ScheduledExecutorService> scheduler) {
    this(policy, replicas, transport, retry, callTimeout, ticker, listener, scheduler,
        new HealthTracker(OutlierDetection.disabled(), Duration.ZERO, ticker, listener),
        CircuitBreakerPolicy.disabled(), 0, LocalLoad.DEFAULT_STALE_AFTER, Admission.disabled());
  }

  /**
   * @param callTimeout the whole call's deadline across attempts ({@link Duration#ZERO} = none)
   * @param scheduler where asynchronous retries wait out their backoff; asked for lazily
   * @param health the fleet's health, read to skip ineligible replicas and fed every outcome
   * @param breakerPolicy the per-replica circuit breakers
   * @param maxWaitingCalls calls allowed to wait for replicas while the fleet is empty
   * @param reportStaleAfter replica load reports older than this (aged with {@code ticker}) are
   *     ignored
   * @param admission whether and how to hold requests back while the fleet is saturated
   */
  public RequestDispatcher(RoutingPolicy policy, ReplicaSet replicas, HttpTransport transport,
      RetryPolicy retry, Duration callTimeout, Ticker ticker, RoutingListener listener,
      Supplier<ScheduledExecutorService> scheduler, HealthTracker health,
      CircuitBreakerPolicy breakerPolicy, int maxWaitingCalls, Duration reportStaleAfter,
      Admission admission) {
    this.policy = requireNonNull(policy, "policy");
    this.transport = requireNonNull(transport, "transport");
    this.retry = requireNonNull(retry, "retry");
    this.ticker = requireNonNull(ticker, "ticker");
    this.budget = new RetryBudget(retry, ticker);
    this.callTimeoutNanos = callTimeout.toNanos();
    this.listener = requireNonNull(listener, "listener");
    this.scheduler = requireNonNull(scheduler, "scheduler");
    this.health = requireNonNull(health, "health");
    this.breakers = new ReplicaBreakers(requireNonNull(breakerPolicy, "breakerPolicy"), ticker,
        listener);
    this.readiness = new FleetReadiness(maxWaitingCalls);
    this.table = RoutingTable.initial(
        LocalLoad.of(requireNonNull(replicas, "replicas"), ticker, reportStaleAfter), policy,
        Eligibility.of(health, breakers, retry.maxRetryAfter(), replicas));
    readiness.onSnapshot(replicas);
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
    readiness.onSnapshot(replicas);
  }

  /** Completes with the first non-empty fleet (at once if the fleet already has replicas). */
  public CompletableFuture<List<Replica>> whenReady() {
    return readiness.firstReady();
  }

  /** Fails the calls waiting for replicas; called when the client closes. */
  public void close() {
    readiness.close();
  }

  /** Calls waiting for the fleet to have replicas. */
  public int waitingCalls() {
    return readiness.waiting();
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

  /**
   * A blocking call.
   *
   * @param <T> the response type
   * @param operation names the call in events ({@code "chat"})
   * @param path the endpoint's path
   * @param request what routing needs
   * @param body the JSON request
   * @param shape what the answer binds to and must hold
   * @return the answer, never null
   * @throws LlmException the call's failure, by the rule in {@code Attempts}
   */
  public <T> T call(String operation, String path, RoutingRequest request, byte[] body,
      ResponseShape<T> shape) {
    return attempt(operation, request, false, (replica, counter, timeoutNanos, routed) -> {
      T value = transport.execute(replica,
          transport.newCall(replica, path, body, timeoutNanos, false), shape);
      Feedback.answered(routed, value, ticker.read());
      return value;
    });
  }

  /**
   * The blocking attempt loop shared by {@link #call} and {@link #stream}: admission, then
   * attempts on the ranking's replicas until one succeeds or the call's final failure is thrown.
   * Each attempt holds the replica's in-flight counter; {@code keepCounter} leaves it held after a
   * success, for a stream that releases it when it closes.
   */
  private <R> R attempt(String operation, RoutingRequest request, boolean keepCounter,
      Exchange<R> exchange) {
    admit();
    Attempts a = new Attempts(operation, request);
    while (true) {
      int index = a.nextReplica();
      if (index == Attempts.WAIT) {
        a.sleep(a.waitNanos);
        continue;
      }
      Replica replica = a.table.replicas.get(index);
      InFlightCounter counter = a.table.load.counter(index);
      long backoff;
      boolean release = true;
      counter.acquire();
      RoutedAttempt routed = a.sent(index, keepCounter);
      try {
        R value = exchange.run(replica, counter, a.attemptTimeoutNanos(), routed);
        release = !keepCounter;
        a.succeeded(replica);
        return value;
      } catch (LlmException e) {
        Feedback.failed(routed, ticker.read());
        backoff = a.failed(replica, e);
      } finally {
        if (release) counter.release();
      }
      a.sleep(backoff);
    }
  }

  /**
   * One exchange with one replica, failing with the classified {@link LlmException}; what the
   * replica answers is told to {@code routed}.
   */
  @FunctionalInterface
  private interface Exchange<R> {
    R run(Replica replica, InFlightCounter counter, long timeoutNanos, RoutedAttempt routed);
  }

  /**
   * An asynchronous call; the future completes on an OkHttp or scheduler thread.
   *
   * @param <T> the response type
   * @param operation names the call in events
   * @param path the endpoint's path
   * @param request what routing needs
   * @param body the JSON request
   * @param type what the answer binds to and must hold
   * @return completes with the answer (never null) or an {@link LlmException}
   */
  public <T> CompletableFuture<T> callAsync(String operation, String path, RoutingRequest request,
      byte[] body, ResponseShape<T> type) {
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
      RoutingRequest request, byte[] body, ResponseShape<T> type) {
    CompletableFuture<T> future = new CompletableFuture<>();
    long start = ticker.read();
    if (table.picker == null && readiness.enter()) {
      // An empty fleet: wait for replicas without holding a thread, up to the call's deadline.
      CompletableFuture<Void> ready = readiness.whenNonEmpty();
      if (callTimeoutNanos > 0) {
        ready = ready.copy().orTimeout(callTimeoutNanos, TimeUnit.NANOSECONDS);
      }
      ready.whenComplete((v, t) -> {
        readiness.leave();
        startAsync(operation, path, request, body, type, future, start, false);
      });
      return future;
    }
    startAsync(operation, path, request, body, type, future, start, false);
    return future;
  }

  private <T> void startAsync(String operation, String path, RoutingRequest request, byte[] body,
      ResponseShape<T> type, CompletableFuture<T> future, long start, boolean wait) {
    Attempts a;
    try {
      a = new Attempts(operation, request, start, wait);
    } catch (LlmException e) {
      future.completeExceptionally(e);
      return;
    }
    attemptAsync(a, path, body, type, future);
  }

  private <T> void attemptAsync(Attempts a, String path, byte[] body, ResponseShape<T> type,
      CompletableFuture<T> future) {
    if (future.isDone()) return; // cancelled while waiting
    int index;
    try {
      index = a.nextReplica();
    } catch (LlmException e) {
      future.completeExceptionally(e);
      return;
    }
    if (index == Attempts.WAIT) {
      later(() -> attemptAsync(a, path, body, type, future), a.waitNanos, future);
      return;
    }
    Replica replica = a.table.replicas.get(index);
    InFlightCounter counter = a.table.load.counter(index);
    counter.acquire();
    RoutedAttempt routed = a.sent(index, false);
    Call call;
    try {
      call = transport.newCall(replica, path, body, a.attemptTimeoutNanos(), false);
    } catch (LlmException e) {
      // The deadline passed before the exchange could start, or the request cannot be built:
      // neither is worth another attempt, and failed() says so (and returns the permission).
      counter.release();
      Feedback.failed(routed, ticker.read());
      try {
        a.failed(replica, e);
        future.completeExceptionally(e); // not reached: failed() throws the final failure
      } catch (LlmException end) {
        future.completeExceptionally(end);
      }
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
        Feedback.answered(routed, value, ticker.read());
        a.succeeded(replica);
        future.complete(value);
      }

      @Override
      public void failed(LlmException failure) {
        counter.release();
        Feedback.failed(routed, ticker.read());
        if (future.isCancelled()) {
          a.abandoned(); // the caller cancelled: says nothing about the replica
          return;
        }
        long backoff;
        try {
          backoff = a.failed(replica, failure);
        } catch (LlmException e) {
          future.completeExceptionally(e);
          return;
        }
        if (future.isDone()) return;
        later(() -> attemptAsync(a, path, body, type, future), backoff, future);
      }
    });
  }

  /** Runs {@code next} after {@code nanos} on the scheduler (at once if 0). */
  private void later(Runnable next, long nanos, CompletableFuture<?> future) {
    if (nanos <= 0) {
      next.run();
      return;
    }
    try {
      scheduler.get().schedule(next, nanos, TimeUnit.NANOSECONDS);
    } catch (RejectedExecutionException closed) {
      future.completeExceptionally(new LlmException("client closed during a retry backoff"));
    }
  }

  /**
   * A streaming call: returns once the first chunk has arrived. Failures before it are retried
   * like any call; after it, the stream belongs to the caller and is never replayed.
   *
   * @param <T> the chunk type
   * @param operation names the call in events
   * @param path the endpoint's path
   * @param request what routing needs
   * @param body the JSON request, asking for a stream
   * @param type what each event binds to
   * @param adapter how the stream reads a chunk
   * @return the stream, its first chunk read
   */
  public <T extends ApiObject> ResponseStream<T> stream(String operation, String path,
      RoutingRequest request, byte[] body, Class<T> type, SseStream.ChunkAdapter<T> adapter) {
    return attempt(operation, request, true, (replica, counter, timeoutNanos, routed) -> {
      // The stream's last chunk carries the usage: read it when the stream closes.
      AtomicReference<SseStream<T>> opened = new AtomicReference<>();
      SseStream<T> stream = transport.openStream(replica,
          transport.newCall(replica, path, body, timeoutNanos, true), type, adapter, () -> {
            counter.release();
            SseStream<T> s = opened.get();
            Feedback.answered(routed, s == null ? null : s.lastChunk(), ticker.read());
          });
      opened.set(stream);
      Feedback.firstToken(routed, ticker.read());
      return stream;
    });
  }

  private void safely(Runnable event) {
    try {
      event.run();
    } catch (RuntimeException e) {
      log.warn("RoutingListener threw; ignoring", e);
    }
  }

  /**
   * The state of one call across its attempts, and the one place that decides how a call that
   * will not try again fails. Confined to one attempt at a time.
   *
   * <p>The rule, documented on {@code LlmClient}: a failure that another attempt could not fix
   * (the replica judged the request: a status that is not retryable) is thrown as it is; the
   * call's deadline passing is an {@link LlmTimeoutException}; every other end, whatever stopped
   * the retries, is the router giving up: {@link RetriesExhaustedException} with every attempt, or
   * {@link NoReplicaAvailableException} when no attempt could be made at all.
   */
  private final class Attempts {
    /** {@link #nextReplica()}: wait {@link #waitNanos} for a paused replica, then ask again. */
    static final int WAIT = -2;

    final String operation;
    final RoutingRequest request;
    final RoutingTable table;
    final long startNanos;
    /** The walk over the current round of the ranking; a new round replaces it. */
    EligibleWalk walk;
    int attempt;
    @Nullable List<FailedAttempt> failures;
    /** The replica of the attempt in progress and when it began, for outcome bookkeeping. */
    int current = -1;
    long attemptStart;
    /** After {@link #WAIT}: how long until a paused replica may be asked again. */
    long waitNanos;

    Attempts(String operation, RoutingRequest request) {
      this(operation, request, ticker.read(), true);
    }

    /**
     * @param wait whether to block for replicas if the fleet is empty (asynchronous calls have
     *     waited already)
     */
    Attempts(String operation, RoutingRequest request, long startNanos, boolean wait) {
      this.operation = operation;
      this.request = request;
      this.startNanos = startNanos;
      budget.onCall();
      RoutingTable t = RequestDispatcher.this.table;
      if (t.picker == null && wait) t = awaitReplicas();
      this.table = t;
      if (table.picker == null) {
        throw fail(new NoReplicaAvailableException("no replicas in the fleet (none appeared "
            + "before the call deadline, or maxWaitingCalls calls were already waiting)"));
      }
      this.walk = newWalk();
    }

    private EligibleWalk newWalk() {
      return new EligibleWalk(table.picker.rank(request, table.load), table.eligibility, request);
    }

    /** Blocks until the fleet has replicas or the deadline passes; returns the table then. */
    private RoutingTable awaitReplicas() {
      if (!readiness.enter()) return RequestDispatcher.this.table;
      try {
        long timeout = 0;
        if (callTimeoutNanos > 0) {
          timeout = callTimeoutNanos - (ticker.read() - startNanos);
          if (timeout <= 0) return RequestDispatcher.this.table;
        }
        readiness.await(timeout);
      } catch (LlmException e) {
        throw fail(e);
      } finally {
        readiness.leave();
      }
      return RequestDispatcher.this.table;
    }

    /**
     * The next replica's index; or {@link #WAIT} when the only replicas left are paused by their
     * {@code Retry-After} and the first of them is free before the deadline; or throws the call's
     * final failure if none is left.
     */
    int nextReplica() {
      long now = ticker.read();
      int index = walk.next(now);
      if (index < 0 && attempt > 0 && walk.picks() > 0) {
        // Every replica of the ranking has been tried: another round, from the key's own replica
        // (a fleet of one retries its only replica).
        walk = newWalk();
        index = walk.next(now);
      }
      if (index < 0) {
        current = -1;
        long until = walk.pausedUntil();
        if (until == Long.MIN_VALUE) throw giveUp("no replica left to try");
        long wait = Math.max(0, until - now);
        if (callTimeoutNanos > 0 && now + wait - startNanos >= callTimeoutNanos) {
          throw giveUp("the replicas left asked, with Retry-After, not to be called again "
              + "before the call deadline");
        }
        waitNanos = wait;
        return WAIT;
      }
      boolean panicked = walk.panicked();
      if (attempt == 0 && panic.get() != panicked && panic.compareAndSet(!panicked, panicked)) {
        PanicEvent event = new PanicEvent(panicked, table.replicas.size(), panicked
            ? "no replica is eligible (unhealthy, ejected or circuit open): routing to all"
            : "an eligible replica is back");
        if (listener != RoutingListener.NONE) safely(() -> listener.onPanic(event));
      }
      current = index;
      attemptStart = now;
      attempt++;
      if (listener != RoutingListener.NONE) {
        RoutedEvent event = routedEvent(index);
        safely(() -> listener.onRouted(event));
      }
      return index;
    }

    /**
     * Tells the policy the attempt on {@code index} is being sent ({@code streamed}: its first
     * token will be seen); a policy that fails to say is ignored.
     */
    RoutedAttempt sent(int index, boolean streamed) {
      try {
        RoutedAttempt routed = walk.fromRanking() ? walk.ranking().sent(index, ticker.read(), streamed)
            : RoutedAttempt.IGNORED;
        return routed == null ? RoutedAttempt.IGNORED : routed;
      } catch (RuntimeException e) {
        log.warn("RoutingPolicy {} failed to record a sent request; ignoring", policy.name(), e);
        return RoutedAttempt.IGNORED;
      }
    }

    /** The event of the pick of {@code index}, with the policy's predictions if it was its pick. */
    private RoutedEvent routedEvent(int index) {
      long cached = -1;
      Duration wait = null;
      String versus = "";
      if (walk.fromRanking()) {
        Ranking ranking = walk.ranking();
        cached = ranking.predictedCachedTokens();
        double seconds = ranking.estimatedWaitSeconds();
        if (seconds >= 0 && seconds < 1e9) wait = Duration.ofNanos(Math.round(seconds * 1e9));
        versus = ranking.versusRunnerUp();
      }
      return new RoutedEvent(operation, request.model(), attempt, table.replicas.get(index).id(),
          walk.reason(), table.load.inFlight(index), table.load.totalInFlight(), cached, wait,
          versus);
    }

    /** The timeout for the next exchange: what is left of the call's deadline (0 = none). */
    long attemptTimeoutNanos() {
      if (callTimeoutNanos <= 0) return 0;
      long left = callTimeoutNanos - (ticker.read() - startNanos);
      if (left <= 0) throw deadline(null); // failed() ends the call with it
      return left;
    }

    void succeeded(Replica replica) {
      record(null, ticker.read());
      finished(replica.id(), null);
    }

    /** The attempt's outcome is unknown (the caller cancelled): return its breaker permission. */
    void abandoned() {
      if (current >= 0) {
        table.eligibility.record(current, walk.permitted(), ticker.read(), 0,
            new LlmException("cancelled by the caller"));
      }
      current = -1;
    }

    private void record(@Nullable LlmException failure, long now) {
      if (current < 0) return;
      table.eligibility.record(current, walk.permitted(), now, now - attemptStart, failure);
      current = -1;
    }

    /**
     * Records a failed attempt and returns the backoff before the next one, or throws the call's
     * final failure if there is to be no next one.
     */
    long failed(Replica replica, LlmException failure) {
      long now = ticker.read();
      long duration = current < 0 ? 0 : now - attemptStart;
      record(failure, now);
      if (failures == null) failures = new ArrayList<>(retry.maxAttempts());
      failures.add(new FailedAttempt(Math.max(1, attempt), replica.id(),
          Duration.ofNanos(duration), failure));
      String whyNot;
      long backoff = 0;
      if (isDeadline(failure)) {
        whyNot = "deadline";
      } else if (!retry.isRetryable(failure)) {
        whyNot = "not retryable";
      } else if (attempt >= retry.maxAttempts()) {
        whyNot = "attempts exhausted";
      } else if (!budget.tryRetry()) {
        whyNot = "retry budget exhausted";
      } else {
        backoff = retry.backoffNanos(attempt);
        boolean late = callTimeoutNanos > 0 && now + backoff - startNanos >= callTimeoutNanos;
        whyNot = late ? "deadline" : "";
      }
      boolean willRetry = whyNot.isEmpty();
      if (listener != RoutingListener.NONE) {
        AttemptFailedEvent event = new AttemptFailedEvent(operation, attempt, replica.id(), failure,
            willRetry, willRetry ? Duration.ofNanos(backoff) : Duration.ZERO, whyNot);
        safely(() -> listener.onAttemptFailed(event));
      }
      if (willRetry) return backoff;
      if (isDeadline(failure)) throw fail(deadline(failure));
      if (whyNot.equals("not retryable")) {
        // The replica judged the request: the answer stands, with the earlier attempts attached.
        for (FailedAttempt f : failures) if (f.failure() != failure) failure.addSuppressed(f.failure());
        throw fail(failure);
      }
      throw giveUp(whyNot.equals("deadline")
          ? "the next attempt could not start before the call deadline" : whyNot);
    }

    void sleep(long nanos) {
      if (nanos <= 0) return;
      try {
        TimeUnit.NANOSECONDS.sleep(nanos);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw fail(new LlmException("interrupted while waiting to retry"));
      }
    }

    /** The router gives up: no attempt could help, or none is allowed. */
    private LlmException giveUp(String why) {
      return fail(failures == null
          ? new NoReplicaAvailableException("no attempt was made: " + why)
          : new RetriesExhaustedException(why, failures));
    }

    /**
     * The call's deadline passed; {@code last} is the attempt it cut short, if any. Not reported
     * yet: the caller hands it to {@link #fail}, or throws it into {@link #failed}.
     */
    private LlmTimeoutException deadline(@Nullable LlmException last) {
      LlmTimeoutException e = new LlmTimeoutException("call deadline of "
          + Duration.ofNanos(callTimeoutNanos) + " expired after " + attempt + " attempt"
          + (attempt == 1 ? "" : "s"), null, last, false);
      if (failures != null) {
        for (FailedAttempt f : failures) if (f.failure() != last) e.addSuppressed(f.failure());
      }
      return e;
    }

    /** Reports the call's end and returns {@code failure} for throwing. */
    private LlmException fail(LlmException failure) {
      finished(null, failure);
      return failure;
    }

    private void finished(@Nullable String replicaId, @Nullable LlmException failure) {
      if (listener == RoutingListener.NONE) return;
      CallFinishedEvent event = new CallFinishedEvent(operation, request.model(), attempt,
          replicaId, ticker.read() - startNanos, failure);
      safely(() -> listener.onCallFinished(event));
    }
  }

  /** Whether {@code failure} is the call's own deadline cutting an attempt short. */
  private static boolean isDeadline(LlmException failure) {
    return failure instanceof LlmTimeoutException && !failure.isRetryable();
  }
}
