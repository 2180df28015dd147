package io.github.llmrouter.sim;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

/**
 * Seeded synthetic workloads, for traffic shapes a recorded trace does not have.
 *
 * <pre>{@code
 * Trace chat = SyntheticTraces.multiTurn().requests(5000).sessionsPerSecond(4).seed(7).build();
 * Trace rag = SyntheticTraces.sharedPrefix().groups(16).usersPerGroup(32).zipf(1.1).build();
 * }</pre>
 *
 * <p>Block ids are unique per content, as in Mooncake traces; a block that is partly filled in one
 * request and fuller in a later one gets a new id, since its content differs.
 */
public final class SyntheticTraces {
  private SyntheticTraces() {}

  /** Shared-prefix groups: G system prompts × P users' questions, group popularity Zipf. */
  public static SharedPrefix sharedPrefix() {
    return new SharedPrefix();
  }

  /** Multi-turn chat sessions: each turn appends a user message and the previous answer. */
  public static MultiTurn multiTurn() {
    return new MultiTurn();
  }

  /**
   * Builds a shared-prefix workload: each request is a group's system prompt followed by one of
   * that group's users' questions (repeated questions hit fully), arriving as a Poisson process, or
   * bursty (alternating on/off periods at {@code burstFactor} times the rate and nearly idle).
   */
  public static final class SharedPrefix {
    private int requests = 4000;
    private int groups = 16;
    private int usersPerGroup = 32;
    private int systemTokens = 2048;
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

    /** Distinct system prompts G; default 16. */
    public SharedPrefix groups(int g) {
      this.groups = g;
      return this;
    }

    /** Users (distinct questions) per group P; default 32. */
    public SharedPrefix usersPerGroup(int p) {
      this.usersPerGroup = p;
      return this;
    }

    /** System prompt length, tokens; default 2048. */
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
      long nextId = 1; // id 0 is reserved for the system prompt's full blocks
      double start = 0;
      int session = 0;
      while (out.size() < requests) {
        start += -Math.log(1 - random.nextDouble()) / sessionsPerSecond;
        double t = start;
        // Full blocks keep their ids across turns; the partial tail block is re-identified.
        List<Long> fullIds = new ArrayList<>();
        int length = systemTokens;
        for (int k = 0; k < systemTokens / blockTokens; k++) fullIds.add((long) k);
        boolean more = true;
        while (more && out.size() < requests) {
          length += minUserTokens + random.nextInt(maxUserTokens - minUserTokens + 1);
          int fullBlocks = length / blockTokens;
          while (fullIds.size() < fullBlocks) fullIds.add(nextId++ << 8);
          int blocks = (length + blockTokens - 1) / blockTokens;
          long[] ids = new long[blocks];
          for (int k = 0; k < fullBlocks; k++) ids[k] = fullIds.get(k);
          if (blocks > fullBlocks) ids[fullBlocks] = (nextId++ << 8) | 1;
          int output = exponential(random, meanOutputTokens);
          out.add(new TraceRequest(t, length, output, ids, "s" + session));
          length += output;
          t += -Math.log(1 - random.nextDouble()) * meanThinkSeconds;
          more = random.nextDouble() >= 1 / meanTurns;
        }
        session++;
      }
      return Trace.of(out, blockTokens);
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

  private static void positive(String name, int v) {
    if (v < 1) throw new IllegalArgumentException(name + " must be >= 1, got " + v);
  }
}
