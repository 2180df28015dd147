package io.github.llmrouter.bench;

import io.github.llmrouter.internal.load.LocalLoad;
import io.github.llmrouter.replica.ReplicaSet;
import io.github.llmrouter.routing.CacheAware;
import io.github.llmrouter.routing.ReplicaPicker;
import io.github.llmrouter.routing.RoutingRequest;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;

/**
 * Agent-sized prompts at 64 replicas under {@link CacheAware}: 1 MiB (1,048,576 characters, about
 * 260 K tokens) of chat, a 24 KB system preamble shared by every conversation, then tool outputs
 * of 8 KB alternating with 1 KB assistant turns.
 *
 * <ul>
 *   <li>{@code coldHash}: a 1 MiB prompt hashed from its first character, nothing of it seen
 *       before (each call names another of 4,096 models, so no earlier hashing can be resumed).
 *   <li>{@code continueAndDecide}: the next turn of one of 8 conversations this client sent: its
 *       earlier messages are the same {@code String}s as in the turn sent before, its last 8 KB
 *       are new (a {@code StringBuilder}, hashed afresh on every call); the request is built,
 *       hashed and ranked, and rank 0 taken, as a call does.
 * </ul>
 *
 * <pre>
 * mvn -B -q test-compile exec:exec@jmh -Djmh.args="LongPromptBenchmark -f 1 -wi 3 -w 2s -i 5 -r 2s -prof gc"
 * </pre>
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@State(Scope.Thread)
public class LongPromptBenchmark {
  static final String MODEL = "meta-llama/Llama-3.1-8B-Instruct";
  static final int REPLICAS = 64;
  static final int PROMPT_CHARS = 1 << 20;
  static final int PREAMBLE_CHARS = 24_000;
  static final int TOOL_CHARS = 8192;
  static final int ANSWER_CHARS = 1024;
  static final int CONVERSATIONS = 8;
  static final int MODELS = 4096;

  private String preamble;
  private String[][] earlier; // per conversation: the messages sent before, without the new tail
  private StringBuilder[] tails;
  private String[] models;
  private ReplicaPicker picker;
  private LocalLoad load;
  private int cursor;
  private int model;

  @Setup(Level.Trial)
  public void setUp() {
    SplittableRandom random = new SplittableRandom(33);
    ReplicaSet set = BenchFleets.replicas(REPLICAS);
    load = BenchFleets.reportingLoad(set, random);
    picker = CacheAware.builder().build().newPicker(set);
    preamble = CacheAwareDecisionBenchmark.text(random, PREAMBLE_CHARS);
    earlier = new String[CONVERSATIONS][];
    tails = new StringBuilder[CONVERSATIONS];
    for (int c = 0; c < CONVERSATIONS; c++) {
      List<String> messages = new ArrayList<>();
      messages.add(preamble);
      int chars = PREAMBLE_CHARS;
      while (chars < PROMPT_CHARS - TOOL_CHARS) {
        int size = Math.min(messages.size() % 2 == 1 ? TOOL_CHARS : ANSWER_CHARS,
            PROMPT_CHARS - TOOL_CHARS - chars);
        messages.add(CacheAwareDecisionBenchmark.text(random, size));
        chars += size;
      }
      earlier[c] = messages.toArray(new String[0]);
      tails[c] = new StringBuilder(CacheAwareDecisionBenchmark.text(random, TOOL_CHARS));
      BenchFleets.send(picker, load, request(MODEL, earlier[c], null)); // the turn this client sent before
    }
    models = new String[MODELS];
    for (int m = 0; m < MODELS; m++) models[m] = MODEL + "-" + m;
  }

  private static RoutingRequest request(String model, String[] messages,
      CharSequence tail) {
    // Sized as LlmClient sizes it, from the request's message count.
    RoutingRequest.Builder b = RoutingRequest.builder(model, messages.length + 1);
    for (int k = 0; k < messages.length; k++) {
      b.message(k == 0 ? "system" : k % 2 == 1 ? "user" : "assistant", messages[k]);
    }
    if (tail != null) b.message(messages.length % 2 == 1 ? "user" : "assistant", tail);
    return b.build();
  }

  @Benchmark
  public Object coldHash() {
    String m = models[model];
    model = (model + 1) & (MODELS - 1);
    String[] c = earlier[cursor];
    cursor = (cursor + 1) & (CONVERSATIONS - 1);
    return request(m, c, tails[0]).blocks();
  }

  @Benchmark
  public int continueAndDecide() {
    int c = cursor;
    cursor = (cursor + 1) & (CONVERSATIONS - 1);
    return picker.rank(request(MODEL, earlier[c], tails[c]), load).next();
  }
}
