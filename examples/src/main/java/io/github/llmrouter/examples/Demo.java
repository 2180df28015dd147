package io.github.llmrouter.examples;

import io.github.llmrouter.LlmClient;
import io.github.llmrouter.LlmClientBuilder;
import io.github.llmrouter.api.ChatChunk;
import io.github.llmrouter.api.ChatMessage;
import io.github.llmrouter.api.ChatRequest;
import io.github.llmrouter.api.ResponseStream;
import io.github.llmrouter.routing.PrefixHash;
import io.github.llmrouter.routing.RoutingPolicy;
import io.github.llmrouter.emulator.EmulatedReplica;
import io.github.llmrouter.emulator.EmulatedReplicaStats;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

/**
 * The demo: four emulated vLLM-like replicas on loopback, a multi-turn chat workload with shared
 * system prompts, sent through {@link LlmClient} with round robin, with prefix-hash routing and
 * with the client's default ({@code CacheAware}), and a side-by-side summary of where requests
 * went, the replicas' prefix-cache hit rate and time to first token.
 *
 * <p>Run it with {@code mvn -B -q test-compile exec:java@demo}. Every number comes from real HTTP
 * calls to real (emulated) servers; only GPU time is modelled, as a delay that grows with the
 * prompt characters missing from a replica's prefix cache.
 */
public final class Demo {
  private static final int REPLICAS = 4;
  private static final int SYSTEM_PROMPTS = 6;
  private static final String MODEL = "llama-3.1-8b-instruct";

  private Demo() {}

  /** What one policy achieved. */
  public record Result(String policy, long[] requestsPerReplica, double hitRate, double ttftMeanMs,
      double ttftP99Ms, double seconds) {}

  public static void main(String[] args) throws Exception {
    boolean quick = Arrays.asList(args).contains("--quick");
    int conversations = quick ? 16 : 32;
    int turns = quick ? 3 : 5;
    List<Result> results = List.of(
        run(RoutingPolicy.roundRobin(), conversations, turns),
        run(PrefixHash.builder().build(), conversations, turns),
        run(RoutingPolicy.defaultPolicy(), conversations, turns));
    System.out.print(summary(conversations, turns, results));
  }

  /** Runs the workload against fresh replicas with {@code policy}. */
  public static Result run(RoutingPolicy policy, int conversations, int turns) throws Exception {
    List<EmulatedReplica> replicas = new ArrayList<>();
    try {
      for (int i = 0; i < REPLICAS; i++) {
        // A cache that holds a quarter of the workload's prompts: enough for the share of
        // conversations a replica owns under affinity routing, not for all of them.
        replicas.add(EmulatedReplica.builder().id("replica-" + i).model(MODEL).cacheBlocks(640)
            .build().start());
      }
      LlmClientBuilder builder = LlmClient.builder().routingPolicy(policy);
      for (EmulatedReplica r : replicas) builder.replicas(r.baseUrl());
      List<Double> ttftMs = new ArrayList<>();
      long started = System.nanoTime();
      try (LlmClient client = builder.build()) {
        ExecutorService callers = Executors.newFixedThreadPool(8);
        try {
          List<Future<List<Double>>> futures = new ArrayList<>();
          for (int c = 0; c < conversations; c++) {
            int conversation = c;
            futures.add(callers.submit(() -> converse(client, conversation, turns)));
          }
          for (Future<List<Double>> f : futures) ttftMs.addAll(f.get(5, TimeUnit.MINUTES));
        } finally {
          callers.shutdownNow();
        }
      }
      double seconds = (System.nanoTime() - started) / 1e9;
      long[] perReplica = new long[REPLICAS];
      long prompt = 0;
      long cached = 0;
      for (int i = 0; i < REPLICAS; i++) {
        EmulatedReplicaStats s = replicas.get(i).stats();
        perReplica[i] = s.chatRequests();
        prompt += s.promptChars();
        cached += s.cachedChars();
      }
      ttftMs.sort(null);
      double mean = ttftMs.stream().mapToDouble(Double::doubleValue).average().orElse(0);
      double p99 = ttftMs.get(Math.min(ttftMs.size() - 1, (int) Math.ceil(0.99 * ttftMs.size()) - 1));
      return new Result(policy.name(), perReplica, prompt == 0 ? 0 : (double) cached / prompt,
          mean, p99, seconds);
    } finally {
      for (EmulatedReplica r : replicas) r.close();
    }
  }

  /** One user's conversation: each turn resends the whole history, as chat clients do. */
  private static List<Double> converse(LlmClient client, int conversation, int turns) {
    SplittableRandom random = new SplittableRandom(conversation);
    List<ChatMessage> history = new ArrayList<>();
    history.add(ChatMessage.system(systemPrompt(conversation % SYSTEM_PROMPTS)));
    List<Double> ttft = new ArrayList<>();
    for (int t = 0; t < turns; t++) {
      history.add(ChatMessage.user(question(conversation, t, random)));
      ChatRequest request = ChatRequest.builder(MODEL).messages(history).maxTokens(24).build();
      long start = System.nanoTime();
      StringBuilder answer = new StringBuilder();
      // chatStream returns once the first token has arrived: that is the time to first token.
      try (ResponseStream<ChatChunk> stream = client.chatStream(request)) {
        ttft.add((System.nanoTime() - start) / 1e6);
        for (ChatChunk chunk : stream) answer.append(chunk.text());
      }
      history.add(ChatMessage.assistant(answer.toString()));
    }
    return ttft;
  }

  private static String systemPrompt(int product) {
    StringBuilder s = new StringBuilder("You are the support assistant for product #" + product
        + ". Follow the policies below exactly.\n");
    SplittableRandom r = new SplittableRandom(1000 + product);
    while (s.length() < 1500) s.append("Policy ").append(r.nextInt(1000)).append(": be precise. ");
    return s.toString();
  }

  private static String question(int conversation, int turn, SplittableRandom random) {
    StringBuilder q = new StringBuilder("[user " + conversation + "] ");
    q.append(turn == 0 ? "I have a problem with my order, here are the details: "
        : "Follow-up " + turn + ": ");
    while (q.length() < 600) q.append("detail-").append(random.nextInt(100_000)).append(' ');
    return q.toString();
  }

  /**
   * What the demo prints: the workload, a line per policy (round robin, prefix hash, then the
   * client's default), and the default against the other two.
   */
  public static String summary(int conversations, int turns, List<Result> results) {
    StringBuilder s = new StringBuilder();
    s.append(String.format(Locale.ROOT, "%d emulated replicas, %d conversations x %d turns, %d "
        + "shared system prompts, 8 concurrent callers%n%n", REPLICAS, conversations, turns,
        SYSTEM_PROMPTS));
    s.append(String.format(Locale.ROOT, "%-22s %-24s %10s %12s %12s %8s%n", "policy",
        "requests per replica", "cache hit", "TTFT mean", "TTFT p99", "wall"));
    for (Result r : results) {
      String name = r.policy().equals(RoutingPolicy.defaultPolicy().name())
          ? r.policy() + " (default)" : r.policy();
      s.append(String.format(Locale.ROOT, "%-22s %-24s %9.1f%% %10.1fms %10.1fms %7.1fs%n", name,
          Arrays.toString(r.requestsPerReplica()), 100 * r.hitRate(), r.ttftMeanMs(),
          r.ttftP99Ms(), r.seconds()));
    }
    Result rr = results.get(0);
    Result ph = results.get(1);
    Result ca = results.get(2);
    s.append(String.format(Locale.ROOT, "%n%s vs PrefixHash vs RoundRobin: cache hit rate %.1f%% / "
        + "%.1f%% / %.1f%%, mean TTFT %.1f / %.1f / %.1f ms (%.1fx and %.1fx faster)%n",
        ca.policy(), 100 * ca.hitRate(), 100 * ph.hitRate(), 100 * rr.hitRate(), ca.ttftMeanMs(),
        ph.ttftMeanMs(), rr.ttftMeanMs(), ph.ttftMeanMs() / ca.ttftMeanMs(),
        rr.ttftMeanMs() / ca.ttftMeanMs()));
    return s.toString();
  }
}
