package io.github.llmrouter.internal.transport;

import static java.util.Objects.requireNonNull;

import io.github.llmrouter.api.Ticker;
import io.github.llmrouter.replica.Replica;
import io.github.llmrouter.replica.ReplicaSet;
import java.io.IOException;
import java.time.Duration;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
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
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;

/**
 * Asks every replica that declares no models which models it serves ({@code GET /v1/models}, the
 * OpenAI list every engine answers: vLLM with its LoRA adapters, SGLang, TGI, llama.cpp with its
 * aliases), off the request path, and hands the answers to a {@link ModelListingSink}. A replica
 * is asked as soon as it joins, then every interval (jittered ±20%); a failed listing is asked
 * again after 0.5 s, doubling up to the interval; {@link #relistAll()} asks every replica at once
 * (at most once a second). One listing in flight per replica; each has {@link #LISTING_TIMEOUT}.
 * Listings run on OkHttp's threads and wait on the client's scheduler. Thread-safe.
 *
 * <p>Nothing here throws into a call or stops the polls: a failed exchange, a non-2xx status or a
 * body that is not a model list is told to the sink as a failed listing and logged at DEBUG.
 */
public final class ModelDiscovery implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(ModelDiscovery.class);
  /** The whole-call timeout of one listing, which also bounds a first call's wait for it. */
  public static final Duration LISTING_TIMEOUT = Duration.ofSeconds(2);
  /** Largest listing read: 1 MiB (thousands of adapters); a longer one counts as failed. */
  static final long MAX_BODY_BYTES = 1L << 20;
  /** Model names kept per replica; the rest of a longer list is ignored. */
  static final int MAX_MODELS = 4096;
  private static final long FIRST_RETRY_NANOS = TimeUnit.MILLISECONDS.toNanos(500);
  private static final long RELIST_GAP_NANOS = TimeUnit.SECONDS.toNanos(1);
  private static final double JITTER = 0.2;

  private final OkHttpClient http;
  private final @Nullable String authorization;
  private final long intervalNanos;
  private final Ticker ticker;
  private final Supplier<ScheduledExecutorService> scheduler;
  private final ModelListingSink sink;
  private final SplittableRandom random; // guarded by this
  private final PerReplica<Poll> polls = new PerReplica<>(); // guarded by this
  /** Lets {@link #relistAll()} ask every replica once a second at most. */
  private final RateLimitedLog relists;
  private boolean closed; // guarded by this

  /**
   * A discovery with no replica to ask yet (see {@link #update}).
   *
   * @param base the router's OkHttp client (same pool, threads, TLS, interceptors; its own OkHttp
   *     dispatcher); each listing gets {@link #LISTING_TIMEOUT} as its whole-call timeout
   * @param apiKey sent as a bearer token, as with requests (vLLM guards {@code /v1/models} with it)
   * @param interval how often each replica is asked again, > 0
   * @param scheduler where listings wait for their turn; asked for lazily
   * @param seed seeds the jitter
   */
  public ModelDiscovery(OkHttpClient base, @Nullable String apiKey, Duration interval,
      Ticker ticker, Supplier<ScheduledExecutorService> scheduler, ModelListingSink sink,
      long seed) {
    // An OkHttp dispatcher of its own: listings never take the request limit's slots.
    this.http = requireNonNull(base, "base").newBuilder()
        .dispatcher(new Dispatcher(base.dispatcher().executorService()))
        .callTimeout(LISTING_TIMEOUT).connectTimeout(LISTING_TIMEOUT).readTimeout(LISTING_TIMEOUT)
        .build();
    this.authorization = apiKey == null ? null : "Bearer " + apiKey;
    this.intervalNanos = interval.toNanos();
    this.ticker = requireNonNull(ticker, "ticker");
    this.scheduler = requireNonNull(scheduler, "scheduler");
    this.sink = requireNonNull(sink, "sink");
    this.random = new SplittableRandom(seed);
    this.relists = new RateLimitedLog(ticker, RELIST_GAP_NANOS);
  }

  /**
   * Asks replicas that joined at once and stops asking those that left; replicas that declare
   * their models are never asked.
   */
  public synchronized void update(ReplicaSet replicas) {
    if (closed) return;
    for (Poll p : polls.update(replicas, r -> r.models().isEmpty(), Poll::new)) p.listNow();
  }

  /**
   * Asks every replica again now (one whose listing is in flight keeps it): after an answer that
   * said a model is unknown. At most once a second; later calls within the second do nothing.
   */
  public void relistAll() {
    if (relists.permit() < 0) return;
    List<Poll> all;
    synchronized (this) {
      if (closed) return;
      all = polls.all();
    }
    for (Poll p : all) p.listNow();
  }

  /**
   * Asks one replica again now (one whose listing is in flight keeps it), at most once a second
   * per replica: after it loaded a model on demand, which may have unloaded another.
   */
  public void relist(String replicaId) {
    Poll p;
    synchronized (this) {
      if (closed) return;
      p = polls.get(replicaId);
    }
    if (p != null) p.relistNow();
  }

  @Override
  public synchronized void close() {
    closed = true;
    polls.stopAll();
  }

  private synchronized long jittered(long nanos) {
    return (long) (nanos * (1 + JITTER * (2 * random.nextDouble() - 1)));
  }

  /**
   * The models in an OpenAI model list: every {@code data[].id}, and the {@code aliases}
   * llama.cpp's server adds, those whose {@code status.value} is other than {@code loaded} (a
   * router-mode llama.cpp server's) as not loaded, and those with a {@code parent} (vLLM's LoRA
   * adapters) as adapters of it; null if {@code body} is not such a list.
   */
  static @Nullable ModelList parse(String body) {
    JsonNode root;
    try {
      root = Json.MAPPER.readTree(body);
    } catch (JacksonException e) {
      return null;
    }
    if (root == null || !root.path("data").isArray()) return null;
    Set<String> models = new LinkedHashSet<>();
    Set<String> unloaded = new LinkedHashSet<>();
    Map<String, String> parents = new HashMap<>();
    for (JsonNode item : root.path("data")) {
      JsonNode status = item.path("status").path("value");
      boolean loaded = !status.isString() || status.stringValue().equals("loaded");
      JsonNode id = item.path("id");
      add(models, loaded ? null : unloaded, id);
      JsonNode parent = item.path("parent");
      if (parent.isString() && !parent.stringValue().isEmpty() && id.isString()
          && models.contains(id.stringValue()) && !parent.stringValue().equals(id.stringValue())) {
        parents.put(id.stringValue(), parent.stringValue());
      }
      for (JsonNode alias : item.path("aliases")) add(models, loaded ? null : unloaded, alias);
    }
    return new ModelList(models, unloaded, parents);
  }

  private static void add(Set<String> models, @Nullable Set<String> unloaded, JsonNode name) {
    if (name.isString() && !name.stringValue().isEmpty() && models.size() < MAX_MODELS) {
      models.add(name.stringValue());
      if (unloaded != null) unloaded.add(name.stringValue());
    }
  }

  /** The listings of one replica: one in flight at a time, the next scheduled when it ends. */
  private final class Poll extends PerReplica.Task implements Callback {
    private final Request request;
    private final AtomicBoolean busy = new AtomicBoolean();
    /** Lets {@link #relistNow()} list this replica once a second at most. */
    private final RateLimitedLog relists = new RateLimitedLog(ticker, RELIST_GAP_NANOS);
    /** Failed listings in a row; touched by one listing at a time. */
    private int failures;

    Poll(Replica replica) {
      super(replica);
      Request.Builder b = new Request.Builder().url(replica.url("/v1/models")).get();
      if (authorization != null) b.header("Authorization", authorization);
      for (Map.Entry<String, String> h : replica.headers().entrySet()) {
        b.header(h.getKey(), h.getValue());
      }
      this.request = b.build();
    }

    /** {@link #listNow()}, unless this replica was relisted less than a second ago. */
    void relistNow() {
      if (relists.permit() >= 0) listNow();
    }

    /** Sends a listing now unless one is in flight; the scheduled one is withdrawn. */
    void listNow() {
      if (stopped() || !busy.compareAndSet(false, true)) return;
      unschedule();
      send(http.newCall(request), this);
    }

    private void schedule(long delayNanos) {
      busy.set(false);
      schedule(scheduler, this::listNow, delayNanos);
    }

    @Override
    public void onResponse(Call call, Response response) {
      ModelList models = null;
      String why = null;
      try (response) {
        if (!response.isSuccessful()) {
          why = "HTTP " + response.code();
        } else {
          BufferedSource source = response.body().source();
          if (source.request(MAX_BODY_BYTES + 1)) {
            call.cancel(); // neither read nor drain the rest
            why = "listing longer than " + MAX_BODY_BYTES + " bytes";
          } else {
            models = parse(source.readUtf8());
            if (models == null) why = "not a model list";
          }
        }
      } catch (IOException | RuntimeException e) {
        why = e.getClass().getSimpleName();
      }
      ended(models, why);
    }

    @Override
    public void onFailure(Call call, IOException e) {
      ended(null, e.getClass().getSimpleName());
    }

    private void ended(@Nullable ModelList models, @Nullable String why) {
      if (stopped()) return;
      sink.listed(replica(), models);
      if (models != null) {
        failures = 0;
        schedule(jittered(intervalNanos));
        return;
      }
      log.debug("listing the models of {} failed: {}", replica().id(), why);
      long backoff = FIRST_RETRY_NANOS << Math.min(failures++, 20);
      schedule(jittered(Math.min(backoff, intervalNanos)));
    }

  }
}
