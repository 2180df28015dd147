package io.github.llmrouter.sim;

import static java.util.Objects.requireNonNull;

import io.github.llmrouter.internal.util.Hashing;
import io.github.llmrouter.routing.PromptBlocks;
import io.github.llmrouter.routing.RoutingRequest;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import org.jspecify.annotations.Nullable;

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
 * <p><b>What a policy sees.</b> A trace has block ids, not text. Each request reaches its client's
 * policy as a {@link RoutingRequest} for model {@value #MODEL}, as a production request would: its
 * whole prompt as {@link PromptBlocks} (chained hashes of its block ids, the model mixed into the
 * first, with the trace's tokens per block and the prompt's length), a prompt text naming its first
 * {@link Builder#keyBlocks(int) keyBlocks} block ids (standing for the system prompt and first user
 * message, which is what {@code PrefixHash}'s default key hashes in a real client) and, with {@link
 * Builder#sessionKeys(boolean)}, the trace's session id as routing key. Policies never see the
 * replicas' caches; only the oracle does. What comes back to a client is what a client hears: the
 * first token and the completion of each request at their times, with the cached prompt tokens the
 * replica reports (see {@code RoutedAttempt}); simulated clients stream their answers.
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
  /** The first block's hash covers the model, as a client's prompt hashing does. */
  private static final long MODEL_SEED = Hashing.xxh64(MODEL, 0);

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
  private final double hedgePercentile;
  private final Settings settings;

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
    this.hedgePercentile = b.hedgePercentile;
    this.settings = new Settings(replicas, clients, seed, scrapeInterval, staleAfter, profile,
        slowdown, hedgePercentile);
  }

  public static Builder builder() {
    return new Builder();
  }

  /** Runs every policy on {@code trace} and reports them in policy order. */
  public SimulationReport run(Trace trace) {
    requireNonNull(trace, "trace");
    return SimulationRuns.runAll(List.of(this), List.of(trace), threads).get(0);
  }

  /** The report's one-line description of this simulator's settings on {@code trace}. */
  String describe(Trace trace) {
    return trace.size() + " requests, " + replicas + " replicas, " + clients
        + (clients == 1 ? " client" : " clients") + ", " + describeShared();
  }

  /** The settings every row of a comparison shares: all but the request and client counts. */
  String describeShared() {
    return "keyBlocks " + keyBlocks + (sessionKeys ? " (+session ids)" : "") + ", " + profile.name()
        + ", TTFT SLO " + ttftSloSeconds + " s, seed " + seed
        + (scrapeInterval > 0 ? ", scrape every " + scrapeInterval + " s" : ", no load reports")
        + slowdownText() + (hedgePercentile > 0 ? ", hedging at p" + hedgePercentile * 100 : "");
  }

  int replicas() {
    return replicas;
  }

  int clients() {
    return clients;
  }

  List<SimulatedPolicy> policies() {
    return policies;
  }

  Settings settings() {
    return settings;
  }

  private String slowdownText() {
    StringBuilder b = new StringBuilder();
    for (int r = 0; r < slowdown.length; r++) {
      if (slowdown[r] != 1.0) b.append(", replica-").append(r).append(' ').append(slowdown[r]).append("x slower");
    }
    return b.toString();
  }

  /** What a {@link FleetRun} needs of the settings. */
  record Settings(int replicas, int clients, long seed, double scrapeInterval, double staleAfter,
      EngineProfile profile, double[] slowdown, double hedgePercentile) {
    /** {@return whether clients hedge, as {@code HedgePolicy} does} */
    boolean hedging() {
      return hedgePercentile > 0;
    }

    /** The engine profile of replica {@code r}: the fleet's, slowed down by its factor. */
    EngineProfile profileOf(int r) {
      double f = slowdown[r];
      if (f == 1.0) return profile;
      return profile.toBuilder().name(profile.name() + " x" + f + " slower")
          .prefillTokensPerSecond(profile.prefillTokensPerSecond() / f)
          .decodeStepMillis(profile.decodeStepSeconds() * 1000 * f)
          .perSequenceMillis(profile.perSequenceSeconds() * 1000 * f)
          .build();
    }
  }

  /**
   * What every policy's run on one trace shares: block chains, routing requests, client
   * assignment and the trace's hit-rate references. Read-only once built.
   */
  static final class Prepared {
    long[][] chains;
    /** What a client knows of each request, and the same with every block (for peer models). */
    RoutingRequest[] routing;
    RoutingRequest[] wholeRouting;
    int[] clientOf;
    int[] outputBlocks;
    double idealHitRate;
    double fleetCapacityHitRate;
  }

  Prepared prepare(Trace trace) {
    int n = trace.size();
    Prepared p = new Prepared();
    p.chains = new long[n][];
    p.routing = new RoutingRequest[n];
    p.wholeRouting = new RoutingRequest[n];
    p.clientOf = new int[n];
    p.outputBlocks = new int[n];
    SplittableRandom random = new SplittableRandom(seed);
    int bt = trace.blockTokens();
    for (int i = 0; i < n; i++) {
      TraceRequest r = trace.requests().get(i);
      p.chains[i] = chain(r.blockIds(), r.model());
      p.wholeRouting[i] = routingRequest(r, keyBlocks, sessionKeys,
          PromptBlocks.of(p.chains[i], bt, r.inputTokens()));
      p.routing[i] = p.chains[i].length <= PromptBlocks.DENSE_BLOCKS ? p.wholeRouting[i]
          : routingRequest(r, keyBlocks, sessionKeys,
              PromptBlocks.sampled(p.chains[i], bt, r.inputTokens()));
      p.clientOf[i] = clients == 1 ? 0 : random.nextInt(clients);
      p.outputBlocks[i] = (r.outputTokens() + bt - 1) / bt;
    }
    p.idealHitRate = HitRateReferences.ideal(trace, p.chains);
    long fleetBlocks = (long) replicas * Math.max(1, profile.cacheTokens() / bt);
    p.fleetCapacityHitRate = HitRateReferences.fleetCapacity(trace, p.chains, fleetBlocks);
    return p;
  }

  /**
   * Chained block hashes, as a client would compute them: hash i covers the model name and block
   * ids 0..i, so only a whole matching prefix of the same model hits. The engines' caches key their
   * blocks by the same hashes.
   */
  static long[] chain(long[] blockIds) {
    return chain(blockIds, null);
  }

  /**
   * The same for a request of {@code model} (null: {@link #MODEL}): the prompts of two models or
   * adapters never share a cached block, as an engine keys an adapter's blocks by it too.
   */
  static long[] chain(long[] blockIds, @Nullable String model) {
    long[] chain = new long[blockIds.length];
    long h = model == null ? MODEL_SEED : Hashing.xxh64(model, 0);
    for (int i = 0; i < blockIds.length; i++) {
      h = Hashing.mix64(h * 0x9E3779B97F4A7C15L + blockIds[i]);
      chain[i] = h;
    }
    return chain;
  }

  /**
   * What a client knows of a trace request: its prompt as {@code blocks} (what a client hashes
   * from a prompt's text), a prompt text made of its leading block ids (the same text for the same
   * leading blocks) and its session id as an explicit key if asked for.
   */
  static RoutingRequest routingRequest(TraceRequest r, int keyBlocks, boolean sessionKeys,
      PromptBlocks blocks) {
    StringBuilder prompt = new StringBuilder("blocks");
    long[] ids = r.blockIds();
    for (int k = 0; k < Math.min(keyBlocks, ids.length); k++) prompt.append(':').append(ids[k]);
    String model = r.model();
    return RoutingRequest.builder(model != null ? model : MODEL).prompt(prompt.toString())
        .routingKey(sessionKeys ? r.sessionId() : null).blocks(blocks).build();
  }

  /** One policy's result on one row, with its sorted TTFTs for the charts. */
  static final class RunOutcome {
    final PolicyResult result;
    final double[] sortedTtfts;

    RunOutcome(PolicyResult result, double[] sortedTtfts) {
      this.result = result;
      this.sortedTtfts = sortedTtfts;
    }
  }

  RunOutcome summarise(SimulatedPolicy policy, Job[] jobs, double ideal) {
    String name = policy.name();
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
    int hedged = 0;
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
      if (j.hedged) hedged++;
      last = Math.max(last, j.finished);
    }
    Arrays.sort(ttft);
    Arrays.sort(e2e);
    double span = Math.max(1e-9, last - first);
    double hit = prompt == 0 ? 0 : (double) cached / prompt;
    double meanLoad = Arrays.stream(perReplica).average().orElse(0);
    double maxLoad = Arrays.stream(perReplica).max().orElse(0);
    PolicyResult result = new PolicyResult(name, policy.isClientDefault(), n, hit,
        ideal == 0 ? 0 : hit / ideal, n == 0 ? 0 : ttftSum / n, percentile(ttft, 0.50),
        percentile(ttft, 0.99), percentile(e2e, 0.99), n == 0 ? 0 : queue / n, output / span,
        meanLoad == 0 ? 1 : maxLoad / meanLoad, n == 0 ? 0 : (double) met / n, met / span,
        n == 0 ? 0 : (double) hedged / n);
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
    private double hedgePercentile;

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
    /**
     * Clients hedge as {@code HedgePolicy} does, after {@code percentile} of their own times to
     * first token (at least 50 ms, at most 5% of requests, never to a saturated replica); 0, the
     * default, for none.
     */
    public Builder hedgePercentile(double percentile) {
      this.hedgePercentile = percentile;
      return this;
    }

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
      if (!(hedgePercentile == 0 || (hedgePercentile >= 0.5 && hedgePercentile <= 0.999))) {
        throw new IllegalArgumentException("Simulator.hedgePercentile must be 0 or in [0.5, 0.999], "
            + "got " + hedgePercentile);
      }
      if (threads < 1 || threads > 64) {
        throw new IllegalArgumentException("Simulator.threads must be in [1, 64], got " + threads);
      }
      return new Simulator(this);
    }
  }
}
