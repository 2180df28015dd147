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
import io.github.llmrouter.api.ResponseStream;
import io.github.llmrouter.dispatch.CircuitBreakerPolicy;
import io.github.llmrouter.dispatch.Admission;
import io.github.llmrouter.dispatch.RequestDispatcher;
import io.github.llmrouter.dispatch.RetryPolicy;
import io.github.llmrouter.load.LoadReport;
import io.github.llmrouter.load.LoadReporting;
import io.github.llmrouter.load.LocalLoad;
import io.github.llmrouter.observe.FleetSnapshot;
import io.github.llmrouter.observe.RoutingListener;
import io.github.llmrouter.replica.HealthCheck;
import io.github.llmrouter.replica.HeaderFields;
import io.github.llmrouter.replica.HealthChecker;
import io.github.llmrouter.replica.HealthTracker;
import io.github.llmrouter.replica.OutlierDetection;
import io.github.llmrouter.replica.Replica;
import io.github.llmrouter.replica.ReplicaResolver;
import io.github.llmrouter.replica.ReplicaSet;
import io.github.llmrouter.routing.CacheAware;
import io.github.llmrouter.routing.RoutingPolicy;
import io.github.llmrouter.routing.RoutingRequest;
import io.github.llmrouter.transport.HttpTransport;
import io.github.llmrouter.transport.Json;
import io.github.llmrouter.transport.LoadScraper;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import okhttp3.ConnectionPool;
import okhttp3.Dispatcher;
import okhttp3.OkHttpClient;
import org.jspecify.annotations.Nullable;
import tools.jackson.core.JacksonException;

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
 * <h2>How a call fails</h2>
 *
 * <p>Every exception a call throws (or completes its future with) is an {@link LlmException};
 * nothing else escapes, and no call returns null. One rule says which:
 *
 * <ul>
 *   <li>{@link io.github.llmrouter.api.RetriesExhaustedException}: <b>the router gave up</b>.
 *       Every attempt failed in a way another attempt might have fixed (a 5xx or another
 *       retryable status, a connection failure, a replica that timed out before answering, a
 *       malformed answer) and no further attempt was allowed: the attempt limit, the retry
 *       budget, no replica left, or a next attempt that could not start before the deadline.
 *       Thrown even after one attempt; {@code attempts()} lists each attempt's replica,
 *       duration and failure (status or cause).
 *   <li>{@link io.github.llmrouter.api.ReplicaHttpException}: a replica judged the request with
 *       a status that is not retryable (400, 401, 404, 422, ...). Trying elsewhere would not
 *       help; earlier failed attempts are attached as suppressed exceptions.
 *   <li>{@link io.github.llmrouter.api.LlmTimeoutException}: the call ran out of time: its
 *       deadline ({@link Builder#callTimeout}) expired, or a stream went idle after its first
 *       chunk ({@link Builder#streamIdleTimeout}).
 *   <li>{@link io.github.llmrouter.api.StreamInterruptedException}: a stream broke after its
 *       first chunk; never replayed.
 *   <li>{@link io.github.llmrouter.api.NoReplicaAvailableException}: no attempt could be made
 *       (an empty fleet, or every replica paused by {@code Retry-After} past the deadline).
 *   <li>{@link io.github.llmrouter.api.FleetSaturatedException}: admission control refused the
 *       call.
 *   <li>a plain {@link LlmException}: the client is closed, the thread was interrupted, or the
 *       request could not be written.
 * </ul>
 *
 * <p>The {@code *Async} methods never throw (but for a null argument): they return a future that
 * fails with one of the above.
 *
 * <p>Thread-safe: share one client across the application. Close it to release its threads and
 * connections (a caller-supplied {@link OkHttpClient}'s own resources are left alone). Every
 * thread it starts is a daemon thread, so a client left unclosed never keeps the JVM alive.
 */
public final class LlmClient implements AutoCloseable {
  private static final byte[] STREAM_PREFIX =
      "{\"stream\":true,\"stream_options\":{\"include_usage\":true},".getBytes(
          java.nio.charset.StandardCharsets.US_ASCII);

  private final RequestDispatcher dispatcher;
  private final OkHttpClient http;
  private final boolean ownsHttp;
  // What the client needs of its configuration after build(): no copy of the builder (nor of
  // the API key) is kept.
  private final Admission admission;
  private final Ticker ticker;
  private final String policyName;
  private final boolean hasApiKey;
  private final AtomicBoolean closed = new AtomicBoolean();
  private final @Nullable LoadScraper scraper;
  private final Object schedulerLock = new Object();
  private @Nullable ScheduledExecutorService scheduler;
  private final Membership membership;

  private LlmClient(Builder b, ReplicaResolver resolver) {
    this.admission = b.admission;
    this.ticker = b.ticker;
    this.policyName = b.routingPolicy.name();
    this.hasApiKey = b.apiKey != null;
    this.ownsHttp = b.okHttpClient == null;
    this.http = configureHttp(b);
    HttpTransport transport = new HttpTransport(http, b.apiKey, b.streamIdleTimeout,
        b.retryPolicy::isRetryableStatus, b.loadReporting, this::onLoadReport, b.ticker);
    HealthTracker health = new HealthTracker(b.outlierDetection, b.slowStart, b.ticker, b.listener);
    this.dispatcher = new RequestDispatcher(b.routingPolicy, ReplicaSet.empty(), transport,
        b.retryPolicy, b.callTimeout, b.ticker, b.listener, this::scheduler, health,
        b.circuitBreaker, b.maxWaitingCalls, b.loadReporting.staleAfter(), b.admission);
    HealthChecker checker = b.healthCheck == null ? null
        : new HealthChecker(b.healthCheck, http, health, this::scheduler, System.nanoTime());
    this.membership = new Membership(resolver, dispatcher, health, checker, this::scheduler,
        b.ticker, b.listener);
    if (b.loadReporting.scraping()) {
      this.scraper = new LoadScraper(http, b.apiKey, b.loadReporting, b.ticker,
          dispatcher::replicas, this::onLoadReport);
      scraper.start();
    } else {
      this.scraper = null;
    }
    membership.start();
  }

  private void onLoadReport(Replica replica, LoadReport report) {
    dispatcher.publishLoadReport(replica.id(), report);
  }

  /**
   * Starts a client configuration with every default; set {@link Builder#replicas(String...)} or
   * {@link Builder#resolver(ReplicaResolver)} before {@link Builder#build()}.
   *
   * @return a new, mutable builder (not thread-safe)
   */
  public static Builder builder() {
    return new Builder();
  }

  /**
   * A blocking chat completion.
   *
   * @param request the request
   * @return the answer, never null
   * @throws LlmException how the call failed (see the class comment for which)
   */
  public ChatResponse chat(ChatRequest request) {
    requireNonNull(request, "request");
    return dispatcher.call("chat", Endpoints.CHAT_PATH, routing(request), body(request, false),
        Endpoints.CHAT);
  }

  /**
   * An asynchronous chat completion. Never throws (but for a null request): every failure, even
   * a closed client, completes the future exceptionally.
   *
   * @param request the request
   * @return completes on an I/O thread with the answer (never null) or an {@link LlmException}
   */
  public CompletableFuture<ChatResponse> chatAsync(ChatRequest request) {
    requireNonNull(request, "request");
    return async(() -> dispatcher.callAsync("chat", Endpoints.CHAT_PATH, routing(request),
        body(request, false), Endpoints.CHAT));
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
    requireNonNull(request, "request");
    return dispatcher.stream("chat.stream", Endpoints.CHAT_PATH, routing(request),
        body(request, true), ChatChunk.class, Endpoints.CHAT_CHUNKS);
  }

  /**
   * A blocking text completion.
   *
   * @param request the request
   * @return the answer, never null
   * @throws LlmException how the call failed
   */
  public CompletionResponse completion(CompletionRequest request) {
    requireNonNull(request, "request");
    return dispatcher.call("completion", Endpoints.COMPLETIONS_PATH, routing(request),
        body(request, false), Endpoints.COMPLETION);
  }

  /**
   * An asynchronous text completion; never throws, as {@link #chatAsync} does not.
   *
   * @param request the request
   * @return completes with the answer (never null) or an {@link LlmException}
   */
  public CompletableFuture<CompletionResponse> completionAsync(CompletionRequest request) {
    requireNonNull(request, "request");
    return async(() -> dispatcher.callAsync("completion", Endpoints.COMPLETIONS_PATH,
        routing(request), body(request, false), Endpoints.COMPLETION));
  }

  /**
   * A streamed text completion, returned once its first chunk has arrived.
   *
   * @param request the request
   * @return the stream, its first chunk received
   * @throws LlmException how the call failed before the first chunk
   */
  public ResponseStream<CompletionResponse> completionStream(CompletionRequest request) {
    requireNonNull(request, "request");
    return dispatcher.stream("completion.stream", Endpoints.COMPLETIONS_PATH, routing(request),
        body(request, true), CompletionResponse.class, Endpoints.COMPLETION_CHUNKS);
  }

  /**
   * Blocking embeddings.
   *
   * @param request the request
   * @return the answer, never null
   * @throws LlmException how the call failed
   */
  public EmbeddingResponse embeddings(EmbeddingRequest request) {
    requireNonNull(request, "request");
    return dispatcher.call("embeddings", Endpoints.EMBEDDINGS_PATH, routing(request),
        body(request, false), Endpoints.EMBEDDINGS);
  }

  /**
   * Asynchronous embeddings; never throws, as {@link #chatAsync} does not.
   *
   * @param request the request
   * @return completes with the answer (never null) or an {@link LlmException}
   */
  public CompletableFuture<EmbeddingResponse> embeddingsAsync(EmbeddingRequest request) {
    requireNonNull(request, "request");
    return async(() -> dispatcher.callAsync("embeddings", Endpoints.EMBEDDINGS_PATH,
        routing(request), body(request, false), Endpoints.EMBEDDINGS));
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
  public List<Replica> replicas() {
    return dispatcher.replicas().replicas();
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
    return dispatcher.whenReady().thenApply(r -> r);
  }

  /**
   * {@return this client's requests in flight on the replica with {@code replicaId}, or 0 for an
   * unknown id}
   *
   * @param replicaId a {@link Replica#id()}
   */
  public int inFlight(String replicaId) {
    return dispatcher.inFlight(requireNonNull(replicaId, "replicaId"));
  }

  /**
   * The fleet's load as this client sees it now: per replica, the reported and effective queue,
   * running requests, KV usage, report age and this client's in-flight requests; in total, the
   * waiting requests, the mean per replica and the saturated replicas, with {@link
   * FleetSnapshot#replicasFor(double)} as the signal for a queue-based autoscaler. Saturation uses
   * the admission thresholds ({@link Admission}'s defaults when admission is off).
   *
   * @return an immutable snapshot; it costs one pass over the replicas, so call it from a metrics
   *     or autoscaling loop, not per request
   */
  public FleetSnapshot fleet() {
    LocalLoad load = dispatcher.load();
    int qt = admission.queueThreshold();
    double kt = admission.kvUsageThreshold();
    long now = ticker.read();
    List<FleetSnapshot.ReplicaLoad> list = new ArrayList<>(load.replicas().size());
    long total = 0;
    int reporting = 0;
    int saturated = 0;
    for (int i = 0; i < load.replicas().size(); i++) {
      LoadReport last = load.lastReport(i);
      boolean fresh = load.hasFreshReport(i);
      int q = load.effectiveQueue(i);
      double kv = load.kvUsage(i);
      boolean sat = q >= qt || kv >= kt;
      if (fresh && q >= 0) {
        total += q;
        reporting++;
      }
      if (sat) saturated++;
      list.add(new FleetSnapshot.ReplicaLoad(load.replicas().get(i).id(),
          last == null ? -1 : last.waiting(), q, last == null ? -1 : last.running(), kv,
          last == null ? null : Duration.ofNanos(Math.max(0, now - last.receivedNanos())), fresh,
          load.inFlight(i), load.dispatchedSinceReport(i), load.completedSinceReport(i), sat));
    }
    return new FleetSnapshot(list, total, reporting == 0 ? 0 : (double) total / reporting,
        reporting, saturated, qt, kt, scraper == null ? 0 : scraper.failures(),
        scraper == null ? 0 : scraper.malformedLines());
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
    membership.close();
    dispatcher.close();
    if (scraper != null) scraper.close();
    synchronized (schedulerLock) {
      if (scheduler != null) scheduler.shutdownNow();
    }
    if (ownsHttp) {
      http.dispatcher().executorService().shutdown();
      http.connectionPool().evictAll();
    }
  }

  @Override
  public String toString() {
    return "LlmClient{replicas=" + dispatcher.replicas().size() + ", policy="
        + policyName + ", apiKey=" + (hasApiKey ? "<redacted>" : "none")
        + '}';
  }

  private ScheduledExecutorService scheduler() {
    synchronized (schedulerLock) {
      if (closed.get()) throw new java.util.concurrent.RejectedExecutionException("client closed");
      if (scheduler == null) {
        // Two threads: retry backoffs, health checks and resolvers share it, and a slow DNS
        // lookup must not hold up a retry.
        ScheduledThreadPoolExecutor s =
            new ScheduledThreadPoolExecutor(2, daemonThreads("llm-router-scheduler"));
        s.setRemoveOnCancelPolicy(true);
        scheduler = s;
      }
      return scheduler;
    }
  }

  /** Daemon threads named {@code prefix-N}: a client left unclosed never keeps the JVM alive. */
  private static ThreadFactory daemonThreads(String prefix) {
    AtomicInteger n = new AtomicInteger();
    return r -> {
      Thread t = new Thread(r, prefix + "-" + n.incrementAndGet());
      t.setDaemon(true);
      return t;
    };
  }

  private byte[] body(Object request, boolean stream) {
    if (closed.get()) throw new LlmException("LlmClient is closed");
    byte[] json;
    try {
      json = Json.MAPPER.writeValueAsBytes(request);
    } catch (JacksonException e) {
      throw new LlmException("request could not be written as JSON: " + e.getOriginalMessage(),
          null, e);
    }
    if (!stream) return json;
    // Splice the stream flags in after the opening brace: no tree copy of the request.
    byte[] spliced = new byte[STREAM_PREFIX.length + json.length - 1];
    System.arraycopy(STREAM_PREFIX, 0, spliced, 0, STREAM_PREFIX.length);
    System.arraycopy(json, 1, spliced, STREAM_PREFIX.length, json.length - 1);
    if (json.length == 2) spliced[STREAM_PREFIX.length - 1] = '}';
    return spliced;
  }

  /** The routing view of a chat: its messages' roles and text, hashed only if a policy asks. */
  private static RoutingRequest routing(ChatRequest r) {
    RoutingRequest.Builder b = RoutingRequest.builder(r.model()).routingKey(r.routingKey());
    for (ChatMessage m : r.messages()) {
      String text = m.text();
      b.message(m.role(), text == null ? "" : text);
    }
    return b.prompt(r.firstUserText()).build();
  }

  private static RoutingRequest routing(CompletionRequest r) {
    return new RoutingRequest(r.model(), r.prompt(), r.routingKey());
  }

  private static RoutingRequest routing(EmbeddingRequest r) {
    return new RoutingRequest(r.model(), r.input().get(0), r.routingKey());
  }

  private static OkHttpClient configureHttp(Builder b) {
    OkHttpClient.Builder http;
    Dispatcher dispatcher;
    if (b.okHttpClient != null) {
      http = b.okHttpClient.newBuilder();
      // Share the caller's threads and connection pool, but not their per-host limit: OkHttp's
      // default of 5 concurrent calls per host would throttle a replica serving many streams.
      dispatcher = new Dispatcher(b.okHttpClient.dispatcher().executorService());
    } else {
      http = new OkHttpClient.Builder()
          .connectionPool(new ConnectionPool(Math.min(b.maxConcurrentRequests, 256), 5,
              TimeUnit.MINUTES));
      // OkHttp's own executor makes non-daemon threads, which would keep the JVM alive for a
      // minute after the last exchange of a client nobody closed (scrapes run every second).
      dispatcher = new Dispatcher(new ThreadPoolExecutor(0, Integer.MAX_VALUE, 60,
          TimeUnit.SECONDS, new SynchronousQueue<>(), daemonThreads("llm-router-http")));
    }
    dispatcher.setMaxRequests(b.maxConcurrentRequests);
    dispatcher.setMaxRequestsPerHost(b.maxConcurrentRequests);
    return http.dispatcher(dispatcher)
        .addNetworkInterceptor(HttpTransport.HIDE_RETRY_AFTER)
        .connectTimeout(b.connectTimeout)
        .readTimeout(b.firstByteTimeout)
        .writeTimeout(b.firstByteTimeout)
        .callTimeout(Duration.ZERO) // per-attempt deadlines are set on each call
        .retryOnConnectionFailure(false) // retries are ours: counted, budgeted, failed over
        .build();
  }

  /**
   * Builds an {@link LlmClient}. Setters record values; {@link #build()} validates them all and
   * fails with a message naming the knob and its accepted range. Not thread-safe.
   */
  public static final class Builder {
    /** Default connect timeout: 5 s. */
    public static final Duration DEFAULT_CONNECT_TIMEOUT = Duration.ofSeconds(5);
    /** Default time to first byte (response headers; for streams the first event): 60 s. */
    public static final Duration DEFAULT_FIRST_BYTE_TIMEOUT = Duration.ofSeconds(60);
    /** Default longest gap between stream events: 30 s. */
    public static final Duration DEFAULT_STREAM_IDLE_TIMEOUT = Duration.ofSeconds(30);
    /** Default deadline of a whole call, across attempts: 10 min. */
    public static final Duration DEFAULT_CALL_TIMEOUT = Duration.ofMinutes(10);
    /** Default concurrent requests, in total and per replica: {@value}. */
    public static final int DEFAULT_MAX_CONCURRENT_REQUESTS = 1024;
    /** Default slow-start window of a replica that joined or came back: 30 s. */
    public static final Duration DEFAULT_SLOW_START = Duration.ofSeconds(30);
    /** Default calls allowed to wait for replicas while the fleet is empty: {@value}. */
    public static final int DEFAULT_MAX_WAITING_CALLS = 1024;

    private final List<Replica> replicas = new ArrayList<>();
    private RoutingPolicy routingPolicy = RoutingPolicy.defaultPolicy();
    private RetryPolicy retryPolicy = RetryPolicy.defaults();
    private Duration connectTimeout = DEFAULT_CONNECT_TIMEOUT;
    private Duration firstByteTimeout = DEFAULT_FIRST_BYTE_TIMEOUT;
    private Duration streamIdleTimeout = DEFAULT_STREAM_IDLE_TIMEOUT;
    private Duration callTimeout = DEFAULT_CALL_TIMEOUT;
    private int maxConcurrentRequests = DEFAULT_MAX_CONCURRENT_REQUESTS;
    private @Nullable String apiKey;
    private @Nullable OkHttpClient okHttpClient;
    private RoutingListener listener = RoutingListener.NONE;
    private Ticker ticker = Ticker.system();
    private LoadReporting loadReporting = LoadReporting.defaults();
    private Admission admission = Admission.disabled();
    private @Nullable RuntimeException invalidReplica;
    // Issue 5: discovery and health.
    private @Nullable ReplicaResolver resolver;
    private @Nullable HealthCheck healthCheck;
    private OutlierDetection outlierDetection = OutlierDetection.defaults();
    private CircuitBreakerPolicy circuitBreaker = CircuitBreakerPolicy.defaults();
    private Duration slowStart = DEFAULT_SLOW_START;
    private int maxWaitingCalls = DEFAULT_MAX_WAITING_CALLS;

    private Builder() {}

    /**
     * Adds replicas by base URL (for example {@code http://10.0.0.7:8000}); a malformed URL fails
     * at {@link #build()}.
     *
     * @param baseUrls the replicas' base URLs, without the {@code /v1} suffix
     * @return this builder
     */
    public Builder replicas(String... baseUrls) {
      for (String url : baseUrls) {
        try {
          replicas.add(Replica.of(url));
        } catch (RuntimeException e) {
          if (invalidReplica == null) invalidReplica = e;
        }
      }
      return this;
    }

    /**
     * Adds replicas.
     *
     * @param replicas the replicas; not null
     * @return this builder
     */
    public Builder replicas(List<Replica> replicas) {
      for (Replica r : requireNonNull(replicas, "replicas")) replica(r);
      return this;
    }

    /**
     * Adds one replica.
     *
     * @param replica the replica; not null
     * @return this builder
     */
    public Builder replica(Replica replica) {
      replicas.add(requireNonNull(replica, "replica"));
      return this;
    }

    /**
     * How replicas are chosen; default {@link RoutingPolicy#defaultPolicy()} ({@link CacheAware}
     * with its defaults). A policy instance is one client's memory: give each client its own.
     *
     * @param routingPolicy the routing policy; not null
     * @return this builder
     */
    public Builder routingPolicy(RoutingPolicy routingPolicy) {
      this.routingPolicy = requireNonNull(routingPolicy, "routingPolicy");
      return this;
    }

    /**
     * Retries and failover; default {@link RetryPolicy#defaults()}.
     *
     * @param retryPolicy the retry policy; not null
     * @return this builder
     */
    public Builder retryPolicy(RetryPolicy retryPolicy) {
      this.retryPolicy = requireNonNull(retryPolicy, "retryPolicy");
      return this;
    }

    /**
     * Timeout to open a connection, in (0, 5 min]; default 5 s.
     *
     * @param connectTimeout the connect timeout; not null
     * @return this builder
     */
    public Builder connectTimeout(Duration connectTimeout) {
      this.connectTimeout = requireNonNull(connectTimeout, "connectTimeout");
      return this;
    }

    /**
     * Timeout from sending a request to its first response byte (for streams, to the first
     * event), and afterwards between reads of a non-streamed body, in (0, 1 h]; default 60 s.
     * Engines that send nothing until a non-streamed generation ends need this to cover it.
     *
     * @param firstByteTimeout the first byte timeout; not null
     * @return this builder
     */
    public Builder firstByteTimeout(Duration firstByteTimeout) {
      this.firstByteTimeout = requireNonNull(firstByteTimeout, "firstByteTimeout");
      return this;
    }

    /**
     * Longest gap between two events of a stream, in (0, 1 h]; default 30 s.
     *
     * @param streamIdleTimeout the stream idle timeout; not null
     * @return this builder
     */
    public Builder streamIdleTimeout(Duration streamIdleTimeout) {
      this.streamIdleTimeout = requireNonNull(streamIdleTimeout, "streamIdleTimeout");
      return this;
    }

    /**
     * Deadline of a whole call across all attempts and backoffs (for a stream: until it is fully
     * read), in [0, 24 h], {@link Duration#ZERO} for none; default 10 min.
     *
     * @param callTimeout the call timeout; not null
     * @return this builder
     */
    public Builder callTimeout(Duration callTimeout) {
      this.callTimeout = requireNonNull(callTimeout, "callTimeout");
      return this;
    }

    /**
     * Concurrent asynchronous requests in total and per replica, in [1, 65536]; default {@value
     * #DEFAULT_MAX_CONCURRENT_REQUESTS}. The calls beyond it wait in the OkHttp dispatcher's
     * queue. Blocking calls and streams run on their callers' threads and are not counted.
     *
     * @param maxConcurrentRequests the max concurrent requests, checked at {@link #build()}
     * @return this builder
     */
    public Builder maxConcurrentRequests(int maxConcurrentRequests) {
      this.maxConcurrentRequests = maxConcurrentRequests;
      return this;
    }

    /**
     * An API key sent as {@code Authorization: Bearer <key>} with every request and metrics
     * scrape; never logged or printed. {@code null} means no key, so {@code
     * apiKey(System.getenv("VLLM_API_KEY"))} works whether the variable is set or not. {@link
     * #build()} rejects a blank key and one that is not a valid header value (a line break, a
     * control or non-ASCII character, leading or trailing whitespace), without showing it.
     *
     * @param apiKey the key, or null for none
     * @return this builder
     */
    public Builder apiKey(@Nullable String apiKey) {
      this.apiKey = apiKey;
      return this;
    }

    /**
     * An OkHttp client whose connection pool and threads to share. Its interceptors, TLS and proxy
     * settings are kept; timeouts, retry-on-connection-failure and the dispatcher's limits are
     * the client's own. OkHttp is the client's transport, so this is the one place where its type
     * shows: it lets an application that already tunes an {@code OkHttpClient} (certificates,
     * proxies, event listeners, tracing interceptors) reuse that work instead of repeating it.
     *
     * @param okHttpClient the ok http client; not null
     * @return this builder
     */
    public Builder okHttpClient(OkHttpClient okHttpClient) {
      this.okHttpClient = requireNonNull(okHttpClient, "okHttpClient");
      return this;
    }

    /**
     * Receives routing events; default none.
     *
     * @param listener the listener; not null
     * @return this builder
     */
    public Builder listener(RoutingListener listener) {
      this.listener = requireNonNull(listener, "listener");
      return this;
    }

    /**
     * The time source for deadlines, the retry budget, ejections, circuit breakers and slow start;
     * default the system ticker.
     *
     * @param ticker the ticker; not null
     * @return this builder
     */
    public Builder ticker(Ticker ticker) {
      this.ticker = requireNonNull(ticker, "ticker");
      return this;
    }

    // ---- Discovery and health (issue 5) ----

    /**
     * Where the fleet comes from, instead of {@link #replicas(String...) a static list}: DNS,
     * Kubernetes EndpointSlices or your own registry (see {@link ReplicaResolver}). Started by
     * {@link #build()}, closed by {@link LlmClient#close()}. Default none.
     *
     * @param resolver the resolver; not null
     * @return this builder
     */
    public Builder resolver(ReplicaResolver resolver) {
      this.resolver = requireNonNull(resolver, "resolver");
      return this;
    }

    /**
     * Active health checks (GET /health); default none: see {@link HealthCheck}.
     *
     * @param healthCheck the health check; not null
     * @return this builder
     */
    public Builder healthCheck(HealthCheck healthCheck) {
      this.healthCheck = requireNonNull(healthCheck, "healthCheck");
      return this;
    }

    /**
     * Passive outlier ejection; default {@link OutlierDetection#defaults()} (5 failures, 30 s).
     *
     * @param outlierDetection the outlier detection; not null
     * @return this builder
     */
    public Builder outlierDetection(OutlierDetection outlierDetection) {
      this.outlierDetection = requireNonNull(outlierDetection, "outlierDetection");
      return this;
    }

    /**
     * Per-replica circuit breakers; default {@link CircuitBreakerPolicy#defaults()}.
     *
     * @param circuitBreaker the circuit breaker; not null
     * @return this builder
     */
    public Builder circuitBreaker(CircuitBreakerPolicy circuitBreaker) {
      this.circuitBreaker = requireNonNull(circuitBreaker, "circuitBreaker");
      return this;
    }

    /**
     * The window over which a replica that joined the fleet, or came back from an ejection or
     * from being unhealthy, ramps from 10% to all of its share of keys, in [0, 1 h] ({@link
     * Duration#ZERO} for none); default 30 s.
     *
     * @param slowStart the slow start; not null
     * @return this builder
     */
    public Builder slowStart(Duration slowStart) {
      this.slowStart = requireNonNull(slowStart, "slowStart");
      return this;
    }

    /**
     * Calls allowed to wait for replicas while the fleet is empty, in [0, 65536]; default {@value
     * #DEFAULT_MAX_WAITING_CALLS}. A waiting call waits up to its {@link #callTimeout deadline};
     * beyond this many, or with 0, calls on an empty fleet fail at once with {@code
     * NoReplicaAvailableException}.
     *
     * @param maxWaitingCalls the max waiting calls, checked at {@link #build()}
     * @return this builder
     */
    public Builder maxWaitingCalls(int maxWaitingCalls) {
      this.maxWaitingCalls = maxWaitingCalls;
      return this;
    }

    // --- Load reports and admission (issue 4) ---

    /**
     * How replicas' own load is learnt: {@code /metrics} scraping and response headers; default
     * {@link LoadReporting#defaults()} (scrape every 1 s, read {@code endpoint-load-metrics}).
     * {@link LoadReporting#disabled()} routes on this client's in-flight counts alone.
     *
     * @param loadReporting the load reporting; not null
     * @return this builder
     */
    public Builder loadReporting(LoadReporting loadReporting) {
      this.loadReporting = requireNonNull(loadReporting, "loadReporting");
      return this;
    }

    /**
     * Client-side admission control when every replica is saturated; default {@link
     * Admission#disabled()}.
     *
     * @param admission the admission; not null
     * @return this builder
     */
    public Builder admission(Admission admission) {
      this.admission = requireNonNull(admission, "admission");
      return this;
    }

    /**
     * Validates every knob and starts a client: its resolver, health checks and load scraping
     * begin now. The first build in a class loader also checks the class path (OkHttp 5 alone, a
     * jackson-annotations that Jackson 3 runs on), so that a build mixing versions fails here
     * rather than on some later call.
     *
     * @return a started client; close it when done
     * @throws IllegalArgumentException naming the first knob out of range
     * @throws IllegalStateException if the class path mixes library versions the client cannot
     *     run on; the message names the dependency line that fixes it
     */
    public LlmClient build() {
      if (invalidReplica != null) throw invalidReplica;
      if (resolver != null && !replicas.isEmpty()) {
        throw new IllegalArgumentException("replicas and resolver are exclusive: set one of them");
      }
      if (resolver == null && replicas.isEmpty()) {
        throw new IllegalArgumentException("replicas must name at least one replica (or set a resolver)");
      }
      ReplicaResolver source = resolver != null ? resolver
          : ReplicaResolver.of(ReplicaSet.of(replicas).replicas());
      checkDuration("slowStart", slowStart, true, Duration.ofHours(1), "[0, 1 h]");
      if (maxWaitingCalls < 0 || maxWaitingCalls > 65_536) {
        throw new IllegalArgumentException("maxWaitingCalls must be in [0, 65536], got "
            + maxWaitingCalls);
      }
      checkDuration("connectTimeout", connectTimeout, false, Duration.ofMinutes(5), "(0, 5 min]");
      checkDuration("firstByteTimeout", firstByteTimeout, false, Duration.ofHours(1), "(0, 1 h]");
      checkDuration("streamIdleTimeout", streamIdleTimeout, false, Duration.ofHours(1), "(0, 1 h]");
      checkDuration("callTimeout", callTimeout, true, Duration.ofHours(24), "[0, 24 h]");
      if (maxConcurrentRequests < 1 || maxConcurrentRequests > 65_536) {
        throw new IllegalArgumentException("maxConcurrentRequests must be in [1, 65536], got "
            + maxConcurrentRequests);
      }
      if (apiKey != null) {
        if (apiKey.isBlank()) {
          throw new IllegalArgumentException("apiKey must not be blank (null for no key)");
        }
        HeaderFields.checkValue("Authorization", apiKey, "apiKey");
      }
      RuntimeCompatibility.checkOnce();
      return new LlmClient(this, source);
    }

    private static void checkDuration(String knob, Duration d, boolean zeroAllowed, Duration max,
        String range) {
      boolean ok = !d.isNegative() && (zeroAllowed || !d.isZero()) && d.compareTo(max) <= 0;
      if (!ok) throw new IllegalArgumentException(knob + " must be in " + range + ", got " + d);
    }

    @Override
    public String toString() {
      return "LlmClient.Builder{replicas=" + replicas.size() + ", apiKey="
          + (apiKey == null ? "none" : "<redacted>") + '}';
    }
  }
}
