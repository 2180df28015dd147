package io.github.llmrouter.bench;

import io.github.llmrouter.routing.PromptBlocks;
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
 * Hashing a chat prompt into chained blocks, as a request's {@link RoutingRequest#blocks()} does
 * once per request: a system prompt of a quarter of the characters, then alternating user and
 * assistant messages of 1,000 characters. 64 distinct prompts are cycled. {@code requestBlocks}
 * hashes each from its first character (each call names another of 4,096 models, so nothing
 * hashed before can be resumed); {@code resumedBlocks} hashes the same messages again, as the next
 * request of a conversation whose history is kept does.
 *
 * <pre>
 * mvn -B -q test-compile exec:exec@jmh -Djmh.args="PromptHashingBenchmark -f 1 -wi 3 -w 1s -i 5 -r 1s -prof gc"
 * </pre>
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@State(Scope.Thread)
public class PromptHashingBenchmark {
  static final String MODEL = "meta-llama/Llama-3.1-8B-Instruct";
  static final int PROMPTS = 64;

  @Param({"1024", "16384"})
  int promptChars;

  static final int MODELS = 4096;

  String[][] roles;
  String[][] contents;
  String[] models;
  int cursor;
  int model;

  @Setup(Level.Trial)
  public void setUp() {
    models = new String[MODELS];
    for (int m = 0; m < MODELS; m++) models[m] = MODEL + "-" + m;
    SplittableRandom random = new SplittableRandom(7);
    roles = new String[PROMPTS][];
    contents = new String[PROMPTS][];
    for (int p = 0; p < PROMPTS; p++) {
      int system = promptChars / 4;
      int rest = promptChars - system;
      int turns = Math.max(1, (rest + 999) / 1000);
      roles[p] = new String[turns + 1];
      contents[p] = new String[turns + 1];
      roles[p][0] = "system";
      contents[p][0] = text(random, system);
      for (int t = 0; t < turns; t++) {
        roles[p][t + 1] = t % 2 == 0 ? "user" : "assistant";
        contents[p][t + 1] = text(random, Math.min(1000, rest - t * 1000));
      }
    }
  }

  static String text(SplittableRandom random, int chars) {
    StringBuilder b = new StringBuilder(chars);
    while (b.length() < chars) b.append((char) ('a' + random.nextInt(26)));
    return b.toString();
  }

  /** Builds the request and hashes its blocks: what the client pays once per request. */
  @Benchmark
  public PromptBlocks requestBlocks() {
    String m = models[model];
    model = (model + 1) & (MODELS - 1);
    return blocks(m);
  }

  /** The same, for messages hashed before: what a conversation's next turn pays for them. */
  @Benchmark
  public PromptBlocks resumedBlocks() {
    return blocks(MODEL);
  }

  private PromptBlocks blocks(String model) {
    int p = cursor;
    cursor = (cursor + 1) & (PROMPTS - 1);
    RoutingRequest.Builder b = RoutingRequest.builder(model, roles[p].length);
    String[] r = roles[p];
    String[] c = contents[p];
    for (int k = 0; k < r.length; k++) b.message(r[k], c[k]);
    return b.build().blocks();
  }
}
