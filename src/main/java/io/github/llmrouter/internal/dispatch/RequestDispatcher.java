package io.github.llmrouter.internal.dispatch;

import static java.util.Objects.requireNonNull;

import io.github.llmrouter.api.ApiObject;
import io.github.llmrouter.api.LlmException;
import io.github.llmrouter.api.RawRequest;
import io.github.llmrouter.api.RawResponse;
import io.github.llmrouter.api.ResponseStream;
import io.github.llmrouter.api.StreamChunk;
import io.github.llmrouter.internal.transport.Endpoint;
import io.github.llmrouter.internal.transport.HttpTransport;
import io.github.llmrouter.observe.PanicEvent;
import io.github.llmrouter.observe.RoutingListener;
import io.github.llmrouter.routing.KeyExtractor;
import io.github.llmrouter.routing.RoutingRequest;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * Runs every call of a client: admission, then the {@link AttemptLoop} over the request's ranking
 * of the current {@link FleetState}, each attempt an exchange through the {@link HttpTransport}.
 * Blocking, asynchronous and streaming calls differ only in how an exchange runs and how the loop
 * waits. Keeps what calls share: the retry budget and whether the fleet is in panic. Thread-safe.
 *
 * <p>Where routing plugs in: the {@code RoutingPolicy}'s picker ranks each request once per round
 * ({@code AttemptLoop.newWalk}); an {@link EligibleWalk} skips replicas that are unhealthy, ejected,
 * paused or behind an open circuit breaker, and defers those whose slow start declines the key; if
 * no replica is eligible the call goes to all of them in ranking order (panic). Each pick is
 * reported as a {@code RoutedEvent} (with the policy's predictions when the pick was its own);
 * each attempt's outcome feeds outlier detection and the replica's breaker ({@link
 * Eligibility#record}), and goes back to the policy ({@link Feedback}: sent, first token, usage
 * with cached tokens, failure).
 */
public final class RequestDispatcher {
  final DispatcherConfig config;
  final FleetState fleet;
  final HttpTransport transport;
  final Supplier<ScheduledExecutorService> scheduler;
  final RetryBudget budget;
  /** Bounds hedges to their share of calls (they also spend the retry budget). */
  final RetryBudget hedges;
  /** A request's affinity key, as the policy computes it: a slow start admits keys by it. */
  final KeyExtractor keys;
  private final AtomicBoolean panic = new AtomicBoolean();
  /**
   * Per kind of call (operation, streamed or not) and size class of its request, its times to an
   * answer: timings unhedged and hedged, at {@code 2 * sizeClass} and {@code 2 * sizeClass + 1}.
   */
  private final ConcurrentHashMap<Endpoint<?>, CallTiming[]> timings = new ConcurrentHashMap<>();
  /**
   * The last call number given out, across the clients of the JVM, so that one listener shared
   * by several clients can key its state by call; events carry it when someone listens.
   */
  private static final AtomicLong calls = new AtomicLong();

  /**
   * A dispatcher for one client.
   *
   * @param config the dispatch configuration
   * @param fleet the replicas to route to, as membership changes
   * @param transport runs each attempt's exchange
   * @param scheduler where asynchronous calls wait out their backoffs; asked for lazily
   */
  public RequestDispatcher(DispatcherConfig config, FleetState fleet, HttpTransport transport,
      Supplier<ScheduledExecutorService> scheduler) {
    this.config = requireNonNull(config, "config");
    this.fleet = requireNonNull(fleet, "fleet");
    this.transport = requireNonNull(transport, "transport");
    this.scheduler = requireNonNull(scheduler, "scheduler");
    this.budget = new RetryBudget(config.retry(), config.ticker());
    this.hedges = new RetryBudget(config.hedge().maxHedgedShare(), 0, config.ticker());
    this.keys = config.policy()::affinityKey;
  }

  /**
   * How a call is timed, from the times of calls like it (its operation, and its request's size
   * class); null when it is neither hedged (hedging is off, or the caller or the operation does not
   * allow it) nor watched by the stall watchdog (a stream, while the watchdog is on). Costs a map
   * lookup per call, allocates nothing.
   */
  @Nullable CallTiming timing(Endpoint<?> endpoint, RawRequest raw) {
    boolean hedged = config.hedge().enabled() && raw.hedgeable() && endpoint.hedgeable();
    if (!hedged && !(endpoint.streaming() && fleet.watchesStalls())) return null;
    CallTiming[] bySize = timings.computeIfAbsent(endpoint, e -> {
      CallTiming[] kinds = new CallTiming[2 * AnswerTimes.SIZE_CLASSES];
      for (int i = 0; i < AnswerTimes.SIZE_CLASSES; i++) {
        AnswerTimes times = new AnswerTimes();
        kinds[2 * i] = new CallTiming(times, false);
        kinds[2 * i + 1] = new CallTiming(times, true);
      }
      return kinds;
    });
    return bySize[2 * AnswerTimes.sizeClass(raw.body().length) + (hedged ? 1 : 0)];
  }

  /** {@return where a blocking call's hedge runs: the transport's OkHttp threads} */
  Executor executor() {
    return transport.executor();
  }

  /** {@return a new call's number, unique in the JVM} */
  long nextCallId() {
    return calls.incrementAndGet();
  }

  /**
   * A blocking call, run on this thread.
   *
   * @param <T> the answer type
   * @param endpoint the operation
   * @param request what routing needs
   * @param raw what to send: a typed operation's {@link Endpoint#request}, or the caller's
   * @return the answer, never null
   * @throws LlmException the call's failure, by the rule documented on {@code LlmException}
   */
  public <T> T call(Endpoint<T> endpoint, RoutingRequest request, RawRequest raw) {
    admit();
    return AttemptLoop.run(this, endpoint, request, timing(endpoint, raw),
        HttpExchange.blocking(transport, endpoint, raw,
        (attempt, call) -> transport.execute(attempt.replica, call, endpoint)));
  }

  /**
   * An asynchronous call: waits for admission, replicas and backoffs without holding a thread.
   *
   * @param <T> the answer type
   * @param endpoint the operation
   * @param request what routing needs
   * @param raw what to send
   * @return completes on an OkHttp or scheduler thread with the answer (never null) or an {@link
   *     LlmException}; cancelling it cancels the exchange in progress
   */
  public <T> CompletableFuture<T> callAsync(Endpoint<T> endpoint, RoutingRequest request,
      RawRequest raw) {
    CompletableFuture<T> result = new CompletableFuture<>();
    AdmissionGate gate = fleet.admission();
    Runnable start = () -> new AttemptLoop<T>(this, endpoint, request, timing(endpoint, raw),
        HttpExchange.of(transport, endpoint, raw, (attempt, call, outcome) ->
            transport.enqueue(attempt.replica, call, endpoint, attempt, outcome)),
        false, result).start();
    if (gate == null) {
      start.run();
    } else {
      gate.admitAsync().whenComplete((admitted, refused) -> {
        if (refused != null) result.completeExceptionally(refused);
        else if (!result.isDone()) start.run(); // not cancelled while waiting
      });
    }
    return result;
  }

  /**
   * A streaming call, run on this thread: returns once the first chunk has arrived. Failures
   * before it are retried like any call's; after it, the stream belongs to the caller and is never
   * replayed, but it may be continued ({@code resumable}). The stream holds its replica's
   * in-flight count until it is closed.
   *
   * @param <T> the chunk type
   * @param endpoint the streaming operation
   * @param request what routing needs
   * @param raw from {@link Endpoint#request}, asking for a stream
   * @param resumable whether a stream that breaks after its first chunk may be continued on
   *     another replica ({@link ResumingStream}), as far as the client's limit allows
   * @return the stream, its first chunk read
   * @throws LlmException the call's failure before its first chunk
   */
  public <T extends ApiObject & StreamChunk> ResponseStream<T> stream(Endpoint<T> endpoint,
      RoutingRequest request, RawRequest raw, boolean resumable) {
    admit();
    Deadline deadline = Deadline.after(config.ticker().read(), config.callTimeout().toNanos());
    ResponseStream<T> first = openStream(endpoint, request, raw, deadline, null);
    int limit = config.maxStreamResumptions();
    return resumable && limit > 0
        ? new ResumingStream<>(this, endpoint, request, raw, deadline, limit, first) : first;
  }

  /**
   * The continuation of a broken stream: a call of its own, under the original call's deadline,
   * first to the best replica other than {@code broken} (unless that is the only one left).
   */
  <T extends ApiObject & StreamChunk> ResponseStream<T> continueStream(Endpoint<T> endpoint,
      RoutingRequest request, RawRequest raw, Deadline deadline, String broken) {
    return openStream(endpoint, request, raw, deadline, broken);
  }

  private <T extends ApiObject & StreamChunk> ResponseStream<T> openStream(Endpoint<T> endpoint,
      RoutingRequest request, RawRequest raw, Deadline deadline, @Nullable String avoid) {
    return AttemptLoop.run(this, endpoint, request, timing(endpoint, raw),
        HttpExchange.blocking(transport, endpoint, raw,
            (attempt, call) -> transport.openStream(attempt.replica, call, endpoint, attempt)),
        deadline, avoid);
  }

  /**
   * A raw call, run on this thread: a whole answer, or an event stream handed out once its first
   * event has arrived (failures before it are retried like any call's; the stream holds its
   * replica's in-flight count until it ends).
   *
   * @param endpoint the raw operation ({@link Endpoint#raw})
   * @param request what routing needs
   * @param raw the caller's request
   * @return the answer, never null
   * @throws LlmException the call's failure, by the rule documented on {@code LlmException}
   */
  public RawResponse send(Endpoint<RawResponse> endpoint, RoutingRequest request,
      RawRequest raw) {
    if (!endpoint.streaming()) return call(endpoint, request, raw);
    admit();
    return AttemptLoop.run(this, endpoint, request, timing(endpoint, raw),
        HttpExchange.blocking(transport, endpoint, raw,
        (attempt, call) -> transport.openRaw(attempt.replica, call, endpoint, attempt)));
  }

  /** Blocks until admission control lets the call in; throws if it does not in time. */
  private void admit() {
    AdmissionGate gate = fleet.admission();
    if (gate != null) gate.await();
  }

  /**
   * The first attempt of a call found the fleet in panic ({@code panicked}: no replica eligible)
   * or not: reports the moments panic begins and ends.
   */
  void panicked(boolean panicked, int replicas) {
    if (panic.get() == panicked || !panic.compareAndSet(!panicked, panicked)) return;
    RoutingListener listener = config.listener();
    if (listener == RoutingListener.NONE) return;
    listener.onPanic(new PanicEvent(panicked, replicas, panicked
        ? "no replica is eligible (unhealthy, ejected or circuit open): routing to all"
        : "an eligible replica is back"));
  }
}
