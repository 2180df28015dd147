package io.github.llmrouter.emulator;

import java.math.BigDecimal;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;
import org.jspecify.annotations.Nullable;

/**
 * The timing and cache model behind an {@link EmulatedReplica}: a FIFO batch limit, prefill time
 * proportional to uncached prompt characters, decode time per token, and the counters that feed
 * {@code /metrics} and {@link EmulatedReplicaStats}.
 *
 * <p>Time is real: this emulates a server for real clients over real sockets. Every wait is
 * bounded by {@link #MAX_PAUSE_NANOS} and ends at once when the replica closes, so a closing
 * replica never strands a thread.
 */
final class EmulatedEngine {
  /** The longest single modelled wait (prefill, decode or delay): one minute. */
  static final long MAX_PAUSE_NANOS = TimeUnit.MINUTES.toNanos(1);
  /** How often a request waiting for a batch slot checks whether the replica closed. */
  private static final long SLOT_POLL_MILLIS = 50;
  private static final String[] WORDS = {
    "the", "quick", "replica", "answers", "with", "filler", "words", "while", "routing",
    "decides", "where", "prefixes", "live", "and", "caches", "stay", "warm", "for", "every",
    "turn", "of", "a", "long", "conversation", "about", "tokens", "blocks", "queues", "latency",
    "batches", "hashing", "load"
  };

  /** Set once at start when it defaults to the port; volatile so handler threads see it. */
  volatile String id;
  /** Replaced whole when the replica is told to serve other models. */
  volatile List<String> models;
  /** Whether a request for a model not in {@link #models} is answered 404, as vLLM does. */
  final boolean rejectsUnknownModels;
  /** Models it keeps loaded at once when it loads them on demand; 0: every model always. */
  final int maxLoadedModels;
  /** The models loaded now, least recently used first; guarded by itself. */
  private final LinkedHashSet<String> loaded = new LinkedHashSet<>();
  final LongAdder modelLoads = new LongAdder();
  /** The LoRA adapters it serves, or null if it serves none. */
  final @Nullable EmulatedLoras loras;
  final EmulatedPrefixCache cache;
  final int defaultMaxTokens;
  private final long baseNanos;
  private final long prefillNanosPerChar;
  final long decodeNanos;
  private final Semaphore slots;
  private final CountDownLatch closing = new CountDownLatch(1);
  private final long createdEpochMillis = System.currentTimeMillis();

  private final AtomicInteger waiting = new AtomicInteger();
  private final AtomicInteger running = new AtomicInteger();
  final LongAdder chatRequests = new LongAdder();
  final LongAdder completionRequests = new LongAdder();
  final LongAdder embeddingRequests = new LongAdder();
  final LongAdder modelsRequests = new LongAdder();
  final LongAdder healthRequests = new LongAdder();
  final LongAdder metricsRequests = new LongAdder();
  final LongAdder completed = new LongAdder();
  private final LongAdder promptChars = new LongAdder();
  private final LongAdder cachedChars = new LongAdder();
  private final LongAdder queriedTokens = new LongAdder();
  private final LongAdder hitTokens = new LongAdder();
  private final LongAdder queueNanos = new LongAdder();
  private final LongAdder admitted = new LongAdder();
  private final EmulatedReplica.Metrics metrics;

  EmulatedEngine(String id, List<String> models, boolean rejectsUnknownModels,
      int maxLoadedModels, @Nullable EmulatedLoras loras, int blockChars,
      int cacheBlocks, int maxRunning, long baseNanos, long prefillNanosPerChar, long decodeNanos,
      int defaultMaxTokens, EmulatedReplica.Metrics metrics) {
    this.id = id;
    this.metrics = metrics;
    this.models = models;
    this.rejectsUnknownModels = rejectsUnknownModels;
    this.maxLoadedModels = maxLoadedModels;
    this.loras = loras;
    this.cache = new EmulatedPrefixCache(blockChars, cacheBlocks);
    this.slots = new Semaphore(maxRunning, true); // fair: waiting requests are served FIFO
    this.baseNanos = baseNanos;
    this.prefillNanosPerChar = prefillNanosPerChar;
    this.decodeNanos = decodeNanos;
    this.defaultMaxTokens = defaultMaxTokens;
  }

  /** "Tokens" are counted as characters / 4, rounded up, a common rule of thumb for English. */
  static int tokens(int chars) {
    return (chars + 3) / 4;
  }

  /**
   * Waits for a batch slot in FIFO order. Close the slot when the request leaves the batch;
   * closing twice is harmless, so a handler can leave early and still close in a finally block.
   */
  Slot enterBatch() {
    waiting.incrementAndGet();
    long queuedAt = System.nanoTime();
    try {
      while (!slots.tryAcquire(SLOT_POLL_MILLIS, TimeUnit.MILLISECONDS)) {
        if (isClosing()) throw new Abort();
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new Abort();
    } finally {
      waiting.decrementAndGet();
    }
    queueNanos.add(System.nanoTime() - queuedAt);
    admitted.increment();
    running.incrementAndGet();
    return new Slot();
  }

  /**
   * Marks a request done just before its last bytes are written: it leaves the batch and is
   * counted as completed. Doing this first means a client that has read a whole response always
   * sees it reflected in stats and metrics, which is what tests assert on.
   */
  void finish(Slot slot) {
    slot.close();
    completed.increment();
  }

  /** One held batch slot; used by a single handler thread. */
  final class Slot implements AutoCloseable {
    private boolean held = true;

    @Override
    public void close() {
      if (!held) return;
      held = false;
      running.decrementAndGet();
      slots.release();
    }
  }

  /**
   * Looks the prompt up in the prefix cache, spends the prefill time of its uncached part, then
   * caches all of its blocks. Returns the number of cached characters.
   */
  /**
   * A request for {@code model} is served: on a replica that loads models on demand, the model is
   * loaded first if it is not (a load counted, the least recently used model unloaded past the
   * limit).
   */
  void use(String model) {
    if (maxLoadedModels == 0) return;
    synchronized (loaded) {
      boolean had = loaded.remove(model);
      loaded.add(model);
      if (had) return;
      modelLoads.increment();
      while (loaded.size() > maxLoadedModels) loaded.remove(loaded.iterator().next());
    }
  }

  /** {@return whether {@code model} is loaded now (always, unless models load on demand)} */
  boolean isLoaded(String model) {
    if (maxLoadedModels == 0) return true;
    synchronized (loaded) {
      return loaded.contains(model);
    }
  }

  int prefill(String model, String prompt) {
    long[] blocks = cache.blockHashes(model, prompt);
    int cached = cache.cachedPrefixBlocks(blocks) * cache.blockChars();
    promptChars.add(prompt.length());
    cachedChars.add(cached);
    queriedTokens.add(tokens(prompt.length()));
    hitTokens.add(cached / 4);
    pause(baseNanos + (long) (prompt.length() - cached) * prefillNanosPerChar);
    // Inserted only after prefill, so concurrent twins both miss, as on a real engine.
    cache.insert(blocks);
    return cached;
  }

  /** Spends only the fixed per-request overhead (embeddings have no prefix cache here). */
  void overhead() {
    pause(baseNanos);
  }

  /** Deterministic output "tokens" for a prompt: one filler word each, space-separated. */
  String[] output(String prompt, int count) {
    long seed = ContentHash.of(prompt, 0);
    String[] out = new String[count];
    for (int i = 0; i < count; i++) {
      String w = WORDS[(int) Long.remainderUnsigned(ContentHash.mix(seed + i), WORDS.length)];
      out[i] = i == 0 ? w : " " + w;
    }
    return out;
  }

  /** Non-null while the replica is frozen: counted down when it thaws. */
  private volatile @Nullable CountDownLatch thawed;

  /** Freezes the replica: every exchange stops at its next step until {@link #thaw}. */
  synchronized void freeze() {
    if (thawed == null) thawed = new CountDownLatch(1);
  }

  /** Lets every frozen exchange go on. */
  synchronized void thaw() {
    CountDownLatch t = thawed;
    thawed = null;
    if (t != null) t.countDown();
  }

  /** Blocks while the replica is frozen; throws {@link Abort} if it closes meanwhile. */
  void awaitThawed() {
    CountDownLatch t = thawed;
    if (t == null) return;
    try {
      // Closing ends the wait too: look at it every 10 ms (a test's close is never that hurried).
      while (!t.await(10, TimeUnit.MILLISECONDS)) {
        if (isClosing()) throw new Abort();
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new Abort();
    }
  }

  /**
   * Sleeps {@code nanos} (capped), or throws {@link Abort} if the replica is or becomes closed;
   * waits first while the replica is frozen.
   */
  void pause(long nanos) {
    awaitThawed();
    if (nanos <= 0) {
      if (isClosing()) throw new Abort();
      return;
    }
    try {
      if (closing.await(Math.min(nanos, MAX_PAUSE_NANOS), TimeUnit.NANOSECONDS)) throw new Abort();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new Abort();
    }
  }

  /**
   * Sleeps until {@code System.nanoTime()} reaches {@code deadline}, so that a sequence of
   * waits keeps a steady rate instead of adding up each one's oversleep.
   */
  void pauseUntil(long deadline) {
    pause(deadline - System.nanoTime());
  }

  /** The replica stopped accepting connections: it answers nothing more. */
  volatile boolean stopped;

  /** Blocks until the replica closes (a hung request), then aborts the exchange. */
  void awaitClose() {
    try {
      closing.await();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    throw new Abort();
  }

  void close() {
    closing.countDown();
  }

  boolean isClosing() {
    return closing.getCount() == 0;
  }

  int waiting() {
    return waiting.get();
  }

  int running() {
    return running.get();
  }

  EmulatedReplicaStats stats(long faultsInjected) {
    return new EmulatedReplicaStats(id, chatRequests.sum(), completionRequests.sum(),
        embeddingRequests.sum(), modelsRequests.sum(), healthRequests.sum(), metricsRequests.sum(),
        completed.sum(), faultsInjected, promptChars.sum(), cachedChars.sum(), waiting.get(),
        running.get(), cache.usedBlocks(), cache.capacity());
  }

  double cacheUsage() {
    return cache.capacity() == 0 ? 0.0 : (double) cache.usedBlocks() / cache.capacity();
  }

  /** The {@code endpoint-load-metrics} header value vLLM sends when asked for the TEXT format. */
  String loadMetricsHeader() {
    return "TEXT named_metrics.kv_cache_usage_perc=" + number(cacheUsage())
        + ", named_metrics.num_requests_waiting=" + waiting.get()
        + ", named_metrics.num_requests_running=" + running.get();
  }

  /** The {@code endpoint-load-metrics} value in the JSON form (ORCA's JSON mapping). */
  String loadMetricsJson() {
    return "JSON {\"named_metrics\":{\"kv_cache_usage_perc\":" + number(cacheUsage())
        + ",\"num_requests_waiting\":" + waiting.get() + ",\"num_requests_running\":"
        + running.get() + "}}";
  }

  /**
   * Prometheus text exposition (format 0.0.4) shaped like vLLM v1's: the same names, HELP and
   * TYPE lines, {@code engine} and {@code model_name} labels, and {@code _created} samples for
   * counters, so a scraper tested against this parses the real thing.
   */
  String metricsText() {
    return metrics == EmulatedReplica.Metrics.SGLANG ? sglangMetricsText() : vllmMetricsText();
  }

  /** SGLang's names: one series per metric, labelled with the model name only. */
  private String sglangMetricsText() {
    String labels = "{model_name=\"" + escapeLabel(models.get(0)) + "\"}";
    StringBuilder s = new StringBuilder(1024);
    gauge(s, "sglang:num_running_reqs", "The number of running requests.", labels, running.get());
    gauge(s, "sglang:num_queue_reqs", "The number of requests in the waiting queue.", labels,
        waiting.get());
    gauge(s, "sglang:token_usage", "The token usage.", labels, cacheUsage());
    gauge(s, "sglang:max_total_num_tokens", "Maximum total number of tokens in the KV cache pool.",
        labels, (double) cache.capacity() * tokens(cache.blockChars()));
    long count = admitted.sum();
    histogram(s, "sglang:queue_time_seconds", "Histogram of queueing time in seconds.", labels,
        "{le=\"+Inf\",model_name=\"" + escapeLabel(models.get(0)) + "\"}", count,
        queueNanos.sum() / 1e9);
    return s.toString();
  }

  private String vllmMetricsText() {
    String labels = "{engine=\"0\",model_name=\"" + escapeLabel(models.get(0)) + "\"}";
    StringBuilder s = new StringBuilder(1024);
    gauge(s, "vllm:num_requests_running", "Number of requests in model execution batches.",
        labels, running.get());
    gauge(s, "vllm:num_requests_waiting", "Number of requests waiting to be processed.", labels,
        waiting.get());
    gauge(s, "vllm:kv_cache_usage_perc", "KV-cache usage. 1 means 100 percent usage.", labels,
        cacheUsage());
    // vLLM's configuration info: labels carry the cache's size, the value is always 1.
    gauge(s, "vllm:cache_config_info", "Information of the LLMEngine CacheConfig",
        "{block_size=\"" + tokens(cache.blockChars()) + "\",engine=\"0\",num_gpu_blocks=\""
            + cache.capacity() + "\"}", 1);
    counter(s, "vllm:prefix_cache_queries",
        "Prefix cache queries, in terms of number of queried tokens.", labels,
        queriedTokens.sum());
    counter(s, "vllm:prefix_cache_hits", "Prefix cache hits, in terms of number of cached tokens.",
        labels, hitTokens.sum());
    // Read the count first: a request admitted between the two reads then adds to the sum only,
    // which errs towards a longer wait rather than a division by a count the sum lacks.
    long count = admitted.sum();
    histogram(s, "vllm:request_queue_time_seconds",
        "Histogram of time spent in WAITING phase for request.", labels,
        "{engine=\"0\",le=\"+Inf\",model_name=\"" + escapeLabel(models.get(0)) + "\"}", count,
        queueNanos.sum() / 1e9);
    EmulatedLoras l = loras;
    if (l != null) {
      // vLLM's adapter info: labels carry the adapters, the value is when they last changed.
      gauge(s, "vllm:lora_requests_info", "Running stats on lora requests.",
          "{max_lora=\"" + l.maxLoras + "\",running_lora_adapters=\""
              + escapeLabel(String.join(",", l.running())) + "\",waiting_lora_adapters=\"\"}",
          System.currentTimeMillis() / 1000.0);
    }
    return s.toString();
  }

  /** A histogram of one +Inf bucket: what a scraper reads of it is its count and sum. */
  private static void histogram(StringBuilder s, String name, String help, String labels,
      String bucketLabels, long count, double sum) {
    s.append("# HELP ").append(name).append(' ').append(help).append('\n');
    s.append("# TYPE ").append(name).append(" histogram\n");
    s.append(name).append("_bucket").append(bucketLabels).append(' ').append(number(count))
        .append('\n');
    s.append(name).append("_count").append(labels).append(' ').append(number(count)).append('\n');
    s.append(name).append("_sum").append(labels).append(' ').append(number(sum)).append('\n');
  }

  private static void gauge(StringBuilder s, String name, String help, String labels, double v) {
    s.append("# HELP ").append(name).append(' ').append(help).append('\n');
    s.append("# TYPE ").append(name).append(" gauge\n");
    s.append(name).append(labels).append(' ').append(number(v)).append('\n');
  }

  private void counter(StringBuilder s, String name, String help, String labels, double v) {
    s.append("# HELP ").append(name).append("_total ").append(help).append('\n');
    s.append("# TYPE ").append(name).append("_total counter\n");
    s.append(name).append("_total").append(labels).append(' ').append(number(v)).append('\n');
    s.append(name).append("_created").append(labels).append(' ')
        .append(String.format(Locale.ROOT, "%.3f", createdEpochMillis / 1000.0)).append('\n');
  }

  /** Formats like Python's prometheus_client: {@code 3.0}, {@code 0.25}, never {@code 1.0E7}. */
  static String number(double v) {
    if (v == Math.rint(v) && Math.abs(v) < 1e15) return (long) v + ".0";
    return BigDecimal.valueOf(v).toPlainString();
  }

  private static String escapeLabel(String v) {
    return v.replace("\\", "\\\\").replace("\"", "\\\"").replace("\n", "\\n");
  }

  /**
   * Ends an exchange without a (complete) response. Thrown out of the HTTP handler on purpose:
   * the JDK server then closes the socket as is, with no status line or no terminating chunk,
   * which is exactly what a crashed or reset replica looks like to a client.
   */
  static final class Abort extends RuntimeException {
    Abort() {
      super("emulated abort", null, false, false);
    }
  }
}
