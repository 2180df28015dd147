package io.github.llmrouter.bench;

import io.github.llmrouter.internal.load.LocalLoad;
import io.github.llmrouter.replica.ReplicaSet;
import io.github.llmrouter.routing.CacheAware;
import io.github.llmrouter.routing.Ranking;
import io.github.llmrouter.routing.ReplicaPicker;
import io.github.llmrouter.routing.RoutedAttempt;
import io.github.llmrouter.routing.RoutingRequest;
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

/**
 * One {@link CacheAware} decision at 64, 256 and 1,024 replicas ({@code -p replicas=64} picks
 * one) on 16 KB chat prompts, with the client's index warm: 100,000 prompts sent before measuring
 * (6.4 million blocks through an index of 524,288, so it is full and evicting), every replica
 * reporting its queue, running batch, requests awaiting a first token and queue wait through the
 * client's own {@link LocalLoad}.
 *
 * <p>The measured prompts are 1,024 conversations (one of 8 system prompts of 4 KB, then 12 KB of
 * turns) whose earlier turns were among the warm-up's, so decisions find deep matches in the
 * index. {@code decide}: rank and take rank 0, the request's blocks already hashed (the client
 * hashes a prompt once per request, whatever consumes it; {@link PromptHashingBenchmark} measures
 * that); {@code hashAndDecide}: a fresh request, hashed, then the decision; {@code decideAndSend}:
 * the decision and the bookkeeping of sending (recording the blocks, the prefill estimate).
 *
 * <pre>
 * mvn -B -q test-compile exec:exec@jmh -Djmh.args="CacheAwareDecisionBenchmark -f 1 -wi 5 -w 2s -i 5 -r 2s -prof gc"
 * </pre>
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@State(Scope.Thread)
public class CacheAwareDecisionBenchmark {
  static final String MODEL = "meta-llama/Llama-3.1-8B-Instruct";
  /** Replicas in the fleet. */
  @Param({"64", "256", "1024"})
  public int replicas;

  static final int WARM_PROMPTS = 100_000;
  static final int MEASURED = 1024; // a power of two: the cursor wraps with a mask
  static final int SYSTEM_CHARS = 4096;
  static final int PROMPT_CHARS = 16_384;

  private String[] systems;
  private String[][] measured;
  private RoutingRequest[] requests;
  private ReplicaPicker picker;
  private LocalLoad load;
  private CacheAware policy;
  private int cursor;

  @Setup(Level.Trial)
  public void setUp() {
    SplittableRandom random = new SplittableRandom(2024);
    ReplicaSet set = BenchFleets.replicas(replicas);
    load = BenchFleets.reportingLoad(set, random);
    long heapBefore = usedHeap();
    policy = CacheAware.builder().build();
    picker = policy.newPicker(set);
    long heapAfter = usedHeap();
    System.out.printf("%nindex: bound %,d bytes; heap grew by %,d bytes when it was allocated%n",
        policy.indexBytes(), heapAfter - heapBefore);

    systems = new String[8];
    for (int s = 0; s < systems.length; s++) systems[s] = text(random, SYSTEM_CHARS);
    // The measured conversations: their first turns are sent during the warm-up.
    measured = new String[MEASURED][];
    for (int c = 0; c < MEASURED; c++) {
      measured[c] = new String[] {systems[c & 7], text(random, 4000), text(random, 4000),
          text(random, PROMPT_CHARS - SYSTEM_CHARS - 8000)};
    }
    for (int k = 0; k < WARM_PROMPTS; k++) {
      RoutingRequest r;
      if (k >= WARM_PROMPTS - MEASURED) {
        String[] c = measured[k - (WARM_PROMPTS - MEASURED)];
        r = RoutingRequest.builder(MODEL).message("system", c[0]).message("user", c[1])
            .message("assistant", c[2]).build();
      } else {
        // Distinct conversations: a system prompt, then 12 KB of text that differs from the
        // start (only its first block is drawn at random; the rest repeats, which does not
        // change the hashes, chained as they are).
        r = RoutingRequest.builder(MODEL).message("system", systems[k & 7])
            .message("user", k + " " + FILLER).build();
      }
      send(r);
    }
    requests = new RoutingRequest[MEASURED];
    for (int c = 0; c < MEASURED; c++) {
      requests[c] = request(measured[c]);
      requests[c].blocks(); // hashed once per request, before any decision
    }
  }

  private static final String FILLER;

  static {
    StringBuilder b = new StringBuilder();
    SplittableRandom random = new SplittableRandom(1);
    b.append(text(random, PROMPT_CHARS - SYSTEM_CHARS - 16));
    FILLER = b.toString();
  }

  private static RoutingRequest request(String[] c) {
    return RoutingRequest.builder(MODEL).message("system", c[0]).message("user", c[1])
        .message("assistant", c[2]).message("user", c[3]).build();
  }

  private void send(RoutingRequest r) {
    BenchFleets.send(picker, load, r);
  }

  private static long usedHeap() {
    Runtime rt = Runtime.getRuntime();
    for (int k = 0; k < 3; k++) System.gc();
    return rt.totalMemory() - rt.freeMemory();
  }

  static String text(SplittableRandom random, int chars) {
    char[] c = new char[chars];
    for (int i = 0; i < chars; i++) {
      int r = random.nextInt(28);
      c[i] = r < 26 ? (char) ('a' + r) : ' ';
    }
    return new String(c);
  }

  @Benchmark
  public int decide() {
    RoutingRequest r = requests[cursor];
    cursor = (cursor + 1) & (MEASURED - 1);
    return picker.rank(r, load).next();
  }

  @Benchmark
  public int hashAndDecide() {
    String[] c = measured[cursor];
    cursor = (cursor + 1) & (MEASURED - 1);
    return picker.rank(request(c), load).next();
  }

  @Benchmark
  public Object decideAndSend() {
    RoutingRequest r = requests[cursor];
    cursor = (cursor + 1) & (MEASURED - 1);
    Ranking ranking = picker.rank(r, load);
    int i = ranking.next();
    RoutedAttempt attempt = ranking.sent(i, load.nanoTime(), true);
    attempt.firstToken(load.nanoTime());
    // Ended as a call ends it, so that what it holds on its replica is freed.
    attempt.completed(-1, -1, load.nanoTime());
    return attempt;
  }
}
