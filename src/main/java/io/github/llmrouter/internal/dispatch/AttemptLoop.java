package io.github.llmrouter.internal.dispatch;

import static java.util.Objects.requireNonNull;

import io.github.llmrouter.api.LlmException;
import io.github.llmrouter.api.NoReplicaAvailableException;
import io.github.llmrouter.api.ReplicaHttpException;
import io.github.llmrouter.api.ReplicaUnreachableException;
import io.github.llmrouter.api.Ticker;
import io.github.llmrouter.dispatch.HedgePolicy;
import io.github.llmrouter.internal.transport.AddedHeaders;
import io.github.llmrouter.internal.transport.Endpoint;
import io.github.llmrouter.internal.transport.HttpTransport;
import io.github.llmrouter.internal.transport.ModelDiscovery;
import io.github.llmrouter.internal.transport.Verdict;
import io.github.llmrouter.observe.AttemptEndedEvent;
import io.github.llmrouter.observe.AttemptFailedEvent;
import io.github.llmrouter.observe.CallFinishedEvent;
import io.github.llmrouter.observe.CallStartedEvent;
import io.github.llmrouter.observe.HedgeEvent;
import io.github.llmrouter.observe.RoutedEvent;
import io.github.llmrouter.observe.RoutingListener;
import io.github.llmrouter.routing.ReplicaPicker;
import io.github.llmrouter.routing.RoutingRequest;
import java.time.Duration;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;

/**
 * One call, from its start to its answer or its final failure: wait for replicas if the fleet is
 * empty, rank them once, try rank 0, and on a retryable failure fail over to the next replica of
 * the ranking after a backoff, within the attempt limit, the retry budget and the deadline.
 *
 * <p>Blocking and asynchronous calls run these same steps, as OkHttp runs one interceptor chain for
 * {@code execute} and {@code enqueue}; only how a step waits differs. A blocking call ({@link
 * #join}) runs every step on the caller's thread: its exchanges run there, and it sleeps through
 * backoffs and blocks while the fleet is empty. An asynchronous call ({@link #start}) holds no
 * thread: exchanges run on OkHttp's threads, backoffs end on the scheduler's, and a wait for
 * replicas is a future.
 *
 * <p>With a {@code HedgePolicy}, an attempt that has delivered nothing after the learnt delay is
 * raced by a hedge on the next replica ({@link #hedge}): the first to deliver wins and the other
 * is cancelled. A blocking call's hedge runs on OkHttp's executor while its first attempt holds
 * the caller's thread. The call's state changes under its own lock (uncontended but for a race),
 * never held while an exchange runs.
 *
 * <p>After each failure {@link RetryDecision#after} decides whether another attempt follows;
 * {@link FailedAttempts} builds the exception a call ends with.
 *
 * @param <R> the call's result: an answer, or a stream
 */
final class AttemptLoop<R> {
  /** {@link AttemptFailedEvent#whyNot()} for a stream broken after its first chunk. */
  static final String STREAM_BROKEN = "stream broken after its first chunk";

  private final RequestDispatcher dispatcher;
  private final Endpoint<?> endpoint;
  private final RoutingRequest request;
  private final Exchange<R> exchange;
  private final boolean blocking;
  /** Whether a successful exchange keeps its in-flight counter (a stream releases it on close). */
  private final boolean keepsCounter;
  private final CompletableFuture<R> result;
  private final Ticker ticker;
  private final RoutingListener listener;
  /** The call's number for its events; 0 when nobody listens. */
  private final long callId;
  private final Deadline deadline;
  /** A replica the first attempt goes to only if no other is left (a broken stream's), or null. */
  private final @Nullable String avoid;
  private RoutingTable table;
  /** The walk over the current round of the ranking; made at the first attempt. */
  private @Nullable EligibleWalk walk;
  private int attempt;
  private final FailedAttempts failures;

  /** The last attempt made. */
  private @Nullable Attempt current;
  /** The attempt in flight (the first of a race), or null once it has ended. */
  private @Nullable Reply inFlight;
  /** The hedge in flight, or null once it has ended. */
  private @Nullable Reply hedge;
  /** Whether a hedge was sent (never twice per call), and by which attempt, for its event. */
  private @Nullable Reply hedgedFrom;
  private @Nullable Reply hedgedTo;
  /** Whether an attempt has delivered: the call's answer is decided (its result may follow). */
  private boolean decided;
  /** The armed hedge of the attempt in flight, cancelled once that attempt ends. */
  private @Nullable ScheduledFuture<?> hedgeTimer;
  /** The times of calls like this one, when they are kept (see {@link CallTiming}); else null. */
  private final @Nullable AnswerTimes times;
  /** Whether the call may be hedged. */
  private final boolean hedged;
  /** The headers the listeners set on the attempt being made; null when nobody listens. */
  private @Nullable AddedHeaders headers;

  // A blocking call's next step, and how long to wait before it.
  private @Nullable Runnable pending;
  private long pendingNanos;

  /**
   * @param timing how the call is timed: its hedge, and its wait for a first chunk; null for
   *     neither
   * @param blocking whether {@code exchange} reports before it returns: the call runs on its
   *     caller's thread ({@link #join})
   * @param result completed with the call's answer or final failure
   */
  AttemptLoop(RequestDispatcher dispatcher, Endpoint<?> endpoint, RoutingRequest request,
      @Nullable CallTiming timing, Exchange<R> exchange, boolean blocking,
      CompletableFuture<R> result) {
    this(dispatcher, endpoint, request, timing, exchange, blocking, result,
        Deadline.after(dispatcher.config.ticker().read(),
            dispatcher.config.callTimeout().toNanos()), null);
  }

  private AttemptLoop(RequestDispatcher dispatcher, Endpoint<?> endpoint, RoutingRequest request,
      @Nullable CallTiming timing, Exchange<R> exchange, boolean blocking,
      CompletableFuture<R> result, Deadline deadline, @Nullable String avoid) {
    this.dispatcher = dispatcher;
    this.endpoint = endpoint;
    this.request = request;
    this.exchange = exchange;
    this.blocking = blocking;
    this.keepsCounter = endpoint.streaming();
    this.result = result;
    this.ticker = dispatcher.config.ticker();
    this.listener = dispatcher.config.callEvents().getAsBoolean() ? dispatcher.config.listener()
        : RoutingListener.NONE;
    this.callId = listener == RoutingListener.NONE ? 0 : dispatcher.nextCallId();
    this.deadline = deadline;
    this.avoid = avoid;
    this.failures = new FailedAttempts(dispatcher.config.retry().maxAttempts());
    this.times = timing == null ? null : timing.times();
    this.hedged = timing != null && timing.hedged();
    dispatcher.budget.onCall();
    if (hedged) dispatcher.hedges.onCall();
    this.table = dispatcher.fleet.table();
    if (blocking && hedged) {
      // A hedged blocking call's caller may wait in join() while the other attempt's thread
      // ends the call; without a hedge, every step reports on the caller's own thread.
      result.whenComplete((v, t) -> wake());
    }
  }

  /** Runs a blocking call on this thread: {@code exchange} runs each attempt here. */
  static <R> R run(RequestDispatcher dispatcher, Endpoint<?> endpoint, RoutingRequest request,
      @Nullable CallTiming timing, Exchange<R> exchange) {
    return new AttemptLoop<R>(dispatcher, endpoint, request, timing, exchange, true,
        new CompletableFuture<>()).join();
  }

  /**
   * Runs a blocking call on this thread under {@code deadline}, its first attempt going to
   * {@code avoid} only if no other replica is left: the continuation of a stream that broke there.
   */
  static <R> R run(RequestDispatcher dispatcher, Endpoint<?> endpoint, RoutingRequest request,
      @Nullable CallTiming timing, Exchange<R> exchange, Deadline deadline,
      @Nullable String avoid) {
    return new AttemptLoop<R>(dispatcher, endpoint, request, timing, exchange, true,
        new CompletableFuture<>(), deadline, avoid).join();
  }

  /** Runs a blocking call on this thread. */
  private R join() {
    start();
    while (true) {
      Runnable step;
      long nanos;
      synchronized (this) {
        // A step comes from this thread's own exchange, or, in a hedged call, from the other
        // attempt's thread; the result, from either.
        while (pending == null && !result.isDone()) {
          try {
            wait();
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            interrupted();
            break;
          }
        }
        step = pending;
        if (step == null) break;
        pending = null;
        nanos = pendingNanos;
      }
      if (nanos > 0) {
        try {
          TimeUnit.NANOSECONDS.sleep(nanos);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          end(fail(new LlmException("interrupted while waiting to retry")));
          break;
        }
      }
      step.run();
    }
    try {
      return result.join();
    } catch (CompletionException e) {
      throw (LlmException) e.getCause();
    }
  }

  /** The blocked caller was interrupted while a hedged call's attempts ran elsewhere. */
  private synchronized void interrupted() {
    Reply first = inFlight;
    Reply second = hedge;
    end(fail(new LlmException("interrupted while waiting for an answer")));
    if (first != null) first.cancel();
    if (second != null) second.cancel();
  }

  private synchronized void wake() {
    notifyAll();
  }

  /** Starts the call: waits for replicas while the fleet is empty, then makes the first attempt. */
  void start() {
    if (listener != RoutingListener.NONE) {
      listener.onCallStarted(new CallStartedEvent(callId, endpoint.operation(), request.model()));
      // A caller who cancels ends the call wherever it is: in an attempt, a backoff or a wait.
      if (!blocking) {
        result.whenComplete((v, t) -> {
          if (result.isCancelled()) {
            finished(null, new LlmException("cancelled by the caller"), ticker.read());
          }
        });
      }
    }
    awaitRoutable();
  }

  /**
   * Makes the first attempt once the fleet can take the request: while it is empty, while a
   * first listing the request's routing depends on is to come (at most twice a listing's
   * timeout), and while no replica serves a model the fleet served before, the call waits, within
   * its deadline, at most {@code maxWaitingCalls} at a time; then {@link #next()} makes the
   * attempt or ends the call with the reason none can be made.
   */
  private void awaitRoutable() {
    FleetReadiness readiness = dispatcher.fleet.readiness();
    CompletableFuture<Void> nextTable = readiness.nextTable(); // before the table is read
    table = dispatcher.fleet.table();
    String model = request.model();
    long timeout = deadline.remainingNanos(ticker.read());
    if (table.routable(model) || (deadline.exists() && timeout <= 0) || !readiness.enter()) {
      next(); // ends the call if it cannot be routed
      return;
    }
    ServedModels models = table.models;
    boolean forReplica = models != null && models.awaitsReplica(model);
    if (forReplica) dispatcher.fleet.adapterNeeded(model); // an adapter loaded on demand
    if (table.picker != null && !forReplica) {
      // Replicas are there, but some have yet to list their models: a listing ends within its
      // timeout, so the wait is bounded by it even if the listing's end were never heard.
      long bound = 2 * ModelDiscovery.LISTING_TIMEOUT.toNanos();
      timeout = timeout > 0 ? Math.min(timeout, bound) : bound;
    }
    Consumer<@Nullable LlmException> then = closed -> {
      if (closed != null) {
        end(fail(closed));
      } else if (forReplica) {
        awaitRoutable(); // another table: a replica of the model, or still none
      } else { // replicas and listings arrived, or the wait's bound came first: next() says
        table = dispatcher.fleet.table();
        next();
      }
    };
    if (forReplica) readiness.awaitThenLeave(nextTable, blocking, timeout, then);
    else readiness.awaitThenLeave(blocking, timeout, then);
  }

  /** Makes the next attempt, waits for a paused replica, or ends the call. */
  private void next() {
    Reply r;
    long hedgeAfter;
    synchronized (this) {
      if (result.isDone()) return; // cancelled while waiting
      Next next;
      try {
        next = nextStep();
      } catch (LlmException end) {
        end(end);
        return;
      }
      if (next instanceof Next.Wait w) {
        after(w.nanos(), this::next);
        return;
      }
      r = new Reply(held(), false);
      if (!r.send()) return;
      inFlight = r;
      hedgeAfter = hedgeDelayNanos();
    }
    if (hedgeAfter >= 0) armHedge(r, hedgeAfter);
    r.start();
  }

  /** The delay after which the attempt now in flight is hedged, or -1 for none. */
  private long hedgeDelayNanos() {
    AnswerTimes t = times;
    if (t == null || !hedged || hedgedFrom != null || !t.known()) return -1;
    HedgePolicy policy = dispatcher.config.hedge();
    return Math.max(policy.minDelay().toNanos(), t.percentileNanos(policy.percentile()));
  }

  private void armHedge(Reply first, long delayNanos) {
    ScheduledFuture<?> timer;
    try {
      timer = dispatcher.scheduler.get().schedule(() -> hedge(first), delayNanos,
          TimeUnit.NANOSECONDS);
    } catch (RejectedExecutionException closed) {
      return; // the client is closing: the attempt goes on unhedged
    }
    synchronized (this) {
      if (inFlight == first && hedgedFrom == null && !decided) {
        hedgeTimer = timer;
        return;
      }
    }
    timer.cancel(false); // the attempt ended meanwhile
  }

  /**
   * Cancels the armed hedge, if any: its attempt ended, so the scheduler need not hold this call
   * until the delay would have passed.
   */
  private void disarmHedge() {
    ScheduledFuture<?> timer = hedgeTimer;
    if (timer == null) return;
    hedgeTimer = null;
    timer.cancel(false);
  }

  /**
   * The hedge delay has passed for {@code first}: unless it has delivered or ended, or the call
   * has hedged already, sends a hedge to the next eligible replica of the ranking that is not
   * saturated, if the retry budget allows one.
   */
  private void hedge(Reply first) {
    Reply h;
    synchronized (this) {
      hedgeTimer = null;
      if (decided || result.isDone() || inFlight != first || hedgedFrom != null) return;
      // A whole answer that has begun to arrive is moments away: nothing to gain.
      if (!keepsCounter && first.attempt.answering()) return;
      long now = ticker.read();
      if (deadline.reachedBy(now)) return;
      EligibleWalk w = requireNonNull(walk);
      Pick pick = w.next(now);
      if (pick == null) return;
      // Never to a replica that is not eligible (panic), saturated, or beyond the budget.
      if (pick.panicked() || dispatcher.config.admission().saturation().isSaturated(table.load,
          pick.index(), table.load.now()) || !dispatcher.hedges.tryRetry()
          || !dispatcher.budget.tryRetry()) {
        table.eligibility.unused(pick);
        return;
      }
      h = new Reply(newAttempt(pick, now, false), true);
      hedgedFrom = first;
      hedgedTo = h;
      hedge = h; // before sending: a hedge that cannot be sent fails as the race's second
      if (!h.send()) return;
    }
    if (!blocking) {
      h.start();
      return;
    }
    try {
      dispatcher.executor().execute(h::start);
    } catch (RejectedExecutionException closed) {
      h.failed(new LlmException("client closed before a hedge could start"));
    }
  }

  /**
   * {@code r} delivered {@code value}: the call's answer, unless the other attempt of a race
   * delivered first (then this one is let go) or the caller cancelled.
   */
  private void succeeded(Reply r, R value) {
    // First of all: from now on the stall watchdog leaves a stream alone, its caller may see it.
    if (keepsCounter) r.attempt.delivering(ticker.read());
    Reply loser;
    synchronized (this) {
      if (decided || result.isDone()) {
        late(r, value);
        return;
      }
      decided = true;
      loser = r == inFlight ? hedge : inFlight;
      inFlight = null;
      hedge = null;
      disarmHedge();
      recordTime(r);
    }
    Attempt a = r.attempt;
    long now = ticker.read();
    if (keepsCounter) {
      // A stream: its first chunk is read. The attempt ends with the stream, which tells it how.
      a.firstChunk(now);
    } else {
      a.answered(value, now);
    }
    if (loser != null) loser.cancel();
    raced(r.hedge ? HedgeEvent.Winner.HEDGE : HedgeEvent.Winner.FIRST);
    finished(a.replica.id(), null, now);
    ServedModels models = table.models;
    if (models != null && models.loadsOnDemand(a.index, request.model())) {
      dispatcher.fleet.loadedOnDemand(a.replica); // it has the model loaded now
    }
    result.complete(value);
  }

  /**
   * An answer that came after the call's was decided, or after the caller cancelled: a stream is
   * closed (its attempt ends abandoned), a whole answer ends its attempt as answered.
   */
  private void late(Reply r, R value) {
    if (keepsCounter) {
      // Closing the stream ends its attempt as abandoned.
      closeQuietly((AutoCloseable) value);
      r.attempt.abandoned(ticker.read());
    } else {
      r.attempt.answered(value, ticker.read());
      if (value instanceof AutoCloseable whole) closeQuietly(whole); // a raw answer nobody reads
    }
  }

  private static void closeQuietly(AutoCloseable answer) {
    try {
      answer.close();
    } catch (Exception ignored) {
      // Closing an answer nobody reads cannot fail in a way anyone could act on.
    }
  }

  /** The first attempt's time to deliver, as far as it is known, for the hedge delay. */
  private void recordTime(Reply winner) {
    AnswerTimes t = times;
    if (t == null) return;
    Reply first = winner.hedge ? requireNonNull(hedgedFrom) : winner;
    // A first attempt beaten by its hedge took at least this long: a censored sample, kept so
    // that the slow replicas the hedges avoid still weigh in the delay.
    t.add(ticker.read() - first.attempt.startNanos());
  }

  private void failed(Reply r, LlmException failure) {
    Attempt a = r.attempt;
    String lost = a.lost();
    if (lost != null) {
      // Its replica stopped accepting connections or answering before this attempt got any
      // answer: nothing reached the caller, so it fails over like one that could not connect.
      failure = new ReplicaUnreachableException(a.replica.id(), new Verdict.ReplicaGone(lost));
    }
    synchronized (this) {
      if (r.lostRace || decided || result.isCancelled()) {
        a.abandoned(ticker.read()); // says nothing about the replica
        return;
      }
      Reply other = r == inFlight ? hedge : r == hedge ? inFlight : null;
      if (r == inFlight) inFlight = null;
      if (r == hedge) hedge = null;
      if (other != null) {
        // The other attempt of the race goes on; the call waits for it.
        recordFailure(a, failure, RetryDecision.RACE_GOES_ON);
        return;
      }
      disarmHedge();
      if (hedgedTo != null && hedgedFrom != null && !decided) raced(HedgeEvent.Winner.NEITHER);
      long backoff;
      try {
        backoff = afterFailure(a, failure);
      } catch (LlmException end) {
        end(end);
        return;
      }
      after(backoff, this::next);
    }
  }

  /** Reports a decided race once; nothing for a call that did not hedge. */
  private void raced(HedgeEvent.Winner winner) {
    Reply from = hedgedFrom;
    Reply to = hedgedTo;
    if (from == null || to == null || listener == RoutingListener.NONE) return;
    hedgedTo = null; // reported: a later attempt of the call is no race
    listener.onHedge(new HedgeEvent(callId, endpoint.operation(), request.model(),
        from.attempt.replica.id(), to.attempt.replica.id(),
        Duration.ofNanos(to.attempt.startNanos() - from.attempt.startNanos()), winner));
  }

  /** Runs {@code step} after {@code nanos}: on the caller's thread for a blocking call. */
  private void after(long nanos, Runnable step) {
    if (blocking) {
      synchronized (this) {
        pending = step;
        pendingNanos = nanos;
        notifyAll();
      }
    } else if (nanos <= 0) {
      step.run();
    } else {
      try {
        dispatcher.scheduler.get().schedule(step, nanos, TimeUnit.NANOSECONDS);
      } catch (RejectedExecutionException closed) {
        end(fail(new LlmException("client closed during a retry backoff")));
      }
    }
  }

  private void end(LlmException failure) {
    result.completeExceptionally(failure);
  }

  private Attempt held() {
    Attempt a = current;
    if (a == null) throw new IllegalStateException("no attempt in progress");
    return a;
  }

  /**
   * One attempt's exchange as the loop runs it: the outcome it reports to the loop, and how to
   * cancel it.
   */
  private final class Reply implements HttpTransport.Outcome<R> {
    final Attempt attempt;
    /** Whether this is the call's hedge. */
    final boolean hedge;
    private Exchange.@Nullable Prepared<R> prepared;
    /** Cancelled because the other attempt of its race delivered first. */
    volatile boolean lostRace;

    Reply(Attempt attempt, boolean hedge) {
      this.attempt = attempt;
      this.hedge = hedge;
    }

    @Override
    public void succeeded(R value) {
      AttemptLoop.this.succeeded(this, value);
    }

    @Override
    public void failed(LlmException failure) {
      AttemptLoop.this.failed(this, failure);
    }

    /**
     * Sends the attempt (see {@link Attempt#send}); {@return false if it could not be, the
     * failure then handled}.
     */
    boolean send() {
      Exchange.Prepared<R> p;
      try {
        p = attempt.send(requireNonNull(walk).ranking(), keepsCounter, dispatcher.config.policy(),
            exchange, AttemptLoop.this::attemptTimeoutNanos, headers);
      } catch (LlmException e) {
        // The deadline passed before the exchange could start, or the request cannot be built:
        // neither is worth another attempt, and failed() ends the call.
        failed(e);
        return false;
      }
      prepared = p;
      if (!blocking) {
        // Cancelling the caller's future cancels the exchange.
        result.whenComplete((v, t) -> {
          if (result.isCancelled()) p.cancel();
        });
      }
      return true;
    }

    void start() {
      requireNonNull(prepared).start(this);
    }

    /** Cancels the exchange: it lost its race, or the call ended. */
    void cancel() {
      lostRace = true;
      Exchange.Prepared<R> p = prepared;
      if (p != null) p.cancel();
    }
  }

  /** What the call does next: an attempt on a pick, or a wait for a paused replica. */
  private sealed interface Next {
    /** An attempt on {@code pick}, the current attempt. */
    record Go(Pick pick) implements Next {}

    /** A wait of {@code nanos} for a replica paused by its {@code Retry-After}; then ask again. */
    record Wait(long nanos) implements Next {}
  }

  /**
   * The next attempt, made current; or a wait when the only replicas left are paused by their
   * {@code Retry-After} and the first of them is free before the deadline; or throws the call's
   * final failure if none is left.
   */
  private Next nextStep() {
    long now = ticker.read();
    EligibleWalk w = walk;
    if (w == null) walk = w = newWalk(); // the first attempt
    Pick pick = w.next(now);
    if (pick == null && attempt > 0 && w.picks() > 0) {
      // Every replica of the ranking has been tried: another round, from the key's own replica
      // (a fleet of one retries its only replica).
      walk = w = newWalk();
      pick = w.next(now);
    }
    if (pick == null) {
      OptionalLong until = w.pausedUntil();
      if (until.isEmpty()) throw fail(failures.giveUp("no replica left to try"));
      long wait = Math.max(0, until.getAsLong() - now);
      if (deadline.reachedBy(now + wait)) {
        throw fail(failures.giveUp("the replicas left asked, with Retry-After, not to be called "
            + "again before the call deadline"));
      }
      return new Next.Wait(wait);
    }
    if (attempt == 0 && avoid != null && table.replicas.get(pick.index()).id().equals(avoid)) {
      Pick other = w.next(now);
      if (other != null) {
        table.eligibility.unused(pick);
        pick = other;
      }
    }
    if (attempt == 0) dispatcher.panicked(pick.panicked(), table.replicas.size());
    Attempt previous = current;
    boolean failover = previous != null && !previous.replica.id().equals(
        table.replicas.get(pick.index()).id());
    newAttempt(pick, now, failover);
    return new Next.Go(pick);
  }

  /** Makes the call's next attempt, on {@code pick}, current, and tells the listeners. */
  private Attempt newAttempt(Pick pick, long now, boolean failover) {
    int index = pick.index();
    Attempt a = new Attempt(++attempt, pick, table.replicas.get(index),
        table.load.counter(index), table.eligibility, ticker, now, this::ended);
    AnswerTimes t = times;
    if (keepsCounter && t != null && dispatcher.fleet.watchesStalls()) {
      // A stream's wait for its first chunk tells whether its replica still answers.
      a.judgedBy(t);
      if (t.known()) dispatcher.fleet.watchAttempts();
    }
    current = a;
    if (listener != RoutingListener.NONE) {
      RoutedEvent routed = requireNonNull(walk).routedEvent(callId, endpoint.operation(), attempt,
          table, pick, failover, listener.needsRoutingExplanation());
      a.predictedCachedTokens = routed.predictedCachedTokens();
      headers = new AddedHeaders();
      listener.onRouted(routed, headers);
    }
    return a;
  }

  /** A walk over a new ranking of the request; throws if the fleet is empty. */
  private EligibleWalk newWalk() {
    ReplicaPicker picker = table.picker;
    if (picker == null) {
      throw fail(new NoReplicaAvailableException("no replicas in the fleet (none appeared "
          + "before the call deadline, or maxWaitingCalls calls were already waiting)"));
    }
    ServedModels models = table.models;
    if (models != null && models.awaitsReplica(request.model())) {
      throw fail(new NoReplicaAvailableException("no replica serves model '" + request.model()
          + "' any more (none appeared before the call deadline, or maxWaitingCalls calls were "
          + "already waiting; the fleet's replicas serve " + models.claimed() + ")"));
    }
    if (models != null && !models.anyServes(request.model())) {
      throw fail(new NoReplicaAvailableException("no replica serves model '" + request.model()
          + "' (the fleet's replicas serve " + models.claimed() + ")"));
    }
    ModelRoute route = models == null ? null : table.route(request.model());
    if (route != null) { // only the model's replicas are ranked: nothing to skip
      return new EligibleWalk(route.rank(request), table.eligibility, request, dispatcher.keys,
          null);
    }
    return new EligibleWalk(picker.rank(request, table.load), table.eligibility, request,
        dispatcher.keys, models);
  }

  /** The timeout for the next exchange: what is left of the call's deadline (0 = none). */
  private long attemptTimeoutNanos() {
    if (!deadline.exists()) return 0;
    long left = deadline.remainingNanos(ticker.read());
    if (left <= 0) throw failures.deadline(deadline.timeout(), attempt, null); // ends in failed()
    return left;
  }

  /**
   * Records a failed attempt and returns the backoff before the next one, or throws the call's
   * final failure if there is to be no next one.
   */
  private long afterFailure(Attempt failed, LlmException reported) {
    LlmException failure = staleListing(failed, reported);
    RetryDecision decision = RetryDecision.after(failure, attempt, dispatcher.config.retry(),
        dispatcher.budget, deadline, ticker.read());
    recordFailure(failed, failure, decision);
    switch (decision.kind()) {
      case RETRY:
        return decision.backoffNanos();
      case DEADLINE:
        throw fail(failures.deadline(deadline.timeout(), attempt, failure));
      case REJECTED:
        throw fail(failures.rejected(failure));
      default:
        throw fail(failures.giveUp(decision.giveUpMessage()));
    }
  }

  /**
   * {@code failure}, made retryable if it is an answer that the model is unknown from a replica
   * that listed or declared the model (it has stopped serving it since), while another replica
   * of the call's table serves it: the call goes on there instead of failing with the 404. Else
   * {@code failure} itself: the answer of a replica that never claimed the model stands.
   */
  private LlmException staleListing(Attempt failed, LlmException failure) {
    ServedModels models = table.models;
    if (models == null || !(failure instanceof ReplicaHttpException http) || http.isRetryable()
        || request.model().isEmpty() || !Verdict.modelUnknown(http)
        || !models.servedElsewhere(failed.index, request.model())) {
      return failure;
    }
    return new ReplicaHttpException(failed.replica.id(), http.status(), http.serverMessage(),
        http.bodyExcerpt(), true, http.retryAfter());
  }

  /** Ends {@code failed} with {@code failure}, adds it to the call's failures and reports it. */
  private void recordFailure(Attempt failed, LlmException failure, RetryDecision decision) {
    long now = ticker.read();
    long duration = failed.durationNanos(now);
    failed.failed(failure, now);
    failures.add(failed.number, failed.replica.id(), duration, failure);
    if (!request.model().isEmpty() && Verdict.modelUnknown(failure)) {
      dispatcher.fleet.modelUnknown(); // what the replicas serve may have changed
    }
    if (listener != RoutingListener.NONE) {
      listener.onAttemptFailed(new AttemptFailedEvent(callId, endpoint.operation(),
          request.model(), failed.number, failed.replica.id(), failure,
          decision.kind() == RetryDecision.Kind.RETRY, Duration.ofNanos(decision.backoffNanos()),
          decision.whyNot()));
    }
  }

  /**
   * Reports {@code a}'s end (see {@link Attempt.Ended}). A stream the replica broke after the
   * call handed it to its caller is also a failed attempt that is not retried (the caller has
   * read part of it): the call itself has succeeded.
   */
  private void ended(Attempt a, AttemptEndedEvent.Outcome outcome, @Nullable Object value,
      @Nullable LlmException failure, long now) {
    if (listener == RoutingListener.NONE) return;
    long start = deadline.startNanos();
    long firstChunk = a.firstChunkAt();
    listener.onAttemptEnded(new AttemptEndedEvent(callId, endpoint.operation(), request.model(),
        a.number, a.replica.id(), outcome, now - a.startNanos(),
        firstChunk == Long.MIN_VALUE ? -1 : firstChunk - start, now - start,
        Feedback.usageOf(value), Feedback.modelOf(value), a.predictedCachedTokens, failure));
    if (failure != null && firstChunk != Long.MIN_VALUE) {
      listener.onAttemptFailed(new AttemptFailedEvent(callId, endpoint.operation(),
          request.model(), a.number, a.replica.id(), failure, false, Duration.ZERO,
          STREAM_BROKEN));
    }
  }

  /** Reports the call's end and returns {@code failure} for throwing. */
  private LlmException fail(LlmException failure) {
    finished(null, failure, ticker.read());
    return failure;
  }

  private void finished(@Nullable String replicaId, @Nullable LlmException failure, long now) {
    if (listener == RoutingListener.NONE) return;
    listener.onCallFinished(new CallFinishedEvent(callId, endpoint.operation(), request.model(),
        attempt, replicaId, now - deadline.startNanos(), failure));
  }
}
