package io.github.llmrouter;

import static java.util.Objects.requireNonNull;

import io.github.llmrouter.api.ResponseStream;
import io.github.llmrouter.api.Ticker;
import io.github.llmrouter.dispatch.Admission;
import io.github.llmrouter.dispatch.CircuitBreakerPolicy;
import io.github.llmrouter.dispatch.HedgePolicy;
import io.github.llmrouter.dispatch.RetryPolicy;
import io.github.llmrouter.internal.util.HeaderFields;
import io.github.llmrouter.load.LoadMonitoring;
import io.github.llmrouter.observe.RoutingListener;
import io.github.llmrouter.replica.HealthCheck;
import io.github.llmrouter.replica.LoraAdapter;
import io.github.llmrouter.replica.OutlierDetection;
import io.github.llmrouter.replica.Replica;
import io.github.llmrouter.replica.ReplicaResolver;
import io.github.llmrouter.replica.ReplicaSet;
import io.github.llmrouter.routing.CacheAware;
import io.github.llmrouter.routing.RoutingPolicy;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import okhttp3.OkHttpClient;
import org.jspecify.annotations.Nullable;

/**
 * Configures and starts an {@link LlmClient}; get one from {@link LlmClient#builder()}. Setters
 * record values; {@link #build()} validates them all and fails with a message naming the knob and
 * its accepted range. Every knob has a default, named by a {@code DEFAULT_} constant. Not
 * thread-safe; a builder may build several clients.
 *
 * @since 0.2.0
 */
public final class LlmClientBuilder {
  /** Default connect timeout: 5 s. */
  public static final Duration DEFAULT_CONNECT_TIMEOUT = Duration.ofSeconds(5);
  /** Default time to first byte (response headers; for streams the first event): 60 s. */
  public static final Duration DEFAULT_FIRST_BYTE_TIMEOUT = Duration.ofSeconds(60);
  /** Default longest gap between stream events: 30 s. */
  public static final Duration DEFAULT_STREAM_IDLE_TIMEOUT = Duration.ofSeconds(30);
  /**
   * Default time a replica may leave its load scrapes and health checks unanswered before it is
   * taken for hung: 3 s.
   */
  public static final Duration DEFAULT_STALL_TIMEOUT = Duration.ofSeconds(3);
  /**
   * Default number of times a stream that breaks after its first chunk is continued on another
   * replica: {@value}.
   *
   * @since 0.3.0
   */
  public static final int DEFAULT_MAX_STREAM_RESUMPTIONS = 2;
  /**
   * Default interval at which each replica is asked which models it serves: 30 s.
   *
   * @since 0.3.0
   */
  public static final Duration DEFAULT_MODEL_DISCOVERY_INTERVAL = Duration.ofSeconds(30);
  /** Default deadline of a whole call, across attempts: 10 min. */
  public static final Duration DEFAULT_CALL_TIMEOUT = Duration.ofMinutes(10);
  /** Default concurrent requests, in total and per replica: {@value}. */
  public static final int DEFAULT_MAX_CONCURRENT_REQUESTS = 1024;
  /** Default slow-start window of a replica that joined or came back: 30 s. */
  public static final Duration DEFAULT_SLOW_START = Duration.ofSeconds(30);
  /** Default calls allowed to wait for replicas while the fleet is empty: {@value}. */
  public static final int DEFAULT_MAX_WAITING_CALLS = 1024;
  /** The most LoRA adapters loaded on demand: {@value}. */
  public static final int MAX_ADAPTERS_ON_DEMAND = 1000;

  // Read by LlmClient's constructor; the client keeps none of the builder (nor the API key).
  private final List<Replica> replicas = new ArrayList<>();
  RoutingPolicy routingPolicy = RoutingPolicy.defaultPolicy();
  RetryPolicy retryPolicy = RetryPolicy.defaults();
  HedgePolicy hedgePolicy = HedgePolicy.disabled();
  Duration connectTimeout = DEFAULT_CONNECT_TIMEOUT;
  Duration firstByteTimeout = DEFAULT_FIRST_BYTE_TIMEOUT;
  Duration streamIdleTimeout = DEFAULT_STREAM_IDLE_TIMEOUT;
  Duration stallTimeout = DEFAULT_STALL_TIMEOUT;
  Duration callTimeout = DEFAULT_CALL_TIMEOUT;
  Duration modelDiscoveryInterval = DEFAULT_MODEL_DISCOVERY_INTERVAL;
  List<LoraAdapter> adaptersOnDemand = List.of();
  int maxStreamResumptions = DEFAULT_MAX_STREAM_RESUMPTIONS;
  int maxConcurrentRequests = DEFAULT_MAX_CONCURRENT_REQUESTS;
  @Nullable String apiKey;
  @Nullable OkHttpClient okHttpClient;
  final List<RoutingListener> listeners = new ArrayList<>();
  Ticker ticker = Ticker.system();
  LoadMonitoring loadMonitoring = LoadMonitoring.defaults();
  Admission admission = Admission.disabled();
  private @Nullable RuntimeException invalidReplica;
  private @Nullable ReplicaResolver resolver;
  @Nullable HealthCheck healthCheck;
  OutlierDetection outlierDetection = OutlierDetection.defaults();
  CircuitBreakerPolicy circuitBreaker = CircuitBreakerPolicy.defaults();
  Duration slowStart = DEFAULT_SLOW_START;
  int maxWaitingCalls = DEFAULT_MAX_WAITING_CALLS;

  LlmClientBuilder() {}

  private void checkAdaptersOnDemand() {
    List<LoraAdapter> adapters = adaptersOnDemand;
    if (adapters.isEmpty()) return;
    if (adapters.size() > MAX_ADAPTERS_ON_DEMAND) {
      throw new IllegalArgumentException("loadAdaptersOnDemand takes at most "
          + MAX_ADAPTERS_ON_DEMAND + " adapters, got " + adapters.size());
    }
    if (modelDiscoveryInterval.isZero()) {
      throw new IllegalArgumentException("loadAdaptersOnDemand needs model discovery "
          + "(modelDiscoveryInterval above 0): the replicas' /v1/models tells where each adapter "
          + "is loaded");
    }
    Set<String> names = new HashSet<>();
    for (LoraAdapter a : adapters) {
      if (!names.add(a.name())) {
        throw new IllegalArgumentException("loadAdaptersOnDemand names adapter '" + a.name()
            + "' twice");
      }
    }
  }

  /**
   * Adds replicas by base URL (for example {@code http://10.0.0.7:8000}); a malformed URL fails
   * at {@link #build()}.
   *
   * @param baseUrls the replicas' base URLs, without the {@code /v1} suffix
   * @return this builder
   */
  public LlmClientBuilder replicas(String... baseUrls) {
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
  public LlmClientBuilder replicas(List<Replica> replicas) {
    for (Replica r : requireNonNull(replicas, "replicas")) replica(r);
    return this;
  }

  /**
   * Adds one replica.
   *
   * @param replica the replica; not null
   * @return this builder
   */
  public LlmClientBuilder replica(Replica replica) {
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
  public LlmClientBuilder routingPolicy(RoutingPolicy routingPolicy) {
    this.routingPolicy = requireNonNull(routingPolicy, "routingPolicy");
    return this;
  }

  /**
   * Retries and failover; default {@link RetryPolicy#defaults()}.
   *
   * @param retryPolicy the retry policy; not null
   * @return this builder
   */
  public LlmClientBuilder retryPolicy(RetryPolicy retryPolicy) {
    this.retryPolicy = requireNonNull(retryPolicy, "retryPolicy");
    return this;
  }

  /**
   * Timeout to open a connection, in (0, 5 min]; default 5 s.
   *
   * @param connectTimeout the connect timeout; not null
   * @return this builder
   */
  public LlmClientBuilder connectTimeout(Duration connectTimeout) {
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
  public LlmClientBuilder firstByteTimeout(Duration firstByteTimeout) {
    this.firstByteTimeout = requireNonNull(firstByteTimeout, "firstByteTimeout");
    return this;
  }

  /**
   * Longest gap between two events of a stream, in (0, 1 h]; default 30 s.
   *
   * @param streamIdleTimeout the stream idle timeout; not null
   * @return this builder
   */
  public LlmClientBuilder streamIdleTimeout(Duration streamIdleTimeout) {
    this.streamIdleTimeout = requireNonNull(streamIdleTimeout, "streamIdleTimeout");
    return this;
  }

  /**
   * Whether and when a call whose attempt has delivered nothing yet is raced by a second attempt
   * on the next replica (a hedge); default {@link HedgePolicy#disabled()}. Hedges spend the
   * {@link #retryPolicy retry policy}'s budget; see {@link HedgePolicy} for the rules.
   *
   * @param hedgePolicy the hedge policy; not null
   * @return this builder
   */
  public LlmClientBuilder hedgePolicy(HedgePolicy hedgePolicy) {
    this.hedgePolicy = requireNonNull(hedgePolicy, "hedgePolicy");
    return this;
  }

  /**
   * How many times a streamed chat or completion that breaks after its first chunk (a cut
   * connection, a replica that stopped, the stream idle timeout) is continued on another replica,
   * in [0, 10], 0 to never; default {@value #DEFAULT_MAX_STREAM_RESUMPTIONS}. The continuation
   * asks the next-best replica (another one, while any is left) for the rest of the answer: the
   * original request with the text delivered so far as the assistant's final message ({@code
   * "continue_final_message": true, "add_generation_prompt": false}, which vLLM, SGLang and
   * llama.cpp's server honour), or appended to a completion's prompt, and its token limit lowered
   * by the chunks delivered. The caller's iterator goes on with the continuation's first new text;
   * a continuation that repeats the delivered text first has the repetition removed; the last
   * chunk's usage counts both parts, and {@link ResponseStream#resumptions()} says how many
   * resumptions it took. Each one is a retry: it needs the retry budget and the call's deadline.
   *
   * <p>Never resumed, ending with {@link io.github.llmrouter.api.StreamInterruptedException} as
   * without it: a request marked {@code resumable(false)}, one asking for several choices, log
   * probabilities, structured output ({@code response_format}, a JSON schema, a grammar or other
   * guided decoding) or a forced tool call; a stream once a chunk showed a tool call; raw
   * requests; a break the replica reported as the request's fault (an error event with a 4xx).
   * The token limit is lowered by one token per chunk delivered, which is exact on servers that
   * send a token per event (llama.cpp's server, vLLM by default).
   *
   * @param maxStreamResumptions the most continuations per call
   * @return this builder
   * @since 0.3.0
   */
  public LlmClientBuilder maxStreamResumptions(int maxStreamResumptions) {
    this.maxStreamResumptions = maxStreamResumptions;
    return this;
  }

  /**
   * How often each replica that declares no models ({@link Replica.Builder#model}) is asked which
   * models it serves ({@code GET /v1/models}, which vLLM, SGLang, TGI and llama.cpp's server
   * answer), in [1 s, 1 h], or {@link Duration#ZERO} to never ask; default 30 s. A replica is
   * asked as soon as it joins, again at this interval (±20%), after a failed listing within 0.5 s
   * (doubling up to the interval), and every replica at once after an answer that says a model is
   * unknown (at most once a second). Each listing has 2 s to answer, off the request path.
   *
   * <p>A request for a model that some replica declares or lists then goes only to those
   * replicas, so a server that answers any model with its own (llama.cpp's does) never answers
   * for another model. A request for a model no replica declares or lists goes to the replicas
   * that declare nothing, whose servers decide (vLLM answers 404; llama.cpp, listing its model
   * file's path, answers with its model), so a single-model fleet addressed by any name works as
   * before. A replica whose listing fails keeps its last good one; one never listed takes no
   * request for a model another lists. Until every replica has been listed once (at start-up,
   * after scaling from zero) a call that names a model waits for the first listings, and later a
   * call for a model nobody lists waits for those of replicas that joined (at most twice their 2 s
   * timeout; a replica that refuses them is listed as serving nothing, at once). A model that an
   * engine loading models on demand lists as not loaded (llama.cpp's router mode) goes first to
   * the replicas that have it loaded.
   *
   * @param modelDiscoveryInterval the interval; not null
   * @return this builder
   * @since 0.3.0
   */
  public LlmClientBuilder modelDiscoveryInterval(Duration modelDiscoveryInterval) {
    this.modelDiscoveryInterval =
        requireNonNull(modelDiscoveryInterval, "modelDiscoveryInterval");
    return this;
  }

  /**
   * Loads these LoRA adapters on demand on replicas of their base models, through vLLM's runtime
   * endpoints ({@code POST /v1/load_lora_adapter} with the adapter's name and path, {@code POST
   * /v1/unload_lora_adapter}; the servers must run with {@code --enable-lora} and {@code
   * VLLM_ALLOW_RUNTIME_LORA_UPDATING=True}); default none: the client loads nothing, and an
   * adapter's calls go to the replicas that list it. Needs model discovery ({@link
   * #modelDiscoveryInterval} above 0), which tells where each adapter is loaded.
   *
   * <p>A call for one of these adapters that no replica lists waits, within its deadline (as for
   * a model no replica serves), while the client loads it on a replica of its base model; when
   * every replica that lists it carries more than its share of the load, the client loads it on
   * one more. The replica is the first, in an order fixed by the adapter's name (the same for
   * every client), that lists fewer adapters than it runs at once ({@code max_lora}, from vLLM's
   * {@code vllm:lora_requests_info} gauge, else 8), or that holds an adapter this client loaded
   * and no call of this client is using, which is unloaded first, least recently used first. The
   * client never goes past a replica's {@code max_lora} and never unloads an adapter it did not
   * load. A replica that refuses a load is not asked for that adapter again for 30 s, and the
   * next one is; when none has room, a warning is logged (once a minute) and the calls wait
   * until their deadline.
   *
   * @param adapters the adapters, at most {@value #MAX_ADAPTERS_ON_DEMAND}, names distinct;
   *     replaces any given before; none turns this off
   * @return this builder
   * @since 0.3.0
   */
  public LlmClientBuilder loadAdaptersOnDemand(LoraAdapter... adapters) {
    return loadAdaptersOnDemand(List.of(adapters));
  }

  /**
   * As {@link #loadAdaptersOnDemand(LoraAdapter...)}.
   *
   * @param adapters the adapters; not null, no null element
   * @return this builder
   * @since 0.3.0
   */
  public LlmClientBuilder loadAdaptersOnDemand(Collection<LoraAdapter> adapters) {
    this.adaptersOnDemand = List.copyOf(requireNonNull(adapters, "adapters"));
    return this;
  }

  /**
   * How long a replica may leave its load scrapes and health checks unanswered (timing out, not
   * refusing) before it is taken for hung, in [0, 10 min], {@link Duration#ZERO} to turn this
   * watchdog off; default 3 s. A hung replica (a paused or wedged process, a path that drops
   * packets) still accepts connections and answers nothing: it then gets no new calls, and its
   * attempts that have received no byte of their answer fail over at once, their exchanges
   * cancelled, instead of waiting out {@link #firstByteTimeout}. Attempts whose answer has begun
   * are left alone (a stream that falls silent ends at {@link #streamIdleTimeout}). The replica
   * takes calls again, through its slow start, as soon as a scrape or a health check is answered.
   *
   * <p>The bound is learnt per replica as well: it is at least four times the slowest recent
   * answer the replica gave to a scrape or a health check, so an engine that answers {@code
   * /metrics} only between batches (llama.cpp's server does) is not taken for hung while it
   * works through a long prefill.
   *
   * <p>The same watchdog judges a replica by this client's streams: one on which a stream has
   * waited for its first chunk four times longer than streams like it (the same operation, a
   * prompt of similar size) take at the 99th percentile, and at least this timeout, while the
   * replica delivered nothing to any other call, is taken for hung as well; this finds a server
   * whose front still answers scrapes while its engine is wedged, and a hung replica when nothing
   * scrapes it. Streams of a kind this client has timed fewer than 20 times, and non-streamed
   * answers (they arrive only once every token is made), are never judged by. With neither load
   * scraping nor health checks, nothing would see the replica answer again, so it is ejected
   * (see {@link #outlierDetection}) instead of being out until it answers.
   *
   * @param stallTimeout the stall timeout; not null
   * @return this builder
   */
  public LlmClientBuilder stallTimeout(Duration stallTimeout) {
    this.stallTimeout = requireNonNull(stallTimeout, "stallTimeout");
    return this;
  }

  /**
   * Deadline of a whole call across all attempts and backoffs (for a stream: until it is fully
   * read), in [0, 24 h], {@link Duration#ZERO} for none; default 10 min.
   *
   * @param callTimeout the call timeout; not null
   * @return this builder
   */
  public LlmClientBuilder callTimeout(Duration callTimeout) {
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
  public LlmClientBuilder maxConcurrentRequests(int maxConcurrentRequests) {
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
  public LlmClientBuilder apiKey(@Nullable String apiKey) {
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
  public LlmClientBuilder okHttpClient(OkHttpClient okHttpClient) {
    this.okHttpClient = requireNonNull(okHttpClient, "okHttpClient");
    return this;
  }

  /**
   * Adds a listener of routing events; default none. Several may be added: each hears every
   * event, in the order they were added, and one that throws keeps no other from hearing it (see
   * {@link RoutingListener}).
   *
   * @param listener the listener; not null
   * @return this builder
   */
  public LlmClientBuilder listener(RoutingListener listener) {
    listeners.add(requireNonNull(listener, "listener"));
    return this;
  }

  /**
   * The time source for deadlines, the retry budget, ejections, circuit breakers and slow start;
   * default the system ticker.
   *
   * @param ticker the ticker; not null
   * @return this builder
   */
  public LlmClientBuilder ticker(Ticker ticker) {
    this.ticker = requireNonNull(ticker, "ticker");
    return this;
  }

  /**
   * Where the fleet comes from, instead of {@link #replicas(String...) a static list}: DNS,
   * Kubernetes EndpointSlices or your own registry (see {@link ReplicaResolver}). Started by
   * {@link #build()}, closed by {@link LlmClient#close()}. Default none.
   *
   * @param resolver the resolver; not null
   * @return this builder
   */
  public LlmClientBuilder resolver(ReplicaResolver resolver) {
    this.resolver = requireNonNull(resolver, "resolver");
    return this;
  }

  /**
   * Active health checks (GET /health); default none: see {@link HealthCheck}.
   *
   * @param healthCheck the health check; not null
   * @return this builder
   */
  public LlmClientBuilder healthCheck(HealthCheck healthCheck) {
    this.healthCheck = requireNonNull(healthCheck, "healthCheck");
    return this;
  }

  /**
   * Passive outlier ejection; default {@link OutlierDetection#defaults()} (5 failures, 30 s).
   *
   * @param outlierDetection the outlier detection; not null
   * @return this builder
   */
  public LlmClientBuilder outlierDetection(OutlierDetection outlierDetection) {
    this.outlierDetection = requireNonNull(outlierDetection, "outlierDetection");
    return this;
  }

  /**
   * Per-replica circuit breakers; default {@link CircuitBreakerPolicy#defaults()}.
   *
   * @param circuitBreaker the circuit breaker; not null
   * @return this builder
   */
  public LlmClientBuilder circuitBreaker(CircuitBreakerPolicy circuitBreaker) {
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
  public LlmClientBuilder slowStart(Duration slowStart) {
    this.slowStart = requireNonNull(slowStart, "slowStart");
    return this;
  }

  /**
   * Calls allowed to wait for replicas while the fleet is empty, or has no replica of a model it
   * served before, in [0, 65536]; default {@value #DEFAULT_MAX_WAITING_CALLS}. A waiting call
   * waits up to its {@link #callTimeout deadline}; beyond this many, or with 0, such calls fail
   * at once with {@code NoReplicaAvailableException}.
   *
   * @param maxWaitingCalls the max waiting calls, checked at {@link #build()}
   * @return this builder
   */
  public LlmClientBuilder maxWaitingCalls(int maxWaitingCalls) {
    this.maxWaitingCalls = maxWaitingCalls;
    return this;
  }

  /**
   * How replicas' own load is learnt: {@code /metrics} scraping and response headers; default
   * {@link LoadMonitoring#defaults()} (scrape every 1 s, read {@code endpoint-load-metrics}).
   * {@link LoadMonitoring#disabled()} routes on this client's in-flight counts alone.
   *
   * @param loadMonitoring the load reporting; not null
   * @return this builder
   */
  public LlmClientBuilder loadMonitoring(LoadMonitoring loadMonitoring) {
    this.loadMonitoring = requireNonNull(loadMonitoring, "loadMonitoring");
    return this;
  }

  /**
   * Client-side admission control when every replica is saturated; default {@link
   * Admission#disabled()}.
   *
   * @param admission the admission; not null
   * @return this builder
   */
  public LlmClientBuilder admission(Admission admission) {
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
    checkDuration("stallTimeout", stallTimeout, true, Duration.ofMinutes(10), "[0, 10 min]");
    checkDuration("callTimeout", callTimeout, true, Duration.ofHours(24), "[0, 24 h]");
    Duration discovery = modelDiscoveryInterval;
    if (!discovery.isZero() && (discovery.compareTo(Duration.ofSeconds(1)) < 0
        || discovery.compareTo(Duration.ofHours(1)) > 0)) {
      throw new IllegalArgumentException(
          "modelDiscoveryInterval must be 0 or in [1 s, 1 h], got " + discovery);
    }
    checkAdaptersOnDemand();
    if (maxStreamResumptions < 0 || maxStreamResumptions > 10) {
      throw new IllegalArgumentException("maxStreamResumptions must be in [0, 10], got "
          + maxStreamResumptions);
    }
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
    LlmClient client = new LlmClient(this, source);
    client.started();
    return client;
  }

  private static void checkDuration(String knob, Duration d, boolean zeroAllowed, Duration max,
      String range) {
    boolean ok = !d.isNegative() && (zeroAllowed || !d.isZero()) && d.compareTo(max) <= 0;
    if (!ok) throw new IllegalArgumentException(knob + " must be in " + range + ", got " + d);
  }

  @Override
  public String toString() {
    return "LlmClientBuilder{replicas=" + replicas.size() + ", apiKey="
        + (apiKey == null ? "none" : "<redacted>") + '}';
  }
}
