package io.github.llmrouter.sim;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

/**
 * Seeded synthetic workloads, for traffic shapes a recorded trace does not have.
 *
 * <pre>{@code
 * Trace chat = SyntheticTraces.multiTurn().requests(5000).sessionsPerSecond(4).seed(7).build();
 * Trace tenants = SyntheticTraces.sharedPrefix().groups(256).systemTokens(4096).zipf(1.1).build();
 * Trace agents = SyntheticTraces.agentic().requests(3000).seed(7).build();
 * Trace coding = SyntheticTraces.longAgent().sessionsPerSecond(0.1).seed(7).build();
 * }</pre>
 *
 * <p>Every generator is seeded: the same settings and seed give the same trace. Block ids are
 * unique per content, as in Mooncake traces; a block that is partly filled in one request and
 * fuller in a later one gets a new id, since its content differs. Arrivals are open-loop: a
 * request's time does not depend on how fast earlier ones were served.
 */
public final class SyntheticTraces {
  private SyntheticTraces() {}

  /**
   * Shared-prefix tenants: G tenants' system prompts × P users' questions each, tenant popularity
   * Zipf; by default many tenants with long system prompts, more than one replica's cache holds.
   */
  public static SharedPrefix sharedPrefix() {
    return new SharedPrefix();
  }

  /** Multi-turn chat sessions: each turn appends a user message and the previous answer. */
  public static MultiTurn multiTurn() {
    return new MultiTurn();
  }

  /**
   * Agentic sessions: a long tool preamble shared by every session, then dozens of turns whose
   * context grows by a few thousand tokens each, sessions starting in bursts.
   */
  public static Agentic agentic() {
    return new Agentic();
  }

  /**
   * Long agent sessions (coding and tool-using agents): a few long preambles each shared by many
   * sessions, contexts growing over dozens of turns to 100 K–400 K tokens, short answers, seconds
   * of tool time between turns, and enough sessions at once that their contexts fill the fleet's
   * KV memory over.
   */
  public static LongAgent longAgent() {
    return new LongAgent();
  }

  /**
   * The requests of {@code trace} spread over LoRA adapters of several base models: each session
   * (or each request without one) is given adapter {@code k} of {@code adapters}, drawn with Zipf
   * popularity of exponent {@code zipf}, named {@code lora-k}, running on base model {@code
   * base-(k mod bases)}, so that each base model has hot and cold adapters. The prompts' blocks
   * stay as they are; the simulator keys them by adapter, so two adapters never share a block.
   *
   * @throws IllegalArgumentException if {@code adapters} or {@code bases} is below 1, or {@code
   *     zipf} is negative or not finite
   */
  public static Trace withAdapters(Trace trace, int adapters, double zipf, int bases, long seed) {
    positive("adapters", adapters);
    positive("bases", bases);
    if (!(zipf >= 0) || Double.isInfinite(zipf)) {
      throw new IllegalArgumentException("zipf must be finite and >= 0, got " + zipf);
    }
    double[] cdf = zipfCdf(adapters, zipf);
    SplittableRandom random = new SplittableRandom(seed ^ 0x10AA);
    java.util.Map<String, Integer> bySession = new java.util.HashMap<>();
    List<TraceRequest> out = new ArrayList<>(trace.size());
    for (TraceRequest r : trace.requests()) {
      String session = r.sessionId();
      int k = session == null ? sample(cdf, random.nextDouble())
          : bySession.computeIfAbsent(session, s -> sample(cdf, random.nextDouble()));
      out.add(new TraceRequest(r.arrivalSeconds(), r.inputTokens(), r.outputTokens(),
          r.blockIds(), session, "lora-" + k, "base-" + (k % bases)));
    }
    return Trace.of(out, trace.blockTokens());
  }

  /**
   * Builds a shared-prefix workload: each request is a group's system prompt followed by one of
   * that group's users' questions (repeated questions hit fully), arriving as a Poisson process, or
   * bursty (alternating on/off periods at {@code burstFactor} times the rate and nearly idle).
   */
  public static final class SharedPrefix {
    private int requests = 4000;
    private int groups = 256;
    private int usersPerGroup = 32;
    private int systemTokens = 4096;
    private int questionTokens = 256;
    private int meanOutputTokens = 256;
    private double zipf = 1.1;
    private double ratePerSecond = 20;
    private double burstFactor = 1;
    private int blockTokens = 64;
    private long seed = 1;

    private SharedPrefix() {}

    /** Requests to generate; default 4000. */
    public SharedPrefix requests(int n) {
      this.requests = n;
      return this;
    }

    /** Tenants G, each with its own system prompt; default 256. */
    public SharedPrefix groups(int g) {
      this.groups = g;
      return this;
    }

    /** Users (distinct questions) per group P; default 32. */
    public SharedPrefix usersPerGroup(int p) {
      this.usersPerGroup = p;
      return this;
    }

    /** System prompt length, tokens; default 4096 (256 × 4096 tokens: twice one replica's cache). */
    public SharedPrefix systemTokens(int t) {
      this.systemTokens = t;
      return this;
    }

    /** Question length, tokens; default 256. */
    public SharedPrefix questionTokens(int t) {
      this.questionTokens = t;
      return this;
    }

    /** Mean answer length (exponential, at least 1), tokens; default 256. */
    public SharedPrefix meanOutputTokens(int t) {
      this.meanOutputTokens = t;
      return this;
    }

    /** Zipf exponent of group popularity (0 = uniform); default 1.1. */
    public SharedPrefix zipf(double s) {
      this.zipf = s;
      return this;
    }

    /** Mean arrival rate, requests per second; default 20. */
    public SharedPrefix ratePerSecond(double r) {
      this.ratePerSecond = r;
      return this;
    }

    /** Burstiness: 1 = Poisson (default); f &gt; 1 = on/off periods at f × rate and near idle. */
    public SharedPrefix burstFactor(double f) {
      this.burstFactor = f;
      return this;
    }

    /** Tokens per block id; default 64. */
    public SharedPrefix blockTokens(int t) {
      this.blockTokens = t;
      return this;
    }

    public SharedPrefix seed(long seed) {
      this.seed = seed;
      return this;
    }

    public Trace build() {
      positive("requests", requests);
      positive("groups", groups);
      positive("usersPerGroup", usersPerGroup);
      positive("systemTokens", systemTokens);
      positive("questionTokens", questionTokens);
      positive("meanOutputTokens", meanOutputTokens);
      positive("blockTokens", blockTokens);
      if (!(zipf >= 0)) throw new IllegalArgumentException("zipf must be >= 0, got " + zipf);
      if (!(ratePerSecond > 0)) throw new IllegalArgumentException("ratePerSecond must be > 0");
      if (!(burstFactor >= 1)) throw new IllegalArgumentException("burstFactor must be >= 1");
      SplittableRandom random = new SplittableRandom(seed);
      double[] cdf = zipfCdf(groups, zipf);
      int input = systemTokens + questionTokens;
      int blocks = (input + blockTokens - 1) / blockTokens;
      List<TraceRequest> out = new ArrayList<>(requests);
      Arrivals arrivals = new Arrivals(random, ratePerSecond, burstFactor);
      for (int i = 0; i < requests; i++) {
        int g = sample(cdf, random.nextDouble());
        int u = random.nextInt(usersPerGroup);
        long[] ids = new long[blocks];
        for (int k = 0; k < blocks; k++) {
          // Blocks wholly inside the system prompt belong to the group; the rest to the user.
          boolean system = (long) (k + 1) * blockTokens <= systemTokens;
          ids[k] = system ? ((long) g << 40) | k : ((long) g << 40) | ((long) (u + 1) << 20) | k;
        }
        out.add(new TraceRequest(arrivals.next(), input, exponential(random, meanOutputTokens), ids,
            "g" + g + "u" + u));
      }
      return Trace.of(out, blockTokens);
    }
  }

  /**
   * Builds multi-turn chat: sessions start as a Poisson process; each has a geometric number of
   * turns; every turn's prompt is a shared system prompt, then the whole conversation so far, then
   * a new user message; the next turn arrives a think time (exponential) after the previous one
   * (open loop: it does not wait for the answer). Each request carries its session id.
   */
  public static final class MultiTurn {
    private int requests = 4000;
    private double sessionsPerSecond = 4;
    private double meanTurns = 5;
    private int systemTokens = 64;
    private int minUserTokens = 64;
    private int maxUserTokens = 384;
    private int meanOutputTokens = 250;
    private double meanThinkSeconds = 15;
    private int blockTokens = 64;
    private long seed = 1;

    private MultiTurn() {}

    /** Requests to generate (sessions are cut at this total); default 4000. */
    public MultiTurn requests(int n) {
      this.requests = n;
      return this;
    }

    /** New sessions per second; default 4. */
    public MultiTurn sessionsPerSecond(double r) {
      this.sessionsPerSecond = r;
      return this;
    }

    /** Mean turns per session (geometric, at least 1); default 5. */
    public MultiTurn meanTurns(double t) {
      this.meanTurns = t;
      return this;
    }

    /**
     * Shared system prompt length, tokens; default 64 (one block, so that the simulator's default
     * two key blocks reach into the first user message).
     */
    public MultiTurn systemTokens(int t) {
      this.systemTokens = t;
      return this;
    }

    /** User message length range, tokens, uniform; default 64 to 384. */
    public MultiTurn userTokens(int min, int max) {
      this.minUserTokens = min;
      this.maxUserTokens = max;
      return this;
    }

    /** Mean answer length (exponential, at least 1), tokens; default 250. */
    public MultiTurn meanOutputTokens(int t) {
      this.meanOutputTokens = t;
      return this;
    }

    /** Mean think time between turns, seconds; default 15. */
    public MultiTurn meanThinkSeconds(double s) {
      this.meanThinkSeconds = s;
      return this;
    }

    /** Tokens per block id; default 64. */
    public MultiTurn blockTokens(int t) {
      this.blockTokens = t;
      return this;
    }

    public MultiTurn seed(long seed) {
      this.seed = seed;
      return this;
    }

    public Trace build() {
      positive("requests", requests);
      positive("blockTokens", blockTokens);
      positive("meanOutputTokens", meanOutputTokens);
      if (systemTokens < 0) throw new IllegalArgumentException("systemTokens must be >= 0");
      if (minUserTokens < 1 || maxUserTokens < minUserTokens) {
        throw new IllegalArgumentException("userTokens must satisfy 1 <= min <= max");
      }
      if (!(sessionsPerSecond > 0)) throw new IllegalArgumentException("sessionsPerSecond must be > 0");
      if (!(meanTurns >= 1)) throw new IllegalArgumentException("meanTurns must be >= 1");
      if (!(meanThinkSeconds >= 0)) throw new IllegalArgumentException("meanThinkSeconds must be >= 0");
      SplittableRandom random = new SplittableRandom(seed);
      List<TraceRequest> out = new ArrayList<>(requests);
      long[] nextId = {1}; // id 0 is reserved for the system prompt's full blocks
      double start = 0;
      int session = 0;
      while (out.size() < requests) {
        start += -Math.log(1 - random.nextDouble()) / sessionsPerSecond;
        double t = start;
        Conversation c = new Conversation(blockTokens, systemTokens, nextId);
        int output = 0;
        boolean more = true;
        while (more && out.size() < requests) {
          c.append(output + minUserTokens + random.nextInt(maxUserTokens - minUserTokens + 1));
          output = exponential(random, meanOutputTokens);
          out.add(new TraceRequest(t, c.length, output, c.blockIds(), "s" + session));
          t += -Math.log(1 - random.nextDouble()) * meanThinkSeconds;
          more = random.nextDouble() >= 1 / meanTurns;
        }
        session++;
      }
      return Trace.of(out, blockTokens);
    }
  }

  /**
   * Builds agentic sessions. Every session's prompt starts with the same tool preamble (tool
   * definitions and system prompt). Sessions start in bursts: every {@code burstIntervalSeconds},
   * {@code sessionsPerBurst} sessions start within {@code burstSpreadSeconds}. Each session has a
   * uniform number of turns in {@code [minTurns, maxTurns]}; each turn's prompt is the previous
   * one, the previous answer (a tool call, exponential length) and a tool result of uniform length
   * in {@code [minStepTokens, maxStepTokens]}; the next turn arrives an exponential step time after
   * the previous one (open loop). A session ends early rather than grow past {@code
   * maxContextTokens}. Each request carries its session id.
   */
  public static final class Agentic {
    private int requests = 3000;
    private int preambleTokens = 8192;
    private int sessionsPerBurst = 4;
    private double burstIntervalSeconds = 30;
    private double burstSpreadSeconds = 1;
    private int minTurns = 20;
    private int maxTurns = 40;
    private int minStepTokens = 1000;
    private int maxStepTokens = 4000;
    private int meanOutputTokens = 150;
    private double meanStepSeconds = 2;
    private int maxContextTokens = 120_000;
    private int blockTokens = 64;
    private long seed = 1;

    private Agentic() {}

    /** Requests to generate (the last session is cut at this total); default 3000. */
    public Agentic requests(int n) {
      this.requests = n;
      return this;
    }

    /** Shared tool preamble, tokens; default 8192. */
    public Agentic preambleTokens(int t) {
      this.preambleTokens = t;
      return this;
    }

    /** Sessions starting in each burst; default 4. */
    public Agentic sessionsPerBurst(int n) {
      this.sessionsPerBurst = n;
      return this;
    }

    /** Seconds from one burst of session starts to the next; default 30. */
    public Agentic burstIntervalSeconds(double s) {
      this.burstIntervalSeconds = s;
      return this;
    }

    /** Seconds over which one burst's sessions start, uniformly; default 1. */
    public Agentic burstSpreadSeconds(double s) {
      this.burstSpreadSeconds = s;
      return this;
    }

    /** Turns per session, uniform in [min, max]; default 20 to 40. */
    public Agentic turns(int min, int max) {
      this.minTurns = min;
      this.maxTurns = max;
      return this;
    }

    /** Tool result added per turn, tokens, uniform in [min, max]; default 1000 to 4000. */
    public Agentic stepTokens(int min, int max) {
      this.minStepTokens = min;
      this.maxStepTokens = max;
      return this;
    }

    /** Mean answer (tool call) length, exponential, at least 1 token; default 150. */
    public Agentic meanOutputTokens(int t) {
      this.meanOutputTokens = t;
      return this;
    }

    /** Mean seconds between a turn and the next, exponential; default 2. */
    public Agentic meanStepSeconds(double s) {
      this.meanStepSeconds = s;
      return this;
    }

    /** Longest prompt, tokens: a session ends before exceeding it; default 120,000. */
    public Agentic maxContextTokens(int t) {
      this.maxContextTokens = t;
      return this;
    }

    /** Tokens per block id; default 64. */
    public Agentic blockTokens(int t) {
      this.blockTokens = t;
      return this;
    }

    public Agentic seed(long seed) {
      this.seed = seed;
      return this;
    }

    public Trace build() {
      positive("requests", requests);
      positive("preambleTokens", preambleTokens);
      positive("sessionsPerBurst", sessionsPerBurst);
      positive("meanOutputTokens", meanOutputTokens);
      positive("blockTokens", blockTokens);
      range("turns", minTurns, maxTurns);
      range("stepTokens", minStepTokens, maxStepTokens);
      if (!(burstIntervalSeconds > 0)) throw new IllegalArgumentException("burstIntervalSeconds must be > 0");
      if (!(burstSpreadSeconds >= 0)) throw new IllegalArgumentException("burstSpreadSeconds must be >= 0");
      if (!(meanStepSeconds >= 0)) throw new IllegalArgumentException("meanStepSeconds must be >= 0");
      if (maxContextTokens < preambleTokens + maxStepTokens) {
        throw new IllegalArgumentException("maxContextTokens must be >= preambleTokens + max stepTokens, got "
            + maxContextTokens);
      }
      SplittableRandom random = new SplittableRandom(seed);
      List<TraceRequest> out = new ArrayList<>(requests);
      long[] nextId = {1}; // 0 is the preamble's namespace
      int session = 0;
      while (out.size() < requests) {
        int burst = session / sessionsPerBurst;
        double t = burst * burstIntervalSeconds + random.nextDouble() * burstSpreadSeconds;
        Conversation c = new Conversation(blockTokens, preambleTokens, nextId);
        int turns = minTurns + random.nextInt(maxTurns - minTurns + 1);
        int output = 0;
        for (int turn = 0; turn < turns && out.size() < requests; turn++) {
          int step = minStepTokens + random.nextInt(maxStepTokens - minStepTokens + 1);
          if (c.length + output + step > maxContextTokens) break;
          c.append(output + step);
          output = exponential(random, meanOutputTokens);
          out.add(new TraceRequest(t, c.length, output, c.blockIds(), "a" + session));
          t += -Math.log(1 - random.nextDouble()) * meanStepSeconds;
        }
        session++;
      }
      return Trace.of(out, blockTokens);
    }
  }

  /**
   * Builds long agent sessions. Sessions start as a Poisson process; each uses one of {@code
   * preambles} preambles (system prompt and tool definitions, each of a uniform length in {@code
   * [minPreambleTokens, maxPreambleTokens]}, chosen uniformly), then a task of uniform length in
   * {@code [minTaskTokens, maxTaskTokens]}. It runs a uniform number of turns in {@code [minTurns,
   * maxTurns]}; each turn's prompt is the previous one, the previous answer (uniform in {@code
   * [minOutputTokens, maxOutputTokens]}) and a tool output (uniform in {@code [minStepTokens,
   * maxStepTokens]}); the next turn arrives a uniform think time in {@code [minThinkSeconds,
   * maxThinkSeconds]} after the previous one (open loop). A session ends early rather than grow
   * past {@code maxContextTokens}. Each request carries its session id.
   *
   * <p>With the defaults a session runs 32 turns and about 9 minutes on average, requests' prompts
   * average about 110 K tokens (the largest 400 K), and about 50 sessions are open at once, whose
   * contexts (about 90 K tokens each on average) hold 1.2 times the KV memory of 8 H100/8B
   * replicas (3.84 M tokens). A rate multiplier compresses think times as well as session starts,
   * so it raises the request rate and leaves the number of open sessions, and so the memory they
   * need, as it is.
   */
  public static final class LongAgent {
    private int requests = 6000;
    private double sessionsPerSecond = 0.1;
    private int preambles = 4;
    private int minPreambleTokens = 10_000;
    private int maxPreambleTokens = 30_000;
    private int minTaskTokens = 500;
    private int maxTaskTokens = 4000;
    private int minTurns = 5;
    private int maxTurns = 60;
    private int minStepTokens = 500;
    private int maxStepTokens = 8000;
    private int minOutputTokens = 100;
    private int maxOutputTokens = 500;
    private double minThinkSeconds = 2;
    private double maxThinkSeconds = 30;
    private int maxContextTokens = 400_000;
    private int blockTokens = 64;
    private long seed = 1;

    private LongAgent() {}

    /** Requests to generate (the last sessions are cut at this total); default 6000. */
    public LongAgent requests(int n) {
      this.requests = n;
      return this;
    }

    /** New sessions per second; default 0.1. */
    public LongAgent sessionsPerSecond(double r) {
      this.sessionsPerSecond = r;
      return this;
    }

    /** Distinct preambles, each shared by the sessions that draw it; default 4. */
    public LongAgent preambles(int n) {
      this.preambles = n;
      return this;
    }

    /** Preamble length range, tokens, uniform; default 10,000 to 30,000. */
    public LongAgent preambleTokens(int min, int max) {
      this.minPreambleTokens = min;
      this.maxPreambleTokens = max;
      return this;
    }

    /** First task message length range, tokens, uniform; default 500 to 4,000. */
    public LongAgent taskTokens(int min, int max) {
      this.minTaskTokens = min;
      this.maxTaskTokens = max;
      return this;
    }

    /** Turns per session, uniform in [min, max]; default 5 to 60. */
    public LongAgent turns(int min, int max) {
      this.minTurns = min;
      this.maxTurns = max;
      return this;
    }

    /** Tool output added per turn, tokens, uniform; default 500 to 8,000. */
    public LongAgent stepTokens(int min, int max) {
      this.minStepTokens = min;
      this.maxStepTokens = max;
      return this;
    }

    /** Answer length range, tokens, uniform; default 100 to 500. */
    public LongAgent outputTokens(int min, int max) {
      this.minOutputTokens = min;
      this.maxOutputTokens = max;
      return this;
    }

    /** Seconds from a turn to the next, uniform; default 2 to 30. */
    public LongAgent thinkSeconds(double min, double max) {
      this.minThinkSeconds = min;
      this.maxThinkSeconds = max;
      return this;
    }

    /** Longest prompt, tokens: a session ends before exceeding it; default 400,000. */
    public LongAgent maxContextTokens(int t) {
      this.maxContextTokens = t;
      return this;
    }

    /** Tokens per block id; default 64 (a client's 256-character blocks). */
    public LongAgent blockTokens(int t) {
      this.blockTokens = t;
      return this;
    }

    public LongAgent seed(long seed) {
      this.seed = seed;
      return this;
    }

    public Trace build() {
      positive("requests", requests);
      positive("preambles", preambles);
      positive("blockTokens", blockTokens);
      range("preambleTokens", minPreambleTokens, maxPreambleTokens);
      range("taskTokens", minTaskTokens, maxTaskTokens);
      range("turns", minTurns, maxTurns);
      range("stepTokens", minStepTokens, maxStepTokens);
      range("outputTokens", minOutputTokens, maxOutputTokens);
      if (!(sessionsPerSecond > 0)) throw new IllegalArgumentException("sessionsPerSecond must be > 0");
      if (!(minThinkSeconds >= 0) || !(maxThinkSeconds >= minThinkSeconds)) {
        throw new IllegalArgumentException("thinkSeconds must satisfy 0 <= min <= max, got ["
            + minThinkSeconds + ", " + maxThinkSeconds + "]");
      }
      if (maxContextTokens < maxPreambleTokens + maxTaskTokens) {
        throw new IllegalArgumentException(
            "maxContextTokens must be >= max preambleTokens + max taskTokens, got " + maxContextTokens);
      }
      SplittableRandom random = new SplittableRandom(seed);
      int[] preambleLengths = new int[preambles];
      for (int p = 0; p < preambles; p++) preambleLengths[p] = uniform(random, minPreambleTokens, maxPreambleTokens);
      List<TraceRequest> out = new ArrayList<>(requests);
      long[] nextId = {1};
      double start = 0;
      int session = 0;
      while (out.size() < requests) {
        start += -Math.log(1 - random.nextDouble()) / sessionsPerSecond;
        double t = start;
        int p = random.nextInt(preambles);
        Conversation c = new Conversation(blockTokens, preambleLengths[p], p + 1, nextId);
        c.append(uniform(random, minTaskTokens, maxTaskTokens));
        int turns = uniform(random, minTurns, maxTurns);
        for (int turn = 0; turn < turns && out.size() < requests; turn++) {
          if (turn > 0) {
            int grow = uniform(random, minStepTokens, maxStepTokens);
            if (c.length + grow > maxContextTokens) break;
            c.append(grow);
          }
          int output = uniform(random, minOutputTokens, maxOutputTokens);
          out.add(new TraceRequest(t, c.length, output, c.blockIds(), "l" + session));
          c.append(output);
          t += minThinkSeconds + random.nextDouble() * (maxThinkSeconds - minThinkSeconds);
        }
        session++;
      }
      return Trace.of(out, blockTokens);
    }
  }

  /**
   * A prompt that only grows: its full blocks keep their ids, its partial last block gets a new id
   * each time it changes. Starts with {@code sharedTokens} whose full blocks have ids 0, 1, ...
   * in the namespace of {@code shared} (0, or a preamble's number), shared by every conversation
   * that starts with it; new ids come from {@code nextId}.
   */
  private static final class Conversation {
    private final int blockTokens;
    private final long[] nextId;
    private final List<Long> fullIds = new ArrayList<>();
    int length;

    Conversation(int blockTokens, int sharedTokens, long[] nextId) {
      this(blockTokens, sharedTokens, 0, nextId);
    }

    Conversation(int blockTokens, int sharedTokens, int shared, long[] nextId) {
      this.blockTokens = blockTokens;
      this.nextId = nextId;
      this.length = sharedTokens;
      // Preamble ids live above every id nextId hands out (those are below 2^56).
      long namespace = shared == 0 ? 0 : (1L << 62) | ((long) shared << 32);
      for (int k = 0; k < sharedTokens / blockTokens; k++) fullIds.add(namespace | k);
    }

    void append(int tokens) {
      length += tokens;
    }

    long[] blockIds() {
      int fullBlocks = length / blockTokens;
      while (fullIds.size() < fullBlocks) fullIds.add(nextId[0]++ << 8);
      int blocks = (length + blockTokens - 1) / blockTokens;
      long[] ids = new long[blocks];
      for (int k = 0; k < fullBlocks; k++) ids[k] = fullIds.get(k);
      if (blocks > fullBlocks) ids[fullBlocks] = (nextId[0]++ << 8) | 1;
      return ids;
    }
  }

  /** Poisson arrivals, optionally modulated by on/off bursts. */
  private static final class Arrivals {
    private final SplittableRandom random;
    private final double rate;
    private final double burstFactor;
    private double t;

    Arrivals(SplittableRandom random, double rate, double burstFactor) {
      this.random = random;
      this.rate = rate;
      this.burstFactor = burstFactor;
    }

    double next() {
      if (burstFactor == 1) {
        t += -Math.log(1 - random.nextDouble()) / rate;
        return t;
      }
      // Periods of 10 s: the first 1/f of each at f × rate (same mean rate), the rest idle.
      double onLength = 10.0 / burstFactor;
      t += -Math.log(1 - random.nextDouble()) / (rate * burstFactor);
      double period = Math.floor(t / onLength);
      return period * 10.0 + (t - period * onLength);
    }
  }

  private static double[] zipfCdf(int n, double s) {
    double[] cdf = new double[n];
    double sum = 0;
    for (int i = 0; i < n; i++) {
      sum += 1 / Math.pow(i + 1, s);
      cdf[i] = sum;
    }
    for (int i = 0; i < n; i++) cdf[i] /= sum;
    return cdf;
  }

  private static int sample(double[] cdf, double u) {
    int lo = 0;
    int hi = cdf.length - 1;
    while (lo < hi) {
      int mid = (lo + hi) >>> 1;
      if (cdf[mid] < u) lo = mid + 1; else hi = mid;
    }
    return lo;
  }

  private static int exponential(SplittableRandom random, int mean) {
    return (int) Math.max(1, Math.round(-Math.log(1 - random.nextDouble()) * mean));
  }

  private static int uniform(SplittableRandom random, int min, int max) {
    return min + random.nextInt(max - min + 1);
  }

  private static void range(String name, int min, int max) {
    if (min < 1 || max < min) {
      throw new IllegalArgumentException(name + " must satisfy 1 <= min <= max, got [" + min
          + ", " + max + "]");
    }
  }

  private static void positive(String name, int v) {
    if (v < 1) throw new IllegalArgumentException(name + " must be >= 1, got " + v);
  }
}
