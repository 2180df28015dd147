package io.github.llmrouter.internal.transport;

import static java.util.Objects.requireNonNull;

import io.github.llmrouter.api.Ticker;
import io.github.llmrouter.internal.load.AdapterActivity;
import io.github.llmrouter.internal.load.DialectReader;
import io.github.llmrouter.internal.load.ParsedMetrics;
import io.github.llmrouter.internal.load.PrometheusText;
import io.github.llmrouter.load.LoadMonitoring;
import io.github.llmrouter.load.LoadReport;
import io.github.llmrouter.replica.Replica;
import io.github.llmrouter.replica.ReplicaSet;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.net.ConnectException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Supplier;
import okhttp3.Call;
import okhttp3.Callback;
import okhttp3.Dispatcher;
import okhttp3.OkHttpClient;
import okhttp3.Request;
import okhttp3.Response;
import okio.BufferedSource;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Scrapes every replica's Prometheus {@code /metrics} on a jittered interval, off the request
 * path, and publishes what the configured {@code EngineDialect} reads from it to the {@link
 * LoadReportSink}. Thread-safe.
 *
 * <p>Lives in {@code transport} because it does HTTP; parsing, dialects and staleness are {@code
 * load}'s. It uses a client derived from the router's OkHttp client (same connection pool,
 * threads, TLS and interceptors) with the scrape timeout as its whole-call timeout, and its own
 * OkHttp dispatcher so that scrapes never take the request limit's slots. One daemon thread
 * schedules rounds; the exchanges run asynchronously, one at a time per replica (a replica whose
 * previous scrape has not finished is skipped for the round).
 *
 * <p>Nothing here throws into a call or stops the schedule: a failed exchange, a non-2xx status,
 * or a body the dialect cannot read counts as a failure and publishes nothing; malformed lines
 * are skipped and counted. A failed scrape never takes a replica out by itself: only one that
 * cannot connect (refused), or one that a new connection still gets no answer from within the
 * replica's stall bound (stopped answering), tells the sink so.
 */
public final class LoadScraper implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(LoadScraper.class);
  /**
   * Largest metrics body read: 4 MiB (vLLM with many LoRA adapters stays well below). Reading stops
   * there: the exchange is cancelled, so the rest is neither read nor drained, and the scrape
   * counts as failed.
   */
  static final long MAX_BODY_BYTES = 4L << 20;

  /** Failed scrapes in a row after which a replica's failures are logged at WARN. */
  static final int PERSISTENT_FAILURES = 3;

  private final OkHttpClient http;
  /**
   * The scrape client without a connection pool: a scrape that timed out on a pooled connection
   * is tried again on a fresh one, which a stopped replica refuses at once while its open
   * connections just hang.
   */
  private final OkHttpClient unpooled;
  /**
   * The unpooled client without read or whole-call timeouts: a probe's timeout is set per call,
   * to its replica's stall bound.
   */
  private final OkHttpClient probeClient;
  private final @Nullable String authorization;
  private final LoadMonitoring config;
  private final Ticker ticker;
  private final Supplier<ReplicaSet> replicas;
  private final LoadReportSink sink;
  private final Set<String> inProgress = ConcurrentHashMap.newKeySet();
  /** Replicas with a probe in flight: scraped on new connections until it ends. */
  private final Set<String> probes = ConcurrentHashMap.newKeySet();
  private final LongAdder scrapes = new LongAdder();
  private final LongAdder failures = new LongAdder();
  private final LongAdder malformedLines = new LongAdder();
  private final AtomicBoolean closed = new AtomicBoolean();
  /** Per replica whose scrapes fail: how many in a row. */
  private final ConcurrentHashMap<String, Integer> failing = new ConcurrentHashMap<>();
  /** Persistent failures are logged at WARN once a minute at most, across replicas. */
  private final RateLimitedLog failingLog;
  private @Nullable ScheduledExecutorService scheduler;

  /**
   * @param base the router's OkHttp client, from which the scrape client is derived
   * @param apiKey sent as a bearer token, as with requests (an auth proxy may guard /metrics)
   * @param replicas the current fleet, asked for at every round
   */
  public LoadScraper(OkHttpClient base, @Nullable String apiKey, LoadMonitoring config,
      Ticker ticker, Supplier<ReplicaSet> replicas, LoadReportSink sink) {
    this.config = requireNonNull(config, "config");
    long timeoutMs = config.scrapeTimeout().toMillis();
    this.http = requireNonNull(base, "base").newBuilder()
        .dispatcher(new Dispatcher(base.dispatcher().executorService()))
        .callTimeout(timeoutMs, TimeUnit.MILLISECONDS)
        .connectTimeout(timeoutMs, TimeUnit.MILLISECONDS)
        .readTimeout(timeoutMs, TimeUnit.MILLISECONDS)
        .build();
    this.unpooled = OkHttpClients.unpooled(http);
    this.probeClient = unpooled.newBuilder().readTimeout(Duration.ZERO).callTimeout(Duration.ZERO)
        .build();
    this.authorization = apiKey == null ? null : "Bearer " + apiKey;
    this.ticker = requireNonNull(ticker, "ticker");
    this.replicas = requireNonNull(replicas, "replicas");
    this.sink = requireNonNull(sink, "sink");
    this.failingLog = new RateLimitedLog(ticker, RateLimitedLog.MINUTE_NANOS);
  }

  /** Starts scraping on a daemon thread; the first round comes after 0.5 to 1.5 intervals. */
  public synchronized void start() {
    if (scheduler != null || closed.get()) return;
    ScheduledThreadPoolExecutor s =
        new ScheduledThreadPoolExecutor(1, DaemonThreads.named("llm-router-load-scraper"));
    s.setRemoveOnCancelPolicy(true);
    scheduler = s;
    long interval = config.scrapeInterval().toNanos();
    // The first round within [0.5, 1.5) intervals: clients started together do not scrape in
    // lockstep, and nothing is scraped in the first half interval (a test can script a fleet).
    schedule((long) (interval * (0.5 + ThreadLocalRandom.current().nextDouble())));
  }

  private void schedule(long delayNanos) {
    ScheduledExecutorService s = scheduler;
    if (s == null || closed.get()) return;
    try {
      s.schedule(this::round, delayNanos, TimeUnit.NANOSECONDS);
    } catch (java.util.concurrent.RejectedExecutionException shutDown) {
      // closed meanwhile
    }
  }

  private void round() {
    try {
      scrapeAll();
    } catch (RuntimeException e) {
      log.warn("load scrape round failed; continuing", e); // must never end the schedule
    } finally {
      double j = config.scrapeJitter() * (2 * ThreadLocalRandom.current().nextDouble() - 1);
      schedule((long) (config.scrapeInterval().toNanos() * (1 + j)));
    }
  }

  /**
   * Scrapes every replica of the current fleet once, now; the future completes when every
   * exchange has finished (successfully or not). For tests and for a caller that wants fresh
   * reports before a burst.
   */
  public CompletableFuture<Void> scrapeAll() {
    List<CompletableFuture<Void>> all = new ArrayList<>();
    ReplicaSet fleet = replicas.get();
    for (Replica r : fleet.replicas()) all.add(scrape(r));
    // Replicas that left take their failure streaks with them.
    if (!failing.isEmpty()) failing.keySet().removeIf(id -> fleet.indexOf(id) < 0);
    return CompletableFuture.allOf(all.toArray(new CompletableFuture<?>[0]));
  }

  /**
   * After a scrape failed without saying whether anything listens (a timeout, a dead pooled
   * connection), asks again on a fresh connection, waiting up to the replica's stall bound:
   * refused means the replica is gone, no answer that it stopped answering, any answer that it is
   * there. The scrape counts as failed either way; {@code done} completes when the probe has.
   * Meanwhile the next rounds scrape the replica again, on new connections with the scrape
   * timeout, so that one that starts refusing connections is seen at once.
   */
  private void probe(Replica replica, Request request, IOException first,
      CompletableFuture<Void> done) {
    Call call = probeClient.newCall(request);
    long bound = sink.stallBoundNanos(replica);
    call.timeout().timeout(bound > 0 ? bound : config.scrapeTimeout().toNanos(),
        TimeUnit.NANOSECONDS);
    long sent = ticker.read();
    call.enqueue(new Callback() {
      @Override
      public void onFailure(Call c, IOException e) {
        if (e instanceof ConnectException) {
          sink.refused(replica, "load scrape: " + e);
        } else if (e instanceof InterruptedIOException && !closed.get()) {
          sink.timedOut(replica, "load scrape (" + e.getClass().getSimpleName() + ")");
        }
        probes.remove(replica.id());
        counted(replica, first.toString(), done);
      }

      @Override
      public void onResponse(Call c, Response response) {
        response.close();
        sink.reached(replica, ticker.read() - sent);
        probes.remove(replica.id());
        counted(replica, first.toString(), done);
      }
    });
  }

  /** Scrapes one replica; completes (never exceptionally) when the exchange has finished. */
  CompletableFuture<Void> scrape(Replica replica) {
    CompletableFuture<Void> done = new CompletableFuture<>();
    if (closed.get() || !inProgress.add(replica.id())) {
      done.complete(null);
      return done;
    }
    Call call;
    boolean fresh;
    try {
      Request.Builder request = new Request.Builder()
          .url(replica.url(config.metricsPath()))
          .header("Accept", "text/plain;version=0.0.4;q=0.9, */*;q=0.1");
      if (authorization != null) request.header("Authorization", authorization);
      for (Map.Entry<String, String> h : replica.headers().entrySet()) {
        request.header(h.getKey(), h.getValue());
      }
      // A replica out for being unreachable, or being probed, is scraped on a new connection: an
      // answer on one it had open proves nothing about whether it accepts connections.
      fresh = sink.awaitsReach(replica) || probes.contains(replica.id());
      call = (fresh ? unpooled : http).newCall(request.build());
    } catch (RuntimeException e) {
      // Only the type: OkHttp's message about a bad header would show its value.
      failed(replica, "request not built (" + e.getClass().getSimpleName() + ")", done);
      return done;
    }
    long sent = ticker.read();
    call.enqueue(new Callback() {
      @Override
      public void onFailure(Call c, IOException e) {
        if (e instanceof ConnectException) sink.refused(replica, "load scrape: " + e);
        boolean timedOut = e instanceof InterruptedIOException && !closed.get();
        if (timedOut && fresh) {
          sink.timedOut(replica, "load scrape (" + e.getClass().getSimpleName() + ")");
        }
        if ((e instanceof ConnectionReuse.StaleConnection || timedOut)
            && probes.add(replica.id())) {
          inProgress.remove(replica.id());
          probe(replica, c.request(), e, done);
          return;
        }
        failed(replica, e.toString(), done);
      }

      @Override
      public void onResponse(Call c, Response response) {
        sink.reached(replica, ticker.read() - sent);
        try (response) {
          if (!response.isSuccessful()) {
            failed(replica, "HTTP " + response.code(), done);
            return;
          }
          String body = readCapped(c, response);
          if (body == null) {
            failed(replica, "metrics body larger than " + MAX_BODY_BYTES + " bytes", done);
            return;
          }
          ParsedMetrics metrics = PrometheusText.parse(body);
          malformedLines.add(metrics.malformedLines());
          LoadReport report =
              DialectReader.read(config.dialect(), metrics, config.modelName(), ticker.read());
          if (report == null) {
            failed(replica, "no " + config.dialect().name() + " queue metric in the body", done);
            return;
          }
          scrapes.increment();
          recovered(replica);
          sink.report(replica, report);
          AdapterActivity adapters = AdapterActivity.of(metrics);
          if (adapters != null) sink.adapters(replica, adapters);
          inProgress.remove(replica.id());
          done.complete(null);
        } catch (IOException | RuntimeException e) {
          failed(replica, e.toString(), done);
        }
      }
    });
    return done;
  }

  /**
   * The body as UTF-8, or null if it is longer than {@link #MAX_BODY_BYTES}: then the call is
   * cancelled first, so that closing the response neither reads nor drains what is left (OkHttp
   * would otherwise discard the rest to keep the connection).
   */
  private static @Nullable String readCapped(Call call, Response response) throws IOException {
    BufferedSource source = response.body().source();
    if (source.request(MAX_BODY_BYTES + 1)) {
      call.cancel();
      return null;
    }
    return source.readUtf8();
  }

  private void failed(Replica replica, String why, CompletableFuture<Void> done) {
    inProgress.remove(replica.id());
    counted(replica, why, done);
  }

  /** Counts and logs a failed scrape and completes {@code done}. */
  private void counted(Replica replica, String why, CompletableFuture<Void> done) {
    failures.increment();
    log.debug("scraping {} failed: {}", replica.id(), why);
    int inARow = failing.merge(replica.id(), 1, Integer::sum);
    if (inARow >= PERSISTENT_FAILURES) {
      long held = failingLog.permit();
      if (held >= 0) {
        log.warn("scraping {} has failed {} times in a row, its load reports go stale: {}{}",
            replica.id(), inARow, why, held == 0 ? "" : " (" + held + " more held back)");
      }
    }
    done.complete(null);
  }

  /** A scrape of {@code replica} succeeded: says so if it had kept failing. */
  private void recovered(Replica replica) {
    Integer inARow = failing.remove(replica.id());
    if (inARow != null && inARow >= PERSISTENT_FAILURES) {
      log.info("scraping {} works again after {} failures", replica.id(), inARow);
    }
  }

  /** Successful scrapes so far. */
  long scrapes() {
    return scrapes.sum();
  }

  /** Failed scrapes so far (exchange failed, non-2xx, or no readable queue metric). */
  public long failures() {
    return failures.sum();
  }

  /** Malformed metrics lines skipped so far. */
  public long malformedLines() {
    return malformedLines.sum();
  }

  /** Stops scraping; exchanges in progress finish and are discarded. Idempotent. */
  @Override
  public synchronized void close() {
    if (!closed.compareAndSet(false, true)) return;
    if (scheduler != null) scheduler.shutdownNow();
  }
}
