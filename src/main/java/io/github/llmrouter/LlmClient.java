package io.github.llmrouter;

import static java.util.Objects.requireNonNull;

import io.github.llmrouter.api.ChatChunk;
import io.github.llmrouter.api.ChatMessage;
import io.github.llmrouter.api.ChatRequest;
import io.github.llmrouter.api.ChatResponse;
import io.github.llmrouter.api.CompletionRequest;
import io.github.llmrouter.api.CompletionResponse;
import io.github.llmrouter.api.EmbeddingRequest;
import io.github.llmrouter.api.EmbeddingResponse;
import io.github.llmrouter.api.LlmException;
import io.github.llmrouter.api.RawRequest;
import io.github.llmrouter.api.RawResponse;
import io.github.llmrouter.api.ResponseStream;
import io.github.llmrouter.internal.dispatch.DispatcherConfig;
import io.github.llmrouter.internal.dispatch.FleetState;
import io.github.llmrouter.internal.dispatch.RequestDispatcher;
import io.github.llmrouter.internal.health.HealthProber;
import io.github.llmrouter.internal.health.StatusTracker;
import io.github.llmrouter.internal.load.FleetSnapshots;
import io.github.llmrouter.internal.transport.Endpoint;
import io.github.llmrouter.internal.transport.HttpTransport;
import io.github.llmrouter.internal.transport.LoadScraper;
import io.github.llmrouter.internal.transport.AdapterLoader;
import io.github.llmrouter.internal.transport.ModelDiscovery;
import io.github.llmrouter.internal.transport.OkHttpClients;
import io.github.llmrouter.internal.transport.RequestScan;
import io.github.llmrouter.load.Saturation;
import io.github.llmrouter.observe.FleetSnapshot;
import io.github.llmrouter.observe.FleetView;
import io.github.llmrouter.observe.RoutingListener;
import io.github.llmrouter.replica.Replica;
import io.github.llmrouter.replica.ReplicaResolver;
import io.github.llmrouter.routing.CacheAware;
import io.github.llmrouter.routing.RoutingRequest;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Supplier;
import okhttp3.OkHttpClient;
import org.jspecify.annotations.Nullable;

/**
 * An OpenAI-compatible client for a fleet of inference replicas that routes every request, in
 * process, to the best replica for it: by default the one expected to give it its first token
 * soonest, counting the prompt tokens each replica probably has cached and the prefill work queued
 * there (see {@link CacheAware}). Failed attempts fail over to the next replica of the request's
 * ranking.
 *
 * <pre>{@code
 * try (LlmClient client = LlmClient.builder()
 *     .replicas("http://10.0.0.7:8000", "http://10.0.0.8:8000", "http://10.0.0.9:8000")
 *     .apiKey(System.getenv("VLLM_API_KEY"))
 *     .build()) {
 *   ChatResponse answer = client.chat(ChatRequest.builder("llama-3.1-8b")
 *       .message(ChatMessage.system(SYSTEM_PROMPT))
 *       .message(ChatMessage.user("What is a KV cache?"))
 *       .build());
 *   System.out.println(answer.text());
 * }
 * }</pre>
 *
 * <p><b>How a call fails.</b> Every exception a call throws (or completes its future with) is an
 * {@link LlmException}; nothing else escapes, and no call returns null. Which one follows one rule,
 * documented on {@link LlmException}: the router gave up ({@code RetriesExhaustedException}), a
 * replica judged the request ({@code ReplicaHttpException}), the call ran out of time ({@code
 * LlmTimeoutException}: its {@link LlmClientBuilder#callTimeout deadline}, or a stream idle for
 * {@link LlmClientBuilder#streamIdleTimeout}), a stream broke after its first chunk ({@code
 * StreamInterruptedException}), no attempt could be made ({@code NoReplicaAvailableException}),
 * or admission control refused the call ({@code FleetSaturatedException}). The {@code *Async}
 * methods never throw (but for a null argument): they return a future that fails instead.
 *
 * <p>Thread-safe: share one client across the application. Close it to release its threads and
 * connections (a caller-supplied {@link OkHttpClient}'s own resources are left alone). Every
 * thread it starts is a daemon thread, so a client left unclosed never keeps the JVM alive.
 *
 * @since 0.2.0
 */
public final class LlmClient implements FleetView, AutoCloseable {
  private final OkHttpClient http;
  private final boolean ownsHttp;
  private final ClientScheduler scheduler = new ClientScheduler();
  private final FleetState fleet;
  private final RequestDispatcher dispatcher;
  private final Membership membership;
  private final @Nullable LoadScraper scraper;
  // What the client needs of its configuration after build(): no copy of the builder (nor of
  // the API key) is kept.
  private final Saturation saturation;
  private final String policyName;
  private final boolean hasApiKey;
  private final AtomicBoolean closed = new AtomicBoolean();
  private final RoutingListener listener;

  /** Wires a client's parts together and starts them; {@code b} has been validated. */
  LlmClient(LlmClientBuilder b, ReplicaResolver resolver) {
    this.saturation = b.admission.saturation();
    this.policyName = b.routingPolicy.name();
    this.hasApiKey = b.apiKey != null;
    this.ownsHttp = b.okHttpClient == null;
    this.http = OkHttpClients.configure(b.okHttpClient, b.maxConcurrentRequests, b.connectTimeout,
        b.firstByteTimeout);
    List<RoutingListener> listeners = new ArrayList<>();
    ClientLog clientLog = new ClientLog();
    listeners.add(clientLog);
    listeners.addAll(b.listeners);
    this.listener = GuardedListeners.of(listeners, b.ticker);
    // A call's events are built if a listener of the application's hears them, or if routing
    // decisions are logged.
    boolean heard = !b.listeners.isEmpty();
    DispatcherConfig config = new DispatcherConfig(b.routingPolicy, b.retryPolicy, b.hedgePolicy,
        b.callTimeout, b.circuitBreaker, b.admission, b.maxWaitingCalls,
        b.loadMonitoring.staleAfter(), b.ticker, listener,
        () -> heard || clientLog.routingLogged(), b.maxStreamResumptions);
    StatusTracker statuses = new StatusTracker(b.outlierDetection, b.slowStart, b.stallTimeout,
        b.ticker, listener);
    statuses.probed(b.loadMonitoring.scraping() || b.healthCheck != null);
    this.fleet = new FleetState(config, statuses, scheduler);
    // Load reports read from responses go straight to the fleet's load view.
    HttpTransport transport = new HttpTransport(http, b.apiKey, b.streamIdleTimeout,
        b.retryPolicy::isRetryableStatus, b.loadMonitoring, fleet, b.ticker, listener);
    this.dispatcher = new RequestDispatcher(config, fleet, transport, scheduler);
    HealthProber prober = b.healthCheck == null ? null
        : new HealthProber(b.healthCheck, http, statuses, b.ticker, scheduler,
            System.nanoTime());
    ModelDiscovery discovery = null;
    if (!b.modelDiscoveryInterval.isZero()) {
      discovery = new ModelDiscovery(http, b.apiKey, b.modelDiscoveryInterval, b.ticker,
          scheduler, fleet, System.nanoTime());
      fleet.listModels(discovery::relistAll, discovery::relist);
      if (!b.adaptersOnDemand.isEmpty()) {
        fleet.placeAdapters(b.adaptersOnDemand, new AdapterLoader(http, b.apiKey));
      }
    }
    this.membership = new Membership(resolver, fleet, statuses, prober, discovery, scheduler,
        b.ticker, listener);
    this.scraper = !b.loadMonitoring.scraping() ? null
        : new LoadScraper(http, b.apiKey, b.loadMonitoring, b.ticker, fleet::replicas, fleet);
    if (scraper != null) scraper.start();
    membership.start();
  }

  /**
   * Starts a client configuration with every default; set {@link LlmClientBuilder#replicas(String...)}
   * or {@link LlmClientBuilder#resolver(ReplicaResolver)} before {@link LlmClientBuilder#build()}.
   *
   * @return a new, mutable builder (not thread-safe)
   */
  public static LlmClientBuilder builder() {
    return new LlmClientBuilder();
  }

  /**
   * A blocking chat completion.
   *
   * @param request the request
   * @return the answer, never null
   * @throws LlmException how the call failed (see the class comment for which)
   */
  public ChatResponse chat(ChatRequest request) {
    return dispatcher.call(Endpoint.CHAT, routing(request), request(Endpoint.CHAT, request, request.hedgeable()));
  }

  /**
   * An asynchronous chat completion. Never throws (but for a null request): every failure, even
   * a closed client, completes the future exceptionally.
   *
   * @param request the request
   * @return completes on an I/O thread with the answer (never null) or an {@link LlmException};
   *     cancelling it cancels the exchange in progress
   */
  public CompletableFuture<ChatResponse> chatAsync(ChatRequest request) {
    return async(() -> dispatcher.callAsync(Endpoint.CHAT, routing(request),
        request(Endpoint.CHAT, request, request.hedgeable())));
  }

  /**
   * A streamed chat completion, returned once its first chunk has arrived. Close the stream (use
   * try-with-resources) to release the connection early.
   *
   * @param request the request
   * @return the stream, its first chunk received
   * @throws LlmException how the call failed before the first chunk
   */
  public ResponseStream<ChatChunk> chatStream(ChatRequest request) {
    return dispatcher.stream(Endpoint.CHAT_STREAM, routing(request),
        request(Endpoint.CHAT_STREAM, request, request.hedgeable()), request.resumable());
  }

  /**
   * A blocking text completion.
   *
   * @param request the request
   * @return the answer, never null
   * @throws LlmException how the call failed
   */
  public CompletionResponse completion(CompletionRequest request) {
    return dispatcher.call(Endpoint.COMPLETION, routing(request),
        request(Endpoint.COMPLETION, request, request.hedgeable()));
  }

  /**
   * An asynchronous text completion; never throws, as {@link #chatAsync} does not.
   *
   * @param request the request
   * @return completes with the answer (never null) or an {@link LlmException}
   */
  public CompletableFuture<CompletionResponse> completionAsync(CompletionRequest request) {
    return async(() -> dispatcher.callAsync(Endpoint.COMPLETION, routing(request),
        request(Endpoint.COMPLETION, request, request.hedgeable())));
  }

  /**
   * A streamed text completion, returned once its first chunk has arrived.
   *
   * @param request the request
   * @return the stream, its first chunk received
   * @throws LlmException how the call failed before the first chunk
   */
  public ResponseStream<CompletionResponse> completionStream(CompletionRequest request) {
    return dispatcher.stream(Endpoint.COMPLETION_STREAM, routing(request),
        request(Endpoint.COMPLETION_STREAM, request, request.hedgeable()), request.resumable());
  }

  /**
   * Blocking embeddings.
   *
   * @param request the request
   * @return the answer, never null
   * @throws LlmException how the call failed
   */
  public EmbeddingResponse embeddings(EmbeddingRequest request) {
    return dispatcher.call(Endpoint.EMBEDDINGS, routing(request),
        request(Endpoint.EMBEDDINGS, request, true));
  }

  /**
   * Asynchronous embeddings; never throws, as {@link #chatAsync} does not.
   *
   * @param request the request
   * @return completes with the answer (never null) or an {@link LlmException}
   */
  public CompletableFuture<EmbeddingResponse> embeddingsAsync(EmbeddingRequest request) {
    return async(() -> dispatcher.callAsync(Endpoint.EMBEDDINGS, routing(request),
        request(Endpoint.EMBEDDINGS, request, true)));
  }

  /**
   * Sends any OpenAI-compatible request (chat, completions, embeddings, the Responses API, a
   * server's own extensions) through the same routing, retries and failover as the typed calls:
   * the routing key comes from the request's JSON body (its model and messages, input or prompt),
   * or from its {@link RawRequest#routingKey() routing key}. This is the path the SDK adapters
   * take.
   *
   * <p>A request whose body asks for {@code "stream": true} returns once the stream's first event
   * has arrived (earlier failures were failed over); read its {@link RawResponse#body()} and close
   * it. Any other answer is read whole before this returns.
   *
   * @param request the request
   * @return the replica's 2xx answer, never null; an error status is thrown as a {@link
   *     io.github.llmrouter.api.ReplicaHttpException} once no retry is left
   * @throws LlmException how the call failed (see the class comment for which)
   */
  public RawResponse send(RawRequest request) {
    RequestScan scan = RequestScan.of(requireNonNull(request, "request"));
    checkOpen();
    return dispatcher.send(scan.endpoint(), scan.routing(), request);
  }

  /**
   * Sends any OpenAI-compatible request asynchronously, as {@link #send} does; never throws (but
   * for a null request). A stream's first event is awaited on an I/O thread.
   *
   * @param request the request
   * @return completes with the replica's 2xx answer (never null) or an {@link LlmException};
   *     cancelling it cancels the exchange in progress
   */
  public CompletableFuture<RawResponse> sendAsync(RawRequest request) {
    RequestScan scan = RequestScan.of(requireNonNull(request, "request"));
    return async(() -> {
      checkOpen();
      return dispatcher.callAsync(scan.endpoint(), scan.routing(), request);
    });
  }

  /** Starts an asynchronous call; a failure to start completes the future instead of throwing. */
  private static <T> CompletableFuture<T> async(Supplier<CompletableFuture<T>> start) {
    try {
      return start.get();
    } catch (LlmException e) {
      return CompletableFuture.failedFuture(e);
    }
  }

  /**
   * {@return the replicas this client routes to now: an immutable snapshot, empty until the
   * resolver's first answer}
   */
  @Override
  public List<Replica> replicas() {
    return fleet.replicas().replicas();
  }

  /**
   * Completes with the fleet's replicas as soon as the resolver has published at least one (at
   * once with a static list), as Armeria's {@code EndpointGroup.whenReady()} does; fails if the
   * client is closed first. Calls made before that wait by themselves, so this is for start-up
   * ordering and readiness probes, not a precondition.
   *
   * @return a future of the first non-empty replica list; completing it has no effect on the
   *     client
   */
  public CompletableFuture<List<Replica>> whenReady() {
    // A dependent copy: callers cannot complete the client's own future.
    return fleet.whenReady().thenApply(r -> r);
  }

  /**
   * {@return this client's requests in flight on the replica with {@code replicaId}, or 0 for an
   * unknown id}
   *
   * @param replicaId a {@link Replica#id()}
   */
  @Override
  public int inFlight(String replicaId) {
    return fleet.inFlight(requireNonNull(replicaId, "replicaId"));
  }

  /**
   * The fleet's load as this client sees it now: per replica, the reported and effective queue,
   * running requests, KV usage, report age and this client's in-flight requests; in total, the
   * waiting requests, the mean per replica and the saturated replicas, with {@link
   * FleetSnapshot#replicasFor(double)} as the signal for a queue-based autoscaler; the models each
   * replica serves, and {@link FleetSnapshot#forModel(String)} for one model's replicas and
   * signal. Saturation uses the admission thresholds ({@link Saturation#defaults()} when
   * admission is off).
   *
   * @return an immutable snapshot; it costs one pass over the replicas, so call it from a metrics
   *     or autoscaling loop, not per request
   */
  @Override
  public FleetSnapshot fleet() {
    return FleetSnapshots.of(fleet.load(), fleet.modelsByReplica(), saturation,
        scraper == null ? 0 : scraper.failures(), scraper == null ? 0 : scraper.malformedLines());
  }

  /**
   * Scrapes every replica's metrics once, now, if scraping is on; the future completes when every
   * scrape has finished. Reports also arrive on their own schedule; this is for tests and for
   * refreshing the view before a burst.
   *
   * @return a future that completes (never exceptionally) when every scrape has finished; at once
   *     if scraping is off
   */
  public CompletableFuture<Void> scrapeLoadNow() {
    return scraper == null ? CompletableFuture.completedFuture(null) : scraper.scrapeAll();
  }

  /**
   * Releases the client's threads and idle connections. Calls in progress are not interrupted;
   * asynchronous calls waiting out a retry backoff fail. Idempotent.
   */
  @Override
  public void close() {
    if (!closed.compareAndSet(false, true)) return;
    scheduler.close();
    membership.close();
    fleet.close();
    if (scraper != null) scraper.close();
    if (ownsHttp) OkHttpClients.release(http);
    listener.onClientClosed(this);
  }

  /** Tells the listeners that the client, now built, is running. */
  void started() {
    listener.onClientStarted(this);
  }

  @Override
  public String toString() {
    return "LlmClient{replicas=" + fleet.replicas().size() + ", policy=" + policyName
        + ", apiKey=" + (hasApiKey ? "<redacted>" : "none") + '}';
  }

  /** What a typed call sends for {@code request}; fails if the client is closed. */
  private RawRequest request(Endpoint<?> endpoint, Object request, boolean hedgeable) {
    checkOpen();
    return endpoint.request(request, hedgeable);
  }

  private void checkOpen() {
    if (closed.get()) throw new LlmException("LlmClient is closed");
  }

  // What routing needs of each request; the first thing a call evaluates, so a null request fails
  // at once.

  /** The routing view of a chat: its messages' roles and text, hashed only if a policy asks. */
  private static RoutingRequest routing(ChatRequest r) {
    RoutingRequest.Builder b = RoutingRequest.builder(requireNonNull(r, "request").model(),
        r.messages().size()).routingKey(r.routingKey());
    for (ChatMessage m : r.messages()) {
      String text = m.text();
      b.message(m.role(), text == null ? "" : text);
    }
    return b.prompt(r.firstUserText()).build();
  }

  private static RoutingRequest routing(CompletionRequest r) {
    return new RoutingRequest(requireNonNull(r, "request").model(), r.prompt(), r.routingKey());
  }

  private static RoutingRequest routing(EmbeddingRequest r) {
    return new RoutingRequest(requireNonNull(r, "request").model(), r.input().get(0),
        r.routingKey());
  }
}
