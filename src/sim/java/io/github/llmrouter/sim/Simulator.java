package io.github.llmrouter.sim;

import static java.util.Objects.requireNonNull;

import com.github.benmanes.caffeine.cache.Ticker;
import io.github.llmrouter.load.LoadReport;
import io.github.llmrouter.load.LocalLoad;
import io.github.llmrouter.replica.Replica;
import io.github.llmrouter.replica.ReplicaSet;
import io.github.llmrouter.routing.Hashing;
import io.github.llmrouter.routing.PromptBlocks;
import io.github.llmrouter.routing.Ranking;
import io.github.llmrouter.routing.ReplicaPicker;
import io.github.llmrouter.routing.RoutedAttempt;
import io.github.llmrouter.routing.RoutingRequest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * Replays a {@link Trace} against a fleet of modelled replicas once per policy, in virtual time, and
 * reports what each policy achieved. The policies are the library's own {@code RoutingPolicy}
 * implementations, called exactly as the client calls them: one picker per simulated client, ranked
 * with that client's own in-flight counts.
 *
 * <pre>{@code
 * Trace trace = MooncakeTraceReader.read(Path.of("mooncake_conversation_trace.jsonl"));
 * SimulationReport report = Simulator.builder().replicas(8).clients(1).build().run(trace);
 * System.out.println(report.toTable());
 * }</pre>
 *
 * <p><b>What a policy sees.</b> A trace has block ids, not text. Each request becomes a {@link
 * RoutingRequest} for model {@value #MODEL} whose prompt blocks are the trace's block ids, chained
 * ({@link PromptBlocks#ofBlockIds}: what a real client hashes from the prompt's text), whose prompt
 * text is a short text naming its first {@link Builder#keyBlocks(int) keyBlocks} block ids
 * (standing for the system prompt and first user message, which is what {@code PrefixHash}'s
 * default key hashes in a real client) and, with {@link Builder#sessionKeys(boolean)}, whose routing
 * key is the trace's session id. Policies never see the replicas' caches; only the oracle does.
 * What a client learns from answers reaches the policy as in production ({@link RoutedAttempt}): a
 * stream's first token when the replica emits it, the usage with its cached tokens when the
 * request completes, each at its virtual time.
 *
 * <p><b>Determinism.</b> A run depends only on the trace, the settings and the seed: policies run
 * in parallel, each on its own fleet in one thread.
 */
public final class Simulator {
  /** The model name of every simulated request: {@value}. */
  public static final String MODEL = "llama-3.1-8b";
  /** Default number of replicas: {@value}. */
  public static final int DEFAULT_REPLICAS = 8;
  /** Default number of independent routing clients: {@value}. */
  public static final int DEFAULT_CLIENTS = 1;
  /** Default number of leading prompt blocks that form the routing prompt: {@value}. */
  public static final int DEFAULT_KEY_BLOCKS = 2;
  /** Default TTFT service-level objective for goodput, seconds: {@value}. */
  public static final double DEFAULT_TTFT_SLO_SECONDS = 2.0;
  /** Default seed: {@value}. */
  public static final long DEFAULT_SEED = 1;
  /** Default interval at which each client scrapes every replica's load, seconds: {@value}. */
  public static final double DEFAULT_SCRAPE_INTERVAL_SECONDS = 1.0;

  private final int replicas;
  private final int clients;
  private final int keyBlocks;
  private final boolean sessionKeys;
  private final double ttftSloSeconds;
  private final long seed;
  private final EngineProfile profile;
  private final List<SimulatedPolicy> policies;
  private final int threads;
  private final double scrapeInterval;
  private final double staleAfter;
  private final double[] slowdown;

  private Simulator(Builder b) {
    this.replicas = b.replicas;
    this.clients = b.clients;
    this.keyBlocks = b.keyBlocks;
    this.sessionKeys = b.sessionKeys;
    this.ttftSloSeconds = b.ttftSloSeconds;
    this.seed = b.seed;
    this.profile = b.profile;
    this.policies = b.policies != null ? b.policies : SimulatedPolicy.standard(b.seed);
    this.threads = b.threads;
    this.scrapeInterval = b.scrapeInterval;
    this.staleAfter = b.staleAfter > 0 ? b.staleAfter : 3 * b.scrapeInterval;
    this.slowdown = new double[b.replicas];
    java.util.Arrays.fill(slowdown, 1.0);
    b.slowdowns.forEach((index, factor) -> slowdown[index] = factor);
  }

  public static Builder builder() {
    return new Builder();
  }

  /** Runs every policy on {@code trace} and reports them in policy order. */
  public SimulationReport run(Trace trace) {
    requireNonNull(trace, "trace");
    long started = System.nanoTime();
    Prepared prepared = prepare(trace);
    double ideal = HitRateReferences.ideal(trace, prepared.chains);
    long fleetBlocks = (long) replicas * Math.max(1, profile.cacheTokens() / trace.blockTokens());
    double fleet = HitRateReferences.fleetCapacity(trace, prepared.chains, fleetBlocks);

    List<RunOutcome> outcomes = new ArrayList<>();
    int n = Math.max(1, Math.min(threads, policies.size()));
    if (n == 1) {
      for (SimulatedPolicy p : policies) outcomes.add(runOne(p, trace, prepared, ideal));
    } else {
      ExecutorService pool = Executors.newFixedThreadPool(n, r -> {
        Thread t = new Thread(r, "simulator");
        t.setDaemon(true);
        return t;
      });
      try {
        List<Future<RunOutcome>> futures = new ArrayList<>();
        for (SimulatedPolicy p : policies) futures.add(pool.submit(() -> runOne(p, trace, prepared, ideal)));
        for (Future<RunOutcome> f : futures) outcomes.add(f.get());
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException("simulation interrupted", e);
      } catch (ExecutionException e) {
        Throwable c = e.getCause();
        if (c instanceof RuntimeException re) throw re;
        throw new IllegalStateException(c);
      } finally {
        pool.shutdownNow();
      }
    }
    List<PolicyResult> results = new ArrayList<>();
    List<double[]> ttfts = new ArrayList<>();
    for (RunOutcome o : outcomes) {
      results.add(o.result);
      ttfts.add(o.sortedTtfts);
    }
    String settings = trace.size() + " requests, " + replicas + " replicas, " + clients
        + (clients == 1 ? " client" : " clients") + ", keyBlocks " + keyBlocks
        + (sessionKeys ? " (+session ids)" : "") + ", " + profile.name() + ", TTFT SLO "
        + ttftSloSeconds + " s, seed " + seed
        + (scrapeInterval > 0 ? ", scrape every " + scrapeInterval + " s" : ", no load reports")
        + slowdownText();
    return new SimulationReport(settings, ideal, fleet, results, ttfts,
        (System.nanoTime() - started) / 1_000_000L);
  }

  private String slowdownText() {
    StringBuilder b = new StringBuilder();
    for (int r = 0; r < slowdown.length; r++) {
      if (slowdown[r] != 1.0) b.append(", replica-").append(r).append(' ').append(slowdown[r]).append("x slower");
    }
    return b.toString();
  }

  /** The engine profile of replica {@code r}: the fleet's, slowed down by its factor. */
  private EngineProfile profileOf(int r) {
    double f = slowdown[r];
    if (f == 1.0) return profile;
    return profile.toBuilder().name(profile.name() + " x" + f + " slower")
        .prefillTokensPerSecond(profile.prefillTokensPerSecond() / f)
        .decodeStepMillis(profile.decodeStepSeconds() * 1000 * f)
        .perSequenceMillis(profile.perSequenceSeconds() * 1000 * f)
        .build();
  }

  /** What every policy's run shares: block chains, routing requests and client assignment. */
  private static final class Prepared {
    long[][] chains;
    RoutingRequest[] routing;
    int[] clientOf;
    int[] outputBlocks;
  }

  private Prepared prepare(Trace trace) {
    int n = trace.size();
    Prepared p = new Prepared();
    p.chains = new long[n][];
    p.routing = new RoutingRequest[n];
    p.clientOf = new int[n];
    p.outputBlocks = new int[n];
    SplittableRandom random = new SplittableRandom(seed);
    int bt = trace.blockTokens();
    for (int i = 0; i < n; i++) {
      TraceRequest r = trace.requests().get(i);
      p.chains[i] = chain(r.blockIds());
      p.routing[i] = routingRequest(r, keyBlocks, sessionKeys, bt);
      p.clientOf[i] = clients == 1 ? 0 : random.nextInt(clients);
      p.outputBlocks[i] = (r.outputTokens() + bt - 1) / bt;
    }
    return p;
  }

  /** Chained block keys: key i covers ids 0..i, so only a whole matching prefix hits. */
  static long[] chain(long[] blockIds) {
    long[] chain = new long[blockIds.length];
    long h = 0x243F6A8885A308D3L;
    for (int i = 0; i < blockIds.length; i++) {
      h = Hashing.mix64(h * 0x9E3779B97F4A7C15L + blockIds[i]);
      chain[i] = h;
    }
    return chain;
  }

  /**
   * What a client knows of a trace request: its prompt blocks, chained from the trace's block ids;
   * a prompt text made of its leading block ids (the same text for the same leading blocks); and,
   * if asked for, its session id as an explicit key.
   */
  static RoutingRequest routingRequest(TraceRequest r, int keyBlocks, boolean sessionKeys,
      int blockTokens) {
    StringBuilder prompt = new StringBuilder("blocks");
    long[] ids = r.blockIds();
    for (int k = 0; k < Math.min(keyBlocks, ids.length); k++) prompt.append(':').append(ids[k]);
    return RoutingRequest.builder(MODEL).prompt(prompt.toString())
        .routingKey(sessionKeys ? r.sessionId() : null)
        .blocks(PromptBlocks.ofBlockIds(MODEL, ids, blockTokens, r.inputTokens()))
        .build();
  }

  private static final class RunOutcome {
    final PolicyResult result;
    final double[] sortedTtfts;

    RunOutcome(PolicyResult result, double[] sortedTtfts) {
      this.result = result;
      this.sortedTtfts = sortedTtfts;
    }
  }

  private RunOutcome runOne(SimulatedPolicy policy, Trace trace, Prepared prepared, double ideal) {
    List<Replica> list = new ArrayList<>(replicas);
    for (int i = 0; i < replicas; i++) {
      list.add(Replica.builder("http://replica-" + i + ".sim:8000").id("replica-" + i).build());
    }
    ReplicaSet set = ReplicaSet.of(list);
    // Each client routes on the client's own LoadView, aged on a virtual clock: the effective
    // queue, staleness, fleet-load and queue-wait rules are the production code's.
    VirtualTicker clock = new VirtualTicker();
    Duration staleAfter = Duration.ofNanos(Math.max(1, Math.round(this.staleAfter * 1e9)));
    LocalLoad[] loads = new LocalLoad[clients];
    ReplicaPicker[] pickers = new ReplicaPicker[clients];
    for (int c = 0; c < clients; c++) {
      loads[c] = LocalLoad.of(set, clock, staleAfter);
      if (!policy.isOracle()) pickers[c] = policy.newPolicy(c).newPicker(set);
    }
    // What answers tell the clients' policies, delivered in virtual-time order before each
    // arrival: a stream's first token, then the usage when the request completes.
    Feedback feedback = new Feedback();
    ReplicaEngine[] engines = new ReplicaEngine[replicas];
    for (int r = 0; r < replicas; r++) {
      engines[r] = new ReplicaEngine(profileOf(r), trace.blockTokens(), new ReplicaEngine.Completion() {
        @Override
        public void completed(Job j) {
          loads[j.client].counter(j.replica).release();
          feedback.add(j.finished, j, false);
        }

        @Override
        public void firstToken(Job j) {
          feedback.add(j.firstToken, j, true);
        }
      });
    }
    // Each client scrapes every replica once per interval, at its own phase: what it knows of a
    // queue is up to one interval old, as in a real deployment.
    double[] nextScrape = new double[clients];
    double origin = trace.size() == 0 ? 0 : trace.requests().get(0).arrivalSeconds();
    SplittableRandom phases = new SplittableRandom(seed ^ 0x5C4A9EL);
    for (int c = 0; c < clients; c++) {
      nextScrape[c] = scrapeInterval > 0 ? origin + phases.nextDouble() * scrapeInterval
          : Double.POSITIVE_INFINITY;
    }
    int n = trace.size();
    Job[] jobs = new Job[n];
    for (int i = 0; i < n; i++) {
      TraceRequest r = trace.requests().get(i);
      double t = r.arrivalSeconds();
      scrapeUntil(t, nextScrape, engines, loads, clock);
      for (ReplicaEngine e : engines) e.advanceTo(t);
      feedback.deliverUntil(t);
      clock.set(t);
      Job job = new Job(i, r, prepared.chains[i], prepared.outputBlocks[i], prepared.clientOf[i]);
      int target;
      if (policy.isOracle()) {
        target = oraclePick(engines, job, t);
      } else {
        Ranking ranking = pickers[job.client].rank(prepared.routing[i], loads[job.client]);
        target = ranking.next();
        if (target < 0 || target >= replicas) {
          throw new IllegalStateException(policy.name() + " returned replica index " + target);
        }
        job.attempt = ranking.sent(target, clock.read(), true);
      }
      job.replica = target;
      loads[job.client].counter(target).acquire();
      engines[target].submit(job, t);
      jobs[i] = job;
    }
    for (ReplicaEngine e : engines) e.drain();
    feedback.deliverUntil(Double.POSITIVE_INFINITY);
    return summarise(policy.name(), trace, jobs, ideal);
  }

  /** Runs every client scrape due up to time {@code t}, in time order. */
  private void scrapeUntil(double t, double[] nextScrape, ReplicaEngine[] engines,
      LocalLoad[] loads, VirtualTicker clock) {
    while (true) {
      int c = -1;
      for (int k = 0; k < nextScrape.length; k++) {
        if (nextScrape[k] <= t && (c < 0 || nextScrape[k] < nextScrape[c])) c = k;
      }
      if (c < 0) return;
      double s = nextScrape[c];
      clock.set(s);
      for (int r = 0; r < engines.length; r++) {
        ReplicaEngine e = engines[r];
        e.advanceTo(s);
        loads[c].publish(r, new LoadReport(e.waitingCount(), e.runningCount(),
            e.awaitingFirstTokenCount(), e.cache().usage(), e.queueTimeSum(), e.admittedCount(),
            clock.read(), LoadReport.Source.SCRAPE), false);
      }
      nextScrape[c] = s + scrapeInterval;
    }
  }

  /** Answers' feedback to the policies, in virtual-time order (ties in the order produced). */
  private static final class Feedback {
    private record Event(double time, long sequence, Job job, boolean firstToken) {}

    private final java.util.PriorityQueue<Event> events = new java.util.PriorityQueue<>(
        java.util.Comparator.comparingDouble(Event::time).thenComparingLong(Event::sequence));
    private long sequence;

    void add(double time, Job job, boolean firstToken) {
      if (job.attempt == RoutedAttempt.IGNORED) return;
      events.add(new Event(time, sequence++, job, firstToken));
    }

    void deliverUntil(double t) {
      while (!events.isEmpty() && events.peek().time() <= t) {
        Event e = events.poll();
        long nanos = Math.round(e.time() * 1e9);
        if (e.firstToken()) {
          e.job().attempt.firstToken(nanos);
        } else {
          e.job().attempt.completed(e.job().request.inputTokens(), e.job().cachedTokens, nanos);
        }
      }
    }
  }

  /** Virtual time in nanoseconds, for the clients' load views. */
  private static final class VirtualTicker implements Ticker {
    private long nanos;

    void set(double seconds) {
      nanos = Math.round(seconds * 1e9);
    }

    @Override
    public long read() {
      return nanos;
    }
  }

  /** The lowest estimated TTFT over all replicas; ties go to the lower index. */
  private static int oraclePick(ReplicaEngine[] engines, Job job, double now) {
    int best = 0;
    double bestTtft = Double.MAX_VALUE;
    for (int r = 0; r < engines.length; r++) {
      double est = engines[r].estimateTtft(job, now);
      if (est < bestTtft) {
        bestTtft = est;
        best = r;
      }
    }
    return best;
  }

  private RunOutcome summarise(String name, Trace trace, Job[] jobs, double ideal) {
    int n = jobs.length;
    double[] ttft = new double[n];
    double[] e2e = new double[n];
    double[] perReplica = new double[replicas];
    long prompt = 0;
    long cached = 0;
    long output = 0;
    double queue = 0;
    double ttftSum = 0;
    int met = 0;
    double first = n == 0 ? 0 : jobs[0].arrival;
    double last = first;
    for (int i = 0; i < n; i++) {
      Job j = jobs[i];
      ttft[i] = j.firstToken - j.arrival;
      e2e[i] = j.finished - j.arrival;
      ttftSum += ttft[i];
      queue += j.admitted - j.arrival;
      prompt += j.request.inputTokens();
      cached += j.cachedTokens;
      output += j.request.outputTokens();
      perReplica[j.replica] += e2e[i];
      if (ttft[i] <= ttftSloSeconds) met++;
      last = Math.max(last, j.finished);
    }
    Arrays.sort(ttft);
    Arrays.sort(e2e);
    double span = Math.max(1e-9, last - first);
    double hit = prompt == 0 ? 0 : (double) cached / prompt;
    double meanLoad = Arrays.stream(perReplica).average().orElse(0);
    double maxLoad = Arrays.stream(perReplica).max().orElse(0);
    PolicyResult result = new PolicyResult(name, n, hit, ideal == 0 ? 0 : hit / ideal,
        n == 0 ? 0 : ttftSum / n, percentile(ttft, 0.50), percentile(ttft, 0.99),
        percentile(e2e, 0.99), n == 0 ? 0 : queue / n, output / span,
        meanLoad == 0 ? 1 : maxLoad / meanLoad, n == 0 ? 0 : (double) met / n, met / span);
    return new RunOutcome(result, ttft);
  }

  /** Nearest-rank percentile of sorted values. */
  static double percentile(double[] sorted, double q) {
    if (sorted.length == 0) return 0;
    int rank = (int) Math.ceil(q * sorted.length);
    return sorted[Math.max(0, Math.min(sorted.length - 1, rank - 1))];
  }

  /** Builds a {@link Simulator}. Not thread-safe. */
  public static final class Builder {
    private int replicas = DEFAULT_REPLICAS;
    private int clients = DEFAULT_CLIENTS;
    private int keyBlocks = DEFAULT_KEY_BLOCKS;
    private boolean sessionKeys;
    private double ttftSloSeconds = DEFAULT_TTFT_SLO_SECONDS;
    private long seed = DEFAULT_SEED;
    private EngineProfile profile = EngineProfile.llama31_8bH100();
    private List<SimulatedPolicy> policies;
    private int threads = Runtime.getRuntime().availableProcessors();
    private double scrapeInterval = DEFAULT_SCRAPE_INTERVAL_SECONDS;
    private double staleAfter;
    private final java.util.Map<Integer, Double> slowdowns = new java.util.TreeMap<>();

    private Builder() {}

    /**
     * How often each client scrapes every replica's waiting queue and KV usage, seconds, in [0.01,
     * 600], or 0 for no load reports (policies see in-flight counts only); default {@value
     * #DEFAULT_SCRAPE_INTERVAL_SECONDS}. Each client scrapes at its own phase.
     */
    public Builder scrapeIntervalSeconds(double seconds) {
      this.scrapeInterval = seconds;
      return this;
    }

    /** Age after which a report is ignored, seconds, in (0, 3600]; default 3 × the scrape interval. */
    public Builder staleAfterSeconds(double seconds) {
      this.staleAfter = seconds;
      return this;
    }

    /**
     * Makes replica {@code index} {@code factor} times slower than the profile (prefill rate
     * divided, step times multiplied), in [1, 100]; default every replica at 1.
     */
    public Builder replicaSlowdown(int index, double factor) {
      slowdowns.put(index, factor);
      return this;
    }

    /** Replicas in the fleet, in [1, 1024]; default {@value #DEFAULT_REPLICAS}. */
    public Builder replicas(int replicas) {
      this.replicas = replicas;
      return this;
    }

    /**
     * Independent routing clients, each with its own policy instance and in-flight counts, in [1,
     * 10000]; requests are spread over them uniformly at random. Default {@value #DEFAULT_CLIENTS}.
     */
    public Builder clients(int clients) {
      this.clients = clients;
      return this;
    }

    /** Leading block ids that make up the routing prompt, in [1, 64]; default {@value #DEFAULT_KEY_BLOCKS}. */
    public Builder keyBlocks(int keyBlocks) {
      this.keyBlocks = keyBlocks;
      return this;
    }

    /** Whether a trace's session ids become explicit routing keys; default false. */
    public Builder sessionKeys(boolean sessionKeys) {
      this.sessionKeys = sessionKeys;
      return this;
    }

    /** The TTFT objective for goodput, seconds, in (0, 3600]; default {@value #DEFAULT_TTFT_SLO_SECONDS}. */
    public Builder ttftSloSeconds(double seconds) {
      this.ttftSloSeconds = seconds;
      return this;
    }

    /** Seeds the client assignment and the standard policies; default {@value #DEFAULT_SEED}. */
    public Builder seed(long seed) {
      this.seed = seed;
      return this;
    }

    /** The replicas' engine model; default {@link EngineProfile#llama31_8bH100()}. */
    public Builder profile(EngineProfile profile) {
      this.profile = requireNonNull(profile, "profile");
      return this;
    }

    /** The policies to compare, in report order; default {@link SimulatedPolicy#standard(long)} with the seed. */
    public Builder policies(List<SimulatedPolicy> policies) {
      requireNonNull(policies, "policies");
      if (policies.isEmpty()) throw new IllegalArgumentException("policies must not be empty");
      this.policies = List.copyOf(policies);
      return this;
    }

    /** Policies simulated at once, in [1, 64]; default the number of processors. Does not change results. */
    public Builder threads(int threads) {
      this.threads = threads;
      return this;
    }

    /** @throws IllegalArgumentException naming the first knob out of range */
    public Simulator build() {
      if (replicas < 1 || replicas > 1024) {
        throw new IllegalArgumentException("Simulator.replicas must be in [1, 1024], got " + replicas);
      }
      if (clients < 1 || clients > 10_000) {
        throw new IllegalArgumentException("Simulator.clients must be in [1, 10000], got " + clients);
      }
      if (keyBlocks < 1 || keyBlocks > 64) {
        throw new IllegalArgumentException("Simulator.keyBlocks must be in [1, 64], got " + keyBlocks);
      }
      if (!(ttftSloSeconds > 0 && ttftSloSeconds <= 3600)) {
        throw new IllegalArgumentException("Simulator.ttftSloSeconds must be in (0, 3600], got "
            + ttftSloSeconds);
      }
      if (!(scrapeInterval == 0 || (scrapeInterval >= 0.01 && scrapeInterval <= 600))) {
        throw new IllegalArgumentException(
            "Simulator.scrapeIntervalSeconds must be 0 or in [0.01, 600], got " + scrapeInterval);
      }
      if (!(staleAfter == 0 || (staleAfter > 0 && staleAfter <= 3600))) {
        throw new IllegalArgumentException("Simulator.staleAfterSeconds must be in (0, 3600], got "
            + staleAfter);
      }
      for (var e : slowdowns.entrySet()) {
        if (e.getKey() < 0 || e.getKey() >= replicas) {
          throw new IllegalArgumentException("Simulator.replicaSlowdown index must be in [0, "
              + (replicas - 1) + "], got " + e.getKey());
        }
        if (!(e.getValue() >= 1 && e.getValue() <= 100)) {
          throw new IllegalArgumentException("Simulator.replicaSlowdown factor must be in [1, 100], got "
              + e.getValue());
        }
      }
      if (threads < 1 || threads > 64) {
        throw new IllegalArgumentException("Simulator.threads must be in [1, 64], got " + threads);
      }
      return new Simulator(this);
    }
  }
}
