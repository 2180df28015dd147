package io.github.llmrouter.internal.health;

import static java.util.Objects.requireNonNull;

import io.github.llmrouter.api.Ticker;
import io.github.llmrouter.internal.transport.OkHttpClients;
import io.github.llmrouter.internal.transport.PerReplica;
import io.github.llmrouter.replica.HealthCheck;
import io.github.llmrouter.replica.Replica;
import io.github.llmrouter.replica.ReplicaSet;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.net.ConnectException;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import okhttp3.Call;
import okhttp3.Callback;
import okhttp3.OkHttpClient;
import okhttp3.Request;
import okhttp3.Response;
import org.jspecify.annotations.Nullable;

/**
 * Runs the active health checks a {@link HealthCheck} configures: polls every replica's health
 * endpoint on the client's scheduler and reports flips to the {@link StatusTracker}. One probe per
 * replica id; a probe's next check is scheduled only when the previous one has finished, so a slow
 * replica never has two checks in flight, and checks run on OkHttp's threads, never on a
 * request's. Thread-safe.
 */
public final class HealthProber implements AutoCloseable {
  private final HealthCheck config;
  private final OkHttpClient http;
  private final StatusTracker tracker;
  private final Ticker ticker;
  private final Supplier<ScheduledExecutorService> scheduler;
  private final SplittableRandom random; // guarded by this
  private final PerReplica<Probe> probes = new PerReplica<>(); // guarded by this
  private boolean closed; // guarded by this

  /**
   * A prober with no replica to check yet (see {@link #update}).
   *
   * @param config what to check, how often, and when a replica flips
   * @param http the client's OkHttp client; each check gets {@link HealthCheck#timeout()} as its
   *     whole-call timeout, and a connection of its own: a replica that stopped refuses a new
   *     connection at once, while an open one may just hang
   * @param tracker receives the flips, and whether checks are answered at all
   * @param ticker times the answers (a slow one raises the replica's stall bound)
   * @param scheduler where checks wait for their turn; asked for lazily
   * @param seed seeds the jitter
   */
  public HealthProber(HealthCheck config, OkHttpClient http, StatusTracker tracker, Ticker ticker,
      Supplier<ScheduledExecutorService> scheduler, long seed) {
    this.config = requireNonNull(config, "config");
    this.http = OkHttpClients.unpooled(requireNonNull(http, "http"));
    this.tracker = requireNonNull(tracker, "tracker");
    this.ticker = requireNonNull(ticker, "ticker");
    this.scheduler = requireNonNull(scheduler, "scheduler");
    this.random = new SplittableRandom(seed);
  }

  /** Starts probes for replicas that joined, stops those of replicas that left. */
  public synchronized void update(ReplicaSet replicas) {
    if (closed) return;
    for (Probe p : probes.update(replicas, r -> true, Probe::new)) {
      // The first check at a random point of the first interval spreads a fleet's checks out.
      p.schedule((long) (random.nextDouble() * config.interval().toNanos()));
    }
  }

  @Override
  public synchronized void close() {
    closed = true;
    probes.stopAll();
  }

  private synchronized long nextDelayNanos() {
    double spread = config.jitter() * (2 * random.nextDouble() - 1);
    return (long) (config.interval().toNanos() * (1 + spread));
  }

  /** The checks of one replica. */
  private final class Probe extends PerReplica.Task implements Callback {
    private final Request request;
    private volatile long sentAt;
    // Touched by one check at a time: the next is scheduled only after this one ends.
    private int passed;
    private int failed;

    Probe(Replica replica) {
      super(replica);
      Request.Builder b = new Request.Builder().url(replica.url(config.path())).get();
      for (Map.Entry<String, String> h : replica.headers().entrySet()) b.header(h.getKey(), h.getValue());
      this.request = b.build();
    }

    void schedule(long delayNanos) {
      schedule(scheduler, this::check, delayNanos);
    }

    void check() {
      if (stopped()) return;
      Call call = http.newCall(request);
      call.timeout().timeout(config.timeout().toNanos(), TimeUnit.NANOSECONDS);
      sentAt = ticker.read();
      send(call, this);
    }

    @Override
    public void onResponse(Call call, Response response) {
      int status;
      try (response) {
        status = response.code();
      }
      // Whatever it answered, something listens there.
      tracker.reached(replica().id(), ticker.read() - sentAt);
      if (status >= 200 && status < 300) passed("HTTP " + status);
      else failed("HTTP " + status);
    }

    @Override
    public void onFailure(Call call, IOException e) {
      if (stopped()) return;
      String what = e.getClass().getSimpleName() + (e.getMessage() == null ? "" : " ("
          + e.getMessage() + ")");
      if (e instanceof ConnectException) {
        tracker.refused(replica().id(), "health check: " + what);
      } else if (e instanceof InterruptedIOException) {
        tracker.timedOut(replica().id(), "health check: " + what);
      }
      failed(what);
    }

    private void passed(String what) {
      failed = 0;
      if (++passed >= config.healthyThreshold()) {
        tracker.setHealthy(replica().id(), true, passed + " passed checks, last: " + what);
      }
      schedule(nextDelayNanos());
    }

    private void failed(String what) {
      passed = 0;
      if (++failed >= config.unhealthyThreshold()) {
        tracker.setHealthy(replica().id(), false, failed + " failed checks, last: " + what);
      }
      schedule(nextDelayNanos());
    }

  }
}
