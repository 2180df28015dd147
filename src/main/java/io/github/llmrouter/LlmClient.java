package io.github.llmrouter;

import static java.util.Objects.requireNonNull;

import com.github.benmanes.caffeine.cache.Ticker;
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
import io.github.llmrouter.transport.SseStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
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
 * <p>Thread-safe: share one client across the application. Close it to release its threads and
 * connections (a caller-supplied {@link OkHttpClient}'s own resources are left alone).
 */
public final class LlmClient implements AutoCloseable {
  static final String CHAT_PATH = "/v1/chat/completions";
  static final String COMPLETIONS_PATH = "/v1/completions";
  static final String EMBEDDINGS_PATH = "/v1/embeddings";
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

  /** A builder with every default; replicas or a resolver are required. */
  public static Builder builder() {
    return new Builder();
  }

  /** A blocking chat completion. */
  public ChatResponse chat(ChatRequest request) {
    requireNonNull(request, "request");
    return dispatcher.call("chat", CHAT_PATH, routing(request), body(request, false),
        ChatResponse.class);
  }

  /** An asynchronous chat completion; the future completes on an I/O thread. */
  public CompletableFuture<ChatResponse> chatAsync(ChatRequest request) {
    requireNonNull(request, "request");
    return dispatcher.callAsync("chat", CHAT_PATH, routing(request), body(request, false),
        ChatResponse.class);
  }

  /**
   * A streamed chat completion, returned once its first chunk has arrived. Close the stream (use
   * try-with-resources) to release the connection early.
   */
  public ResponseStream<ChatChunk> chatStream(ChatRequest request) {
    requireNonNull(request, "request");
    return dispatcher.stream("chat.stream", CHAT_PATH, routing(request), body(request, true),
        ChatChunk.class, ChunkAdapters.CHAT);
  }

  /** A blocking text completion. */
  public CompletionResponse completion(CompletionRequest request) {
    requireNonNull(request, "request");
    return dispatcher.call("completion", COMPLETIONS_PATH, routing(request),
        body(request, false), CompletionResponse.class);
  }

  /** An asynchronous text completion. */
  public CompletableFuture<CompletionResponse> completionAsync(CompletionRequest request) {
    requireNonNull(request, "request");
    return dispatcher.callAsync("completion", COMPLETIONS_PATH, routing(request),
        body(request, false), CompletionResponse.class);
  }

  /** A streamed text completion, returned once its first chunk has arrived. */
  public ResponseStream<CompletionResponse> completionStream(CompletionRequest request) {
    requireNonNull(request, "request");
    return dispatcher.stream("completion.stream", COMPLETIONS_PATH, routing(request),
        body(request, true), CompletionResponse.class, ChunkAdapters.COMPLETION);
  }

  /** Blocking embeddings. */
  public EmbeddingResponse embeddings(EmbeddingRequest request) {
    requireNonNull(request, "request");
    return dispatcher.call("embeddings", EMBEDDINGS_PATH, routing(request), body(request, false),
        EmbeddingResponse.class);
  }

  /** Asynchronous embeddings. */
  public CompletableFuture<EmbeddingResponse> embeddingsAsync(EmbeddingRequest request) {
    requireNonNull(request, "request");
    return dispatcher.callAsync("embeddings", EMBEDDINGS_PATH, routing(request),
        body(request, false), EmbeddingResponse.class);
  }

  /** The replicas this client routes to. */
  public List<Replica> replicas() {
    return dispatcher.replicas().replicas();
  }

  /**
   * Completes with the fleet's replicas as soon as the resolver has published at least one (at
   * once with a static list), as Armeria's {@code EndpointGroup.whenReady()} does; fails if the
   * client is closed first. Calls made before that wait by themselves, so this is for start-up
   * ordering and readiness probes, not a precondition.
   */
  public CompletableFuture<List<Replica>> whenReady() {
    // A dependent copy: callers cannot complete the client's own future.
    return dispatcher.whenReady().thenApply(r -> r);
  }

  /** This client's requests in flight on the replica with {@code replicaId} (0 if unknown). */
  public int inFlight(String replicaId) {
    return dispatcher.inFlight(requireNonNull(replicaId, "replicaId"));
  }

  /**
   * The fleet's load as this client sees it now: per replica, the reported and effective queue,
   * running requests, KV usage, report age and this client's in-flight requests; in total, the
   * waiting requests, the mean per replica and the saturated replicas, with {@link
   * FleetSnapshot#replicasFor(double)} as the signal for a queue-based autoscaler. Saturation uses
   * the admission thresholds ({@link Admission}'s defaults when admission is off).
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
        ScheduledThreadPoolExecutor s = new ScheduledThreadPoolExecutor(2, r -> {
          Thread t = new Thread(r, "llm-router-scheduler");
          t.setDaemon(true);
          return t;
        });
        s.setRemoveOnCancelPolicy(true);
        scheduler = s;
      }
      return scheduler;
    }
  }

  private byte[] body(Object request, boolean stream) {
    if (closed.get()) throw new IllegalStateException("LlmClient is closed");
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
      dispatcher = new Dispatcher();
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
    private Ticker ticker = Ticker.systemTicker();
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

    /** Adds replicas by base URL (for example {@code http://10.0.0.7:8000}). */
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

    /** Adds replicas. */
    public Builder replicas(List<Replica> replicas) {
      for (Replica r : requireNonNull(replicas, "replicas")) replica(r);
      return this;
    }

    /** Adds one replica. */
    public Builder replica(Replica replica) {
      replicas.add(requireNonNull(replica, "replica"));
      return this;
    }

    /**
     * How replicas are chosen; default {@link RoutingPolicy#defaultPolicy()} ({@link CacheAware}
     * with its defaults). A policy instance is one client's memory: give each client its own.
     */
    public Builder routingPolicy(RoutingPolicy routingPolicy) {
      this.routingPolicy = requireNonNull(routingPolicy, "routingPolicy");
      return this;
    }

    /** Retries and failover; default {@link RetryPolicy#defaults()}. */
    public Builder retryPolicy(RetryPolicy retryPolicy) {
      this.retryPolicy = requireNonNull(retryPolicy, "retryPolicy");
      return this;
    }

    /** Timeout to open a connection, in (0, 5 min]; default 5 s. */
    public Builder connectTimeout(Duration connectTimeout) {
      this.connectTimeout = requireNonNull(connectTimeout, "connectTimeout");
      return this;
    }

    /**
     * Timeout from sending a request to its first response byte (for streams, to the first
     * event), and afterwards between reads of a non-streamed body, in (0, 1 h]; default 60 s.
     * Engines that send nothing until a non-streamed generation ends need this to cover it.
     */
    public Builder firstByteTimeout(Duration firstByteTimeout) {
      this.firstByteTimeout = requireNonNull(firstByteTimeout, "firstByteTimeout");
      return this;
    }

    /** Longest gap between two events of a stream, in (0, 1 h]; default 30 s. */
    public Builder streamIdleTimeout(Duration streamIdleTimeout) {
      this.streamIdleTimeout = requireNonNull(streamIdleTimeout, "streamIdleTimeout");
      return this;
    }

    /**
     * Deadline of a whole call across all attempts and backoffs (for a stream: until it is fully
     * read), in [0, 24 h], {@link Duration#ZERO} for none; default 10 min.
     */
    public Builder callTimeout(Duration callTimeout) {
      this.callTimeout = requireNonNull(callTimeout, "callTimeout");
      return this;
    }

    /** Concurrent requests in total and per replica, in [1, 65536]; default {@value #DEFAULT_MAX_CONCURRENT_REQUESTS}. */
    public Builder maxConcurrentRequests(int maxConcurrentRequests) {
      this.maxConcurrentRequests = maxConcurrentRequests;
      return this;
    }

    /** An API key sent as {@code Authorization: Bearer <key>}; never logged or printed. */
    public Builder apiKey(String apiKey) {
      this.apiKey = requireNonNull(apiKey, "apiKey");
      return this;
    }

    /**
     * An OkHttp client whose connection pool and threads to share. Its interceptors, TLS and proxy
     * settings are kept; timeouts, retry-on-connection-failure and the dispatcher's limits are
     * the client's own.
     */
    public Builder okHttpClient(OkHttpClient okHttpClient) {
      this.okHttpClient = requireNonNull(okHttpClient, "okHttpClient");
      return this;
    }

    /** Receives routing events; default none. */
    public Builder listener(RoutingListener listener) {
      this.listener = requireNonNull(listener, "listener");
      return this;
    }

    /**
     * The time source for deadlines, the retry budget, ejections, circuit breakers and slow start;
     * default the system ticker.
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
     */
    public Builder resolver(ReplicaResolver resolver) {
      this.resolver = requireNonNull(resolver, "resolver");
      return this;
    }

    /** Active health checks (GET /health); default none: see {@link HealthCheck}. */
    public Builder healthCheck(HealthCheck healthCheck) {
      this.healthCheck = requireNonNull(healthCheck, "healthCheck");
      return this;
    }

    /** Passive outlier ejection; default {@link OutlierDetection#defaults()} (5 failures, 30 s). */
    public Builder outlierDetection(OutlierDetection outlierDetection) {
      this.outlierDetection = requireNonNull(outlierDetection, "outlierDetection");
      return this;
    }

    /** Per-replica circuit breakers; default {@link CircuitBreakerPolicy#defaults()}. */
    public Builder circuitBreaker(CircuitBreakerPolicy circuitBreaker) {
      this.circuitBreaker = requireNonNull(circuitBreaker, "circuitBreaker");
      return this;
    }

    /**
     * The window over which a replica that joined the fleet, or came back from an ejection or
     * from being unhealthy, ramps from 10% to all of its share of keys, in [0, 1 h] ({@link
     * Duration#ZERO} for none); default 30 s.
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
     */
    public Builder loadReporting(LoadReporting loadReporting) {
      this.loadReporting = requireNonNull(loadReporting, "loadReporting");
      return this;
    }

    /**
     * Client-side admission control when every replica is saturated; default {@link
     * Admission#disabled()}.
     */
    public Builder admission(Admission admission) {
      this.admission = requireNonNull(admission, "admission");
      return this;
    }

    /** @throws IllegalArgumentException naming the first knob out of range */
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
      if (apiKey != null && (apiKey.isBlank() || apiKey.indexOf('\n') >= 0 || apiKey.indexOf('\r') >= 0)) {
        throw new IllegalArgumentException("apiKey must be non-blank and on one line");
      }
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

  /** How the stream reader sees each chunk type. */
  private static final class ChunkAdapters {
    static final SseStream.ChunkAdapter<ChatChunk> CHAT = new SseStream.ChunkAdapter<>() {
      @Override
      public String textOf(ChatChunk chunk) {
        return chunk.text();
      }

      @Override
      public boolean isFinal(ChatChunk chunk) {
        return !chunk.choices().isEmpty() && chunk.choices().get(0).finishReason() != null;
      }

      @Override
      public @Nullable String errorOf(ChatChunk chunk) {
        return errorIn(chunk.extra());
      }
    };

    static final SseStream.ChunkAdapter<CompletionResponse> COMPLETION =
        new SseStream.ChunkAdapter<>() {
          @Override
          public String textOf(CompletionResponse chunk) {
            return chunk.text();
          }

          @Override
          public boolean isFinal(CompletionResponse chunk) {
            return !chunk.choices().isEmpty() && chunk.choices().get(0).finishReason() != null;
          }

          @Override
          public @Nullable String errorOf(CompletionResponse chunk) {
            return errorIn(chunk.extra());
          }
        };

    /** vLLM and others report mid-stream failures as an event holding an error object. */
    private static @Nullable String errorIn(Map<String, Object> extra) {
      Object error = extra.get("error");
      if (error != null) return String.valueOf(error);
      return "error".equals(extra.get("object")) ? String.valueOf(extra.get("message")) : null;
    }
  }
}
