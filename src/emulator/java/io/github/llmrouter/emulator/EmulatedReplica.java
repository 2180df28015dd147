package io.github.llmrouter.emulator;

import static java.util.Objects.requireNonNull;

import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.jspecify.annotations.Nullable;

/**
 * An in-process, OpenAI-compatible inference server that behaves enough like a vLLM replica for
 * routing to matter: a prefix cache of chained block hashes that makes cached prompts start
 * faster, a batch limit with a FIFO queue, vLLM-shaped {@code /metrics}, and scripted
 * {@linkplain #faults() faults}. For tests, demos and benchmarks of the client; never needed at
 * runtime.
 *
 * <pre>{@code
 * try (EmulatedReplica replica = EmulatedReplica.builder().id("r1").build().start()) {
 *   Replica target = Replica.of(replica.baseUrl());
 *   // ... send requests ...
 *   assertThat(replica.stats().hitRate()).isGreaterThan(0.5);
 * }
 * }</pre>
 *
 * <p>Endpoints: {@code POST /v1/chat/completions}, {@code POST /v1/completions} (both JSON or SSE
 * with {@code "stream": true}), {@code POST /v1/embeddings}, {@code GET /v1/models},
 * {@code GET /health} and {@code GET /metrics}. Unknown request fields are ignored and unknown
 * model names are served. Every response object carries an extra top-level field
 * {@code "x_emulated_replica": "<id>"}, so clients can be tested for passing unknown fields
 * through and tests can see which replica answered.
 *
 * <p>Timing model: a request first waits for one of {@code maxRunning} batch slots (FIFO), then
 * spends {@code baseLatency + uncachedPromptChars × prefillNanosPerChar} before its first token
 * (the streaming response's headers and first event are sent then), then
 * {@code decodeInterval} per further token. The prompt is each message as
 * {@code role + "\n" + content + "\n"} for chat, or the prompt for completions; its full blocks of
 * {@code blockChars} are looked up in, then added to, an LRU of {@code cacheBlocks} blocks.
 * "Tokens" in usage and metrics are characters / 4.
 *
 * <p>Thread-safe. Waits use real time, each bounded, and {@link #close()} ends them all at once.
 */
public final class EmulatedReplica implements AutoCloseable {
  /** The model name served when none is configured: {@value}. */
  public static final String DEFAULT_MODEL = "emulated-model";
  /** Prefix-cache block size in characters: {@value} (16 tokens, as llm-d's scorer uses). */
  public static final int DEFAULT_BLOCK_CHARS = 64;
  /** Prefix-cache capacity in blocks: {@value} (131,072 characters, about 32k tokens). */
  public static final int DEFAULT_CACHE_BLOCKS = 2048;
  /** Concurrent requests in the batch; more wait FIFO: {@value}. */
  public static final int DEFAULT_MAX_RUNNING = 8;
  /**
   * Prefill cost per uncached prompt character, in nanoseconds: {@value} (a 2,000-character
   * uncached prompt costs 20 ms, a fully cached one only the base latency).
   */
  public static final long DEFAULT_PREFILL_NANOS_PER_CHAR = 10_000;
  /** Fixed per-request overhead: 1 ms. */
  public static final Duration DEFAULT_BASE_LATENCY = Duration.ofMillis(1);
  /** Time per output token after the first: 0.5 ms (16 tokens take 7.5 ms). */
  public static final Duration DEFAULT_DECODE_INTERVAL = Duration.ofNanos(500_000);
  /** Output tokens when a request sets no {@code max_tokens}: {@value}. */
  public static final int DEFAULT_MAX_TOKENS = 16;
  /** The largest {@code max_tokens} a request or the builder may ask for: {@value}. */
  public static final int MAX_TOKENS_LIMIT = 4096;
  /** The largest accepted {@code baseLatency} and {@code decodeInterval}, in seconds: {@value}. */
  public static final long MAX_DURATION_SECONDS = 10;
  /** The largest accepted {@code prefillNanosPerChar}: {@value} (1 ms per character). */
  public static final long MAX_PREFILL_NANOS_PER_CHAR = 1_000_000;

  private static final int BACKLOG = 1024;

  static {
    // The JDK server leaves Nagle on by default, which holds back small SSE events for tens of
    // milliseconds; the property is read once, so set it before the first server is created.
    if (System.getProperty("sun.net.httpserver.nodelay") == null) {
      System.setProperty("sun.net.httpserver.nodelay", "true");
    }
  }

  /** The longest accepted {@code idleConnectionTimeout}: 1 hour. */
  public static final Duration MAX_IDLE_CONNECTION_TIMEOUT = Duration.ofHours(1);

  private final int requestedPort;
  private final boolean closeAfterStreams;
  private final Duration idleConnectionTimeout;
  private @Nullable ConnectionFront front; // guarded by lock
  private final boolean idFromPort;
  private final EmulatedEngine engine;
  private final EmulatedFaults faults = new EmulatedFaults();
  private final Object lock = new Object();
  private @Nullable HttpServer server; // guarded by lock
  private @Nullable ExecutorService executor; // guarded by lock
  private volatile @Nullable String baseUrl;
  private boolean closed; // guarded by lock
  private boolean stopping; // guarded by lock

  private EmulatedReplica(Builder b) {
    this.requestedPort = b.port;
    this.closeAfterStreams = b.closeAfterStreams;
    this.idleConnectionTimeout = b.idleConnectionTimeout;
    this.idFromPort = b.id == null;
    List<String> models = b.models.isEmpty() ? List.of(DEFAULT_MODEL) : List.copyOf(b.models);
    this.engine = new EmulatedEngine(b.id != null ? b.id : "emulated-unstarted", models,
        b.rejectUnknownModels, b.maxLoadedModels, loras(b), b.blockChars, b.cacheBlocks, b.maxRunning, b.baseLatency.toNanos(),
        b.prefillNanosPerChar,
        b.decodeInterval.toNanos(), b.defaultMaxTokens, b.metrics);
  }

  private static @Nullable EmulatedLoras loras(Builder b) {
    if (b.maxLoras == 0) return null;
    EmulatedLoras loras = new EmulatedLoras(b.maxLoras);
    for (String name : b.adapters) loras.register(name, "/adapters/" + name);
    return loras;
  }

  /** A builder with every default; see the {@code DEFAULT_*} constants. */
  public static Builder builder() {
    return new Builder();
  }

  /**
   * An unstarted replica that answers at once: no base latency, prefill or decode time, and
   * otherwise the defaults. For measuring the client's own overhead.
   */
  public static EmulatedReplica instant() {
    return builder().instant().build();
  }

  /**
   * Binds to 127.0.0.1 and starts serving. Returns {@code this}, so a replica can be built and
   * started in one expression.
   *
   * @throws IllegalStateException if already started or closed
   * @throws UncheckedIOException if the port cannot be bound
   */
  public EmulatedReplica start() {
    synchronized (lock) {
      if (closed) throw new IllegalStateException("replica " + engine.id + " is closed");
      if (server != null) throw new IllegalStateException("replica " + engine.id + " is started");
      boolean fronted = closeAfterStreams || !idleConnectionTimeout.isZero();
      HttpServer s;
      ConnectionFront f = null;
      try {
        s = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(),
            fronted ? 0 : requestedPort), BACKLOG);
        if (fronted) {
          f = new ConnectionFront(requestedPort, s.getAddress(), closeAfterStreams,
              (int) idleConnectionTimeout.toMillis(), daemonThreads("front"));
        }
      } catch (IOException e) {
        throw new UncheckedIOException("cannot bind emulated replica to 127.0.0.1:" + requestedPort,
            e);
      }
      int port = f != null ? f.port() : s.getAddress().getPort();
      if (idFromPort) engine.id = "emulated-" + port;
      // Unbounded and cached: every open stream holds a thread for its whole life, and a demo or
      // benchmark opens hundreds at once. Daemon threads never keep a JVM alive.
      ExecutorService pool = Executors.newCachedThreadPool(daemonThreads(engine.id));
      s.setExecutor(pool);
      s.createContext("/", new EmulatedHandler(engine, faults));
      s.start();
      server = s;
      front = f;
      executor = pool;
      baseUrl = "http://127.0.0.1:" + port;
      return this;
    }
  }

  /** The replica's id: as configured, else {@code emulated-<port>} once started. */
  public String id() {
    return engine.id;
  }

  /**
   * The server root, {@code http://127.0.0.1:PORT}, without {@code /v1}.
   *
   * @throws IllegalStateException if not started
   */
  public String baseUrl() {
    String url = baseUrl;
    if (url == null) throw new IllegalStateException("replica " + engine.id + " is not started");
    return url;
  }

  /**
   * The bound port.
   *
   * @throws IllegalStateException if not started
   */
  public int port() {
    String url = baseUrl();
    return Integer.parseInt(url.substring(url.lastIndexOf(':') + 1));
  }

  /**
   * Stops accepting connections at once, as llama.cpp's server does on SIGTERM: new connections
   * are refused from here on, and requests that come in on connections already open are never
   * answered; requests already being served go on (llama.cpp's server never answers them either:
   * script that with {@link EmulatedFaults#hangNext}). {@link #close()} ends everything.
   * Idempotent; a replica on the same port may be started once this returns.
   *
   * @throws IllegalStateException if not started
   */
  public void stopAccepting() {
    HttpServer s;
    ConnectionFront f;
    synchronized (lock) {
      s = server;
      f = front;
      if (s == null) throw new IllegalStateException("replica " + engine.id + " is not started");
      if (closed || stopping) return;
      stopping = true;
    }
    engine.stopped = true;
    if (f != null) {
      f.stopAccepting();
      return;
    }
    // The JDK server closes its listening socket at once, then waits for the exchanges in
    // progress (until close() ends them), so that wait runs on a thread of its own.
    CountDownLatch listenerClosed = new CountDownLatch(1);
    Thread stopper = daemonThreads("stop").newThread(() -> {
      listenerClosed.countDown();
      s.stop((int) TimeUnit.HOURS.toSeconds(1));
    });
    stopper.start();
    try {
      listenerClosed.await();
      // stop() closes the listener first thing; wait until connecting is refused.
      for (int i = 0; i < 1000 && accepts(); i++) Thread.sleep(1);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /** Whether a connection to the replica's port is accepted now. */
  private boolean accepts() {
    try (java.net.Socket probe = new java.net.Socket()) {
      probe.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), port()), 1000);
      return true;
    } catch (IOException e) {
      return false;
    }
  }

  /**
   * Freezes the replica, as {@code SIGSTOP} freezes a server process: connections are still
   * accepted and requests read, on every path ({@code /metrics} and {@code /health} included), but
   * nothing more is answered, and every exchange under way (a stream between two events, a
   * request in its prefill or decode) stops where it is, until {@link #thaw()}. {@link #close()}
   * ends everything. Idempotent.
   */
  public void freeze() {
    engine.freeze();
  }

  /**
   * Lets a {@linkplain #freeze() frozen} replica go on, as {@code SIGCONT} does: every exchange
   * continues from where it stopped. Idempotent.
   */
  public void thaw() {
    engine.thaw();
  }

  /** The model names listed by {@code /v1/models}; the first labels {@code /metrics}. */
  public List<String> models() {
    return engine.models;
  }

  /**
   * {@return the LoRA adapters loaded to run so far, each time one was not held (see {@link
   * Builder#loraAdapters})}
   */
  public long loraLoads() {
    EmulatedLoras l = engine.loras;
    return l == null ? 0 : l.loads.sum();
  }

  /** {@return the LoRA adapters registered now, in registration order; empty if it serves none} */
  public List<String> adapters() {
    EmulatedLoras l = engine.loras;
    return l == null ? List.of() : l.names();
  }

  /** {@return the models loaded on demand so far (see {@link Builder#loadsModelsOnDemand})} */
  public long modelLoads() {
    return engine.modelLoads.sum();
  }

  /**
   * Serves other models from now on, as a server restarted with another model or with adapters
   * loaded or unloaded would: {@code /v1/models} lists them, and a replica built with {@link
   * Builder#rejectUnknownModels()} answers only them.
   *
   * @param models the model names, at least one, none blank
   */
  public void serveModels(String... models) {
    if (models.length == 0) throw new IllegalArgumentException("models must not be empty");
    for (String m : models) {
      if (requireNonNull(m, "model").isBlank()) {
        throw new IllegalArgumentException("model must not be blank");
      }
    }
    engine.models = List.copyOf(new LinkedHashSet<>(Arrays.asList(models)));
  }

  /** A snapshot of traffic, cache and queue counters. */
  public EmulatedReplicaStats stats() {
    return engine.stats(faults.injected());
  }

  /**
   * Connections this replica closed without telling the client: after a streamed response ({@link
   * Builder#closeAfterStreams}) or idle ({@link Builder#idleConnectionTimeout}).
   */
  public long connectionsDropped() {
    ConnectionFront f;
    synchronized (lock) {
      f = front;
    }
    return f == null ? 0 : f.dropped();
  }

  /** The fault-injection script of this replica. */
  public EmulatedFaults faults() {
    return faults;
  }

  /**
   * Stops at once: queued, delayed, hung and streaming requests are cut off (their connections
   * close without a complete response) and the port is released. Idempotent.
   */
  @Override
  public void close() {
    HttpServer s;
    ExecutorService pool;
    ConnectionFront f;
    synchronized (lock) {
      if (closed) return;
      closed = true;
      s = server;
      pool = executor;
      f = front;
    }
    if (f != null) f.close(); // new connections are refused from here on
    engine.close(); // wakes every modelled wait first, so handlers unwind while the server stops
    if (s != null) s.stop(0);
    if (pool != null) {
      pool.shutdownNow();
      try {
        pool.awaitTermination(1, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
  }

  @Override
  public String toString() {
    String url = baseUrl;
    return "EmulatedReplica{id=" + engine.id + (url != null ? ", url=" + url : "") + '}';
  }

  private static ThreadFactory daemonThreads(String id) {
    AtomicInteger n = new AtomicInteger();
    return r -> {
      Thread t = new Thread(r, "emulated-replica-" + id + "-" + n.incrementAndGet());
      t.setDaemon(true);
      return t;
    };
  }

  /** The engine whose metrics an emulated replica exports. */
  public enum Metrics {
    /**
     * vLLM v1: {@code vllm:num_requests_waiting}, {@code vllm:num_requests_running}, {@code
     * vllm:kv_cache_usage_perc}, {@code vllm:cache_config_info}, the prefix-cache counters and
     * {@code vllm:request_queue_time_seconds}.
     */
    VLLM,
    /**
     * SGLang: {@code sglang:num_queue_reqs}, {@code sglang:num_running_reqs}, {@code
     * sglang:token_usage}, {@code sglang:max_total_num_tokens} and {@code
     * sglang:queue_time_seconds}.
     */
    SGLANG
  }

  /**
   * Builds an {@link EmulatedReplica}; every knob has a {@code DEFAULT_*} constant and is
   * validated when set, with a message naming the knob and its range. Not thread-safe.
   */
  public static final class Builder {
    private @Nullable String id;
    private int port = 0;
    private final List<String> models = new ArrayList<>();
    private int blockChars = DEFAULT_BLOCK_CHARS;
    private int cacheBlocks = DEFAULT_CACHE_BLOCKS;
    private int maxRunning = DEFAULT_MAX_RUNNING;
    private long prefillNanosPerChar = DEFAULT_PREFILL_NANOS_PER_CHAR;
    private Duration baseLatency = DEFAULT_BASE_LATENCY;
    private Duration decodeInterval = DEFAULT_DECODE_INTERVAL;
    private int defaultMaxTokens = DEFAULT_MAX_TOKENS;
    private boolean closeAfterStreams;
    private Duration idleConnectionTimeout = Duration.ZERO;
    private Metrics metrics = Metrics.VLLM;
    private boolean rejectUnknownModels;
    private int maxLoadedModels;
    private int maxLoras;
    private List<String> adapters = List.of();

    private Builder() {}

    /**
     * Serves LoRA adapters of its first model as vLLM does with {@code --enable-lora --max-loras
     * maxLoras} and runtime updates allowed: {@code /v1/models} lists each registered adapter with
     * its base model as {@code parent}; {@code POST /v1/load_lora_adapter} ({@code lora_name},
     * {@code lora_path}) registers one and {@code POST /v1/unload_lora_adapter} ({@code
     * lora_name}) removes one, answering as vLLM does; a request of a registered adapter runs with
     * it held in one of {@code maxLoras} slots, loading it (counted by {@link
     * EmulatedReplica#loraLoads()}) in place of the least recently used adapter with nothing
     * running; {@code /metrics} adds {@code vllm:lora_requests_info} with {@code max_lora} and the
     * running adapters. Loads take no modelled time. Default: no adapters, and no such endpoints.
     *
     * @param maxLoras adapters held at once, in [1, 64]
     * @param registered adapters registered at start, as {@code --lora-modules} does
     */
    public Builder loraAdapters(int maxLoras, String... registered) {
      if (maxLoras < 1 || maxLoras > 64) {
        throw new IllegalArgumentException("maxLoras must be in [1, 64], got " + maxLoras);
      }
      for (String name : registered) {
        if (requireNonNull(name, "adapter").isBlank()) {
          throw new IllegalArgumentException("adapter must not be blank");
        }
      }
      this.maxLoras = maxLoras;
      this.adapters = List.of(registered);
      return this;
    }

    /**
     * Loads its models on demand and keeps at most {@code maxLoaded} loaded at once, as
     * llama.cpp's server in router mode does ({@code --models-max}): {@code /v1/models} gives each
     * model a {@code status} ({@code loaded} or {@code unloaded}); a request for a model not
     * loaded loads it (counted by {@link EmulatedReplica#modelLoads()}) and unloads the least
     * recently used past the limit. Loads take no modelled time. Default: every model always
     * loaded.
     *
     * @param maxLoaded in [1, 64]
     */
    public Builder loadsModelsOnDemand(int maxLoaded) {
      if (maxLoaded < 1 || maxLoaded > 64) {
        throw new IllegalArgumentException("maxLoaded must be in [1, 64], got " + maxLoaded);
      }
      this.maxLoadedModels = maxLoaded;
      return this;
    }

    /**
     * Answers a request for a model it does not list with 404 and vLLM's error ({@code The model
     * `x` does not exist.}), as vLLM and SGLang do; by default any model is served, as llama.cpp's
     * server does.
     */
    public Builder rejectUnknownModels() {
      this.rejectUnknownModels = true;
      return this;
    }

    /** The engine whose {@code /metrics} names and labels it exports; default {@link Metrics#VLLM}. */
    public Builder metrics(Metrics metrics) {
      this.metrics = requireNonNull(metrics, "metrics");
      return this;
    }

    /**
     * Closes each connection right after a streamed response, although the response announced
     * nothing of the kind, as llama.cpp's server does: a client that pools the connection finds it
     * dead on its next request. Default off.
     */
    public Builder closeAfterStreams(boolean closeAfterStreams) {
      this.closeAfterStreams = closeAfterStreams;
      return this;
    }

    /**
     * Closes a connection idle this long between requests, without telling the client, as servers
     * and proxies with an idle timeout do; in [0, 1 h], 0 (the default) never.
     */
    public Builder idleConnectionTimeout(Duration idleConnectionTimeout) {
      requireNonNull(idleConnectionTimeout, "idleConnectionTimeout");
      if (idleConnectionTimeout.isNegative()
          || idleConnectionTimeout.compareTo(MAX_IDLE_CONNECTION_TIMEOUT) > 0
          || (!idleConnectionTimeout.isZero() && idleConnectionTimeout.toMillis() == 0)) {
        throw new IllegalArgumentException("idleConnectionTimeout must be 0 or in [1 ms, 1 h], got "
            + idleConnectionTimeout);
      }
      this.idleConnectionTimeout = idleConnectionTimeout;
      return this;
    }

    /** The replica's id, reported in responses and stats; default {@code emulated-<port>}. */
    public Builder id(String id) {
      requireNonNull(id, "id");
      if (id.isBlank()) throw new IllegalArgumentException("id must not be blank");
      this.id = id;
      return this;
    }

    /** The port to bind on 127.0.0.1, in [0, 65535]; default 0, a free port. */
    public Builder port(int port) {
      if (port < 0 || port > 65535) {
        throw new IllegalArgumentException("port must be in [0, 65535], got " + port);
      }
      this.port = port;
      return this;
    }

    /**
     * Adds a model name to {@code /v1/models}; default {@value #DEFAULT_MODEL} when none is
     * added. Requests for other models are served anyway, unless {@link #rejectUnknownModels()}.
     */
    public Builder model(String model) {
      requireNonNull(model, "model");
      if (model.isBlank()) throw new IllegalArgumentException("model must not be blank");
      if (!models.contains(model)) models.add(model);
      return this;
    }

    /**
     * Prefix-cache block size in characters, in [1, 65536]; default
     * {@value #DEFAULT_BLOCK_CHARS}.
     */
    public Builder blockChars(int blockChars) {
      if (blockChars < 1 || blockChars > 65536) {
        throw new IllegalArgumentException("blockChars must be in [1, 65536], got " + blockChars);
      }
      this.blockChars = blockChars;
      return this;
    }

    /**
     * Prefix-cache capacity in blocks, in [0, 100000000] (0 disables caching); default
     * {@value #DEFAULT_CACHE_BLOCKS}.
     */
    public Builder cacheBlocks(int cacheBlocks) {
      if (cacheBlocks < 0 || cacheBlocks > 100_000_000) {
        throw new IllegalArgumentException("cacheBlocks must be in [0, 100000000], got "
            + cacheBlocks);
      }
      this.cacheBlocks = cacheBlocks;
      return this;
    }

    /**
     * Requests served concurrently, in [1, 100000]; more wait FIFO. Default
     * {@value #DEFAULT_MAX_RUNNING}.
     */
    public Builder maxRunning(int maxRunning) {
      if (maxRunning < 1 || maxRunning > 100_000) {
        throw new IllegalArgumentException("maxRunning must be in [1, 100000], got " + maxRunning);
      }
      this.maxRunning = maxRunning;
      return this;
    }

    /**
     * Prefill time per uncached prompt character in nanoseconds, in
     * [0, {@value #MAX_PREFILL_NANOS_PER_CHAR}]; default {@value #DEFAULT_PREFILL_NANOS_PER_CHAR}.
     */
    public Builder prefillNanosPerChar(long nanos) {
      if (nanos < 0 || nanos > MAX_PREFILL_NANOS_PER_CHAR) {
        throw new IllegalArgumentException("prefillNanosPerChar must be in [0, "
            + MAX_PREFILL_NANOS_PER_CHAR + "], got " + nanos);
      }
      this.prefillNanosPerChar = nanos;
      return this;
    }

    /**
     * Fixed overhead of every inference request, in [0, {@value #MAX_DURATION_SECONDS}s];
     * default 1 ms.
     */
    public Builder baseLatency(Duration baseLatency) {
      this.baseLatency = checkDuration(baseLatency, "baseLatency");
      return this;
    }

    /**
     * Time per output token after the first, in [0, {@value #MAX_DURATION_SECONDS}s]; default
     * 0.5 ms.
     */
    public Builder decodeInterval(Duration decodeInterval) {
      this.decodeInterval = checkDuration(decodeInterval, "decodeInterval");
      return this;
    }

    /**
     * Output tokens for requests without {@code max_tokens}, in [0, {@value #MAX_TOKENS_LIMIT}];
     * default {@value #DEFAULT_MAX_TOKENS}.
     */
    public Builder defaultMaxTokens(int defaultMaxTokens) {
      if (defaultMaxTokens < 0 || defaultMaxTokens > MAX_TOKENS_LIMIT) {
        throw new IllegalArgumentException("defaultMaxTokens must be in [0, " + MAX_TOKENS_LIMIT
            + "], got " + defaultMaxTokens);
      }
      this.defaultMaxTokens = defaultMaxTokens;
      return this;
    }

    /** Zero base latency, prefill and decode time: answers as fast as the HTTP stack allows. */
    public Builder instant() {
      this.baseLatency = Duration.ZERO;
      this.prefillNanosPerChar = 0;
      this.decodeInterval = Duration.ZERO;
      return this;
    }

    /** An unstarted replica; call {@link EmulatedReplica#start()}. */
    public EmulatedReplica build() {
      return new EmulatedReplica(this);
    }

    private static Duration checkDuration(Duration d, String name) {
      requireNonNull(d, name);
      if (d.isNegative() || d.compareTo(Duration.ofSeconds(MAX_DURATION_SECONDS)) > 0) {
        throw new IllegalArgumentException(name + " must be in [0, " + MAX_DURATION_SECONDS
            + "s], got " + d);
      }
      return d;
    }
  }
}
