package io.github.llmrouter.internal.dispatch;

import static java.util.Objects.requireNonNull;

import io.github.llmrouter.api.LlmException;
import io.github.llmrouter.api.NoReplicaAvailableException;
import io.github.llmrouter.api.ReplicaUnreachableException;
import io.github.llmrouter.api.Ticker;
import io.github.llmrouter.internal.transport.AddedHeaders;
import io.github.llmrouter.internal.transport.Endpoint;
import io.github.llmrouter.internal.transport.HttpTransport;
import io.github.llmrouter.internal.transport.Verdict;
import io.github.llmrouter.observe.AttemptEndedEvent;
import io.github.llmrouter.observe.AttemptFailedEvent;
import io.github.llmrouter.observe.CallFinishedEvent;
import io.github.llmrouter.observe.CallStartedEvent;
import io.github.llmrouter.observe.RoutedEvent;
import io.github.llmrouter.observe.RoutingListener;
import io.github.llmrouter.routing.ReplicaPicker;
import io.github.llmrouter.routing.RoutingRequest;
import java.time.Duration;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
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
 * replicas is a future. Either way one step runs at a time, so the call's state needs no lock.
 *
 * <p>After each failure {@link RetryDecision#after} decides whether another attempt follows;
 * {@link FailedAttempts} builds the exception a call ends with.
 *
 * @param <R> the call's result: an answer, or a stream
 */
final class AttemptLoop<R> implements HttpTransport.Outcome<R> {
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
  private RoutingTable table;
  /** The walk over the current round of the ranking; made at the first attempt. */
  private @Nullable EligibleWalk walk;
  private int attempt;
  private final FailedAttempts failures;

  /** The attempt in progress, or the last one. */
  private @Nullable Attempt current;
  /** The headers the listeners set on the attempt being made; null when nobody listens. */
  private @Nullable AddedHeaders headers;

  // A blocking call's next step, and how long to wait before it.
  private @Nullable Runnable pending;
  private long pendingNanos;

  /**
   * @param blocking whether {@code exchange} reports before it returns: the call runs on its
   *     caller's thread ({@link #join})
   * @param result completed with the call's answer or final failure
   */
  AttemptLoop(RequestDispatcher dispatcher, Endpoint<?> endpoint, RoutingRequest request,
      Exchange<R> exchange, boolean blocking, CompletableFuture<R> result) {
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
    this.deadline = Deadline.after(ticker.read(), dispatcher.config.callTimeout().toNanos());
    this.failures = new FailedAttempts(dispatcher.config.retry().maxAttempts());
    dispatcher.budget.onCall();
    this.table = dispatcher.fleet.table();
  }

  /** Runs a blocking call on this thread: {@code exchange} runs each attempt here. */
  static <R> R run(RequestDispatcher dispatcher, Endpoint<?> endpoint, RoutingRequest request,
      Exchange<R> exchange) {
    return new AttemptLoop<R>(dispatcher, endpoint, request, exchange, true,
        new CompletableFuture<>()).join();
  }

  /** Runs a blocking call on this thread. */
  private R join() {
    start();
    while (pending != null) {
      Runnable step = pending;
      pending = null;
      if (pendingNanos > 0) {
        try {
          TimeUnit.NANOSECONDS.sleep(pendingNanos);
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
    FleetReadiness readiness = dispatcher.fleet.readiness();
    long timeout = deadline.remainingNanos(ticker.read());
    if (table.picker != null || (deadline.exists() && timeout <= 0) || !readiness.enter()) {
      next(); // ends the call if the fleet is empty
      return;
    }
    readiness.awaitThenLeave(blocking, timeout, closed -> {
      if (closed != null) {
        end(fail(closed));
      } else { // replicas arrived, or the deadline came first: next() says which
        table = dispatcher.fleet.table();
        next();
      }
    });
  }

  /** Makes the next attempt, waits for a paused replica, or ends the call. */
  private void next() {
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
    Attempt a = held();
    Exchange.Prepared<R> prepared;
    try {
      prepared = a.send(requireNonNull(walk).ranking(), keepsCounter, dispatcher.config.policy(),
          exchange, this::attemptTimeoutNanos, headers);
    } catch (LlmException e) {
      // The deadline passed before the exchange could start, or the request cannot be built:
      // neither is worth another attempt, and failed() ends the call.
      failed(e);
      return;
    }
    if (!blocking) {
      // Cancelling the caller's future cancels the exchange.
      result.whenComplete((v, t) -> {
        if (result.isCancelled()) prepared.cancel();
      });
    }
    prepared.start(this);
  }

  @Override
  public void succeeded(R value) {
    Attempt a = held();
    long now = ticker.read();
    if (keepsCounter) {
      // A stream: its first chunk is read. The attempt ends with the stream, which tells it how.
      a.firstChunk(now);
    } else {
      a.answered(value, now);
    }
    finished(a.replica.id(), null, now);
    result.complete(value);
  }

  @Override
  public void failed(LlmException failure) {
    Attempt a = held();
    String lost = a.lost();
    if (lost != null) {
      // Its replica stopped accepting connections or answering before this attempt got any
      // answer: nothing reached the caller, so it fails over like one that could not connect.
      failure = new ReplicaUnreachableException(a.replica.id(), new Verdict.ReplicaGone(lost));
    }
    if (result.isCancelled()) {
      a.abandoned(ticker.read()); // says nothing about the replica
      return;
    }
    long backoff;
    try {
      backoff = afterFailure(a, failure);
    } catch (LlmException end) {
      end(end);
      return;
    }
    after(backoff, this::next);
  }

  /** Runs {@code step} after {@code nanos}: on this thread for a blocking call. */
  private void after(long nanos, Runnable step) {
    if (blocking) {
      pending = step;
      pendingNanos = nanos;
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
    int index = pick.index();
    if (attempt == 0) dispatcher.panicked(pick.panicked(), table.replicas.size());
    Attempt previous = current;
    Attempt a = new Attempt(++attempt, pick, table.replicas.get(index),
        table.load.counter(index), table.eligibility, ticker, now, this::ended);
    current = a;
    if (listener != RoutingListener.NONE) {
      boolean failover = previous != null && !previous.replica.id().equals(a.replica.id());
      RoutedEvent routed = w.routedEvent(callId, endpoint.operation(), attempt, table, pick,
          failover, listener.needsRoutingExplanation());
      a.predictedCachedTokens = routed.predictedCachedTokens();
      headers = new AddedHeaders();
      listener.onRouted(routed, headers);
    }
    return new Next.Go(pick);
  }

  /** A walk over a new ranking of the request; throws if the fleet is empty. */
  private EligibleWalk newWalk() {
    ReplicaPicker picker = table.picker;
    if (picker == null) {
      throw fail(new NoReplicaAvailableException("no replicas in the fleet (none appeared "
          + "before the call deadline, or maxWaitingCalls calls were already waiting)"));
    }
    return new EligibleWalk(picker.rank(request, table.load), table.eligibility, request,
        dispatcher.keys);
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
  private long afterFailure(Attempt failed, LlmException failure) {
    long now = ticker.read();
    long duration = failed.durationNanos(now);
    failed.failed(failure, now);
    failures.add(attempt, failed.replica.id(), duration, failure);
    RetryDecision decision = RetryDecision.after(failure, attempt, dispatcher.config.retry(),
        dispatcher.budget, deadline, now);
    boolean willRetry = decision.kind() == RetryDecision.Kind.RETRY;
    if (listener != RoutingListener.NONE) {
      listener.onAttemptFailed(new AttemptFailedEvent(callId, endpoint.operation(),
          request.model(), attempt, failed.replica.id(), failure, willRetry,
          Duration.ofNanos(decision.backoffNanos()), decision.whyNot()));
    }
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
