package io.github.llmrouter.bench;

import io.github.llmrouter.api.Ticker;
import io.github.llmrouter.internal.load.LocalLoad;
import io.github.llmrouter.load.LoadReport;
import io.github.llmrouter.load.LoadView;
import io.github.llmrouter.replica.Replica;
import io.github.llmrouter.replica.ReplicaSet;
import io.github.llmrouter.routing.LeastLoaded;
import io.github.llmrouter.routing.PrefixHash;
import io.github.llmrouter.routing.Ranking;
import io.github.llmrouter.routing.ReplicaPicker;
import io.github.llmrouter.routing.RoutingPolicy;
import io.github.llmrouter.routing.RoutingRequest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.infra.Blackhole;

/**
 * One routing decision, as the client makes it for every request: build the {@link RoutingRequest}
 * of a chat-like prompt, rank the replicas under the current load, take rank 0.
 *
 * <p>1024 distinct prompts are cycled (distinct within their first 100 characters, so every
 * decision hashes a new key and walks a different part of the ring), and the load view holds 0..10
 * requests in flight per replica, fixed per trial, so that the load bound skips some replicas.
 *
 * <pre>
 * mvn -B -q test-compile exec:exec@jmh -Djmh.args="RoutingDecisionBenchmark -f 1 -wi 3 -w 1s -i 5 -r 1s -prof gc"
 * </pre>
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class RoutingDecisionBenchmark {
  static final String MODEL = "meta-llama/Llama-3.1-8B-Instruct";
  static final int PROMPTS = 1024; // a power of two: the cursor wraps with a mask

  private static final String[] SYSTEM_PROMPTS = {
    "You are a helpful assistant.",
    "You are a senior Java engineer. Answer with code first, then a short explanation.",
    "You are a customer support agent for an online bookshop. Be concise and polite.",
    "Summarise the following document for an executive audience.",
    "You translate English into French, preserving formatting.",
    "You are a SQL expert. Reply with a single query.",
    "Extract every date and amount from the text as JSON.",
    "You are a tutor. Explain step by step, then ask one question back.",
  };
  private static final String[] WORDS = {
    "the", "request", "replica", "cache", "prefix", "model", "latency", "token", "how", "why",
    "please", "explain", "order", "refund", "invoice", "kubernetes", "deploy", "error", "stack",
    "trace", "memory", "queue", "batch", "stream", "answer", "question", "function", "table",
  };

  /** Pre-generated prompts and the load of one trial; the cursor cycles through the prompts. */
  @State(Scope.Thread)
  public abstract static class Decision {
    String[] prompts;
    LoadView load;
    ReplicaPicker picker;
    int cursor;

    void setUp(RoutingPolicy policy, int replicas, int promptChars) {
      SplittableRandom random = new SplittableRandom(2024);
      prompts = new String[PROMPTS];
      for (int p = 0; p < PROMPTS; p++) prompts[p] = chatPrompt(random, promptChars);
      int[] inFlight = new int[replicas];
      for (int i = 0; i < replicas; i++) inFlight[i] = random.nextInt(11);
      load = new ArrayLoad(inFlight);
      List<Replica> list = new ArrayList<>();
      for (int i = 0; i < replicas; i++) {
        list.add(Replica.of("http://10.0." + (i / 250) + "." + (i % 250 + 1) + ":8000"));
      }
      picker = policy.newPicker(ReplicaSet.of(list));
    }

    int decide() {
      String prompt = prompts[cursor];
      cursor = (cursor + 1) & (PROMPTS - 1);
      Ranking ranking = picker.rank(RoutingRequest.of(MODEL, prompt), load);
      return ranking.next();
    }
  }

  /** The default policy across fleet and prompt sizes. */
  public static class PrefixHashDecision extends Decision {
    @Param({"8", "64", "256"})
    int replicas;

    @Param({"1024", "16384"})
    int promptChars;

    @Setup(Level.Trial)
    public void setUp() {
      setUp(PrefixHash.builder().build(), replicas, promptChars);
    }
  }

  /** The baselines, for comparison, at 64 replicas. */
  public static class BaselineDecision extends Decision {
    @Param({"RoundRobin", "LeastLoaded"})
    String policy;

    @Param({"1024", "16384"})
    int promptChars;

    @Setup(Level.Trial)
    public void setUp() {
      RoutingPolicy p = policy.equals("RoundRobin")
          ? RoutingPolicy.roundRobin() : LeastLoaded.powerOfTwoChoices(7);
      setUp(p, 64, promptChars);
    }
  }

  /**
   * The default policy at 64 replicas with load reports present, read through the client's own
   * view ({@link LocalLoad}: volatile report snapshots, atomic counters, the system ticker for
   * staleness). Every replica reports a running batch of 8 and a recent queue wait, so every
   * decision applies the reported-load bound and the queue-wait lengthening. {@code typical}: reported
   * queues 0..6 and KV usage 0.2..1.0, so the key owner is at a threshold about half the time and
   * the decision looks for an idle replica with room (which fixes the limit) before skipping it;
   * {@code saturated}: every replica at or above the queue threshold, so one pass over all 64 finds
   * the shortest queue and the owner keeps its key unless far behind it.
   */
  public static class ReportedDecision extends Decision {
    @Param({"typical", "saturated"})
    String reports;

    @Setup(Level.Trial)
    public void setUp() {
      setUp(PrefixHash.builder().build(), 64, 1024);
      SplittableRandom random = new SplittableRandom(99);
      List<Replica> list = new ArrayList<>();
      for (int i = 0; i < 64; i++) {
        list.add(Replica.of("http://10.0." + (i / 250) + "." + (i % 250 + 1) + ":8000"));
      }
      ReplicaSet set = ReplicaSet.of(list);
      picker = PrefixHash.builder().build().newPicker(set);
      LocalLoad view = LocalLoad.of(set, Ticker.system(), Duration.ofHours(1));
      for (int i = 0; i < 64; i++) {
        for (int k = random.nextInt(11); k > 0; k--) view.counter(i).acquire();
        int waiting = reports.equals("typical") ? random.nextInt(7) : 4 + random.nextInt(20);
        double kv = 0.2 + 0.8 * random.nextDouble();
        // Two scrapes a second apart, so that each replica has a recent queue wait (0.1–2 s).
        long at = Ticker.system().read();
        double wait = 0.1 + 1.9 * random.nextDouble();
        view.publish(i, new LoadReport(waiting, 8, kv, 100.0, 100.0, at - 1_000_000_000L,
            LoadReport.Source.SCRAPE), false);
        view.publish(i, new LoadReport(waiting, 8, kv, 100.0 + 10 * wait, 110.0, at,
            LoadReport.Source.SCRAPE), false);
      }
      load = view;
    }
  }

  @Benchmark
  public void prefixHashWithReports(ReportedDecision state, Blackhole blackhole) {
    blackhole.consume(state.decide());
  }

  @Benchmark
  public void prefixHash(PrefixHashDecision state, Blackhole blackhole) {
    blackhole.consume(state.decide());
  }

  @Benchmark
  public void baseline(BaselineDecision state, Blackhole blackhole) {
    blackhole.consume(state.decide());
  }

  /** A chat-like prompt: a system prompt, then a user message of random words. */
  static String chatPrompt(SplittableRandom random, int chars) {
    StringBuilder b = new StringBuilder(chars + 16);
    b.append("<|system|>").append(SYSTEM_PROMPTS[random.nextInt(SYSTEM_PROMPTS.length)])
        .append("\n<|user|>");
    while (b.length() < chars) b.append(WORDS[random.nextInt(WORDS.length)]).append(' ');
    b.setLength(chars);
    return b.toString();
  }

  /** In-flight counts fixed for a trial; the total is kept, as the client's own view keeps it. */
  static final class ArrayLoad implements LoadView {
    private final int[] inFlight;
    private final long total;

    ArrayLoad(int[] inFlight) {
      this.inFlight = inFlight;
      long t = 0;
      for (int x : inFlight) t += x;
      this.total = t;
    }

    @Override
    public int inFlight(int index) {
      return inFlight[index];
    }

    @Override
    public long totalInFlight() {
      return total;
    }
  }
}
