package io.github.llmrouter;

import io.github.llmrouter.api.ChatChunk;
import io.github.llmrouter.api.ChatMessage;
import io.github.llmrouter.api.ChatRequest;
import io.github.llmrouter.api.ResponseStream;
import io.github.llmrouter.dispatch.HedgePolicy;
import io.github.llmrouter.emulator.EmulatedReplica;
import io.github.llmrouter.observe.HedgeEvent;
import io.github.llmrouter.observe.RoutingListener;
import io.github.llmrouter.replica.Replica;
import io.github.llmrouter.routing.RoutingPolicy;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Measures hedging on a fleet of four emulated replicas on loopback, one of which takes five times
 * as long to its first token as the others (or, with {@code hangs}, each of which never answers
 * 1 % of its requests): streamed chat calls from 1 and 8 callers sharing one client, each with and
 * without hedging, for several seeds of the prompts, on fresh replicas each time, with a 5 s
 * first-byte timeout; prints time to first token (p50, p99, mean) and the share of calls that
 * sent a hedge and that the hedge won.
 *
 * <p>With {@code wedged}, four equal replicas of which the last stalls every request two seconds
 * into the run (its front answers scrapes, streams get their headers and nothing more, as when
 * an engine is wedged behind its API server): each caller count and seed runs with the stall
 * watchdog off and on ({@code stallTimeout} 0 or its default), with hedging off and on, and the
 * table adds the slowest time to first token. Run with:
 *
 * <pre>{@code
 * mvn -B -q test-compile dependency:build-classpath -Dmdep.outputFile=/tmp/cp.txt \
 *     -Dmdep.includeScope=test
 * java -cp target/test-classes:target/classes:$(cat /tmp/cp.txt) \
 *     io.github.llmrouter.HedgingStudy [calls per caller] [policy: cacheAware|roundRobin] \
 *     [percentile] [slow|hangs|wedged]
 * }</pre>
 */
public final class HedgingStudy {
  private static final String[] WORDS = ("the of and to in is was for on that with as by at from "
      + "it an be this are or have not but cache prefix replica router token request answer")
      .split(" ");

  private HedgingStudy() {}

  public static void main(String[] args) throws Exception {
    int calls = args.length > 0 ? Integer.parseInt(args[0]) : 150;
    String policy = args.length > 1 ? args[1] : "cacheAware";
    double percentile = args.length > 2 ? Double.parseDouble(args[2])
        : HedgePolicy.DEFAULT_PERCENTILE;
    hangs = args.length > 3 && args[3].equals("hangs");
    wedged = args.length > 3 && args[3].equals("wedged");
    System.out.printf(Locale.ROOT, "%-10s %-7s %4s %6s %5s %9s %9s %9s %8s %8s %9s%n", "policy",
        "callers", "seed", "hedge", "stall", "p50 ms", "p99 ms", "mean ms", "hedged", "won",
        "max ms");
    for (int callers : new int[] {1, 8}) {
      for (long seed = 1; seed <= 3; seed++) {
        for (boolean watchdog : wedged ? new boolean[] {false, true} : new boolean[] {true}) {
          for (boolean hedging : new boolean[] {false, true}) {
            HedgePolicy hedge = hedging ? HedgePolicy.builder().percentile(percentile).build()
                : HedgePolicy.disabled();
            run(policy, callers, calls, seed, hedge, watchdog);
          }
        }
      }
    }
  }

  /** Whether the last replica's engine stalls two seconds into each run. */
  private static boolean wedged;

  /**
   * The fleet studied: four equal replicas each of which never answers 1 % of its requests, or
   * else four of which the last takes five times as long to its first token.
   */
  private static boolean hangs;

  /** Four fresh replicas (cold caches), as {@link #hangs} says. */
  private static List<EmulatedReplica> fleet() {
    List<EmulatedReplica> fleet = new ArrayList<>();
    for (int i = 0; i < 4; i++) {
      if (hangs) {
        EmulatedReplica r = EmulatedReplica.builder().id("r" + i)
            .baseLatency(Duration.ofMillis(20)).prefillNanosPerChar(10_000)
            .decodeInterval(Duration.ofMillis(1)).build().start();
        r.faults().randomly(100 + i, 0, 503, 0, 0.01);
        fleet.add(r);
        continue;
      }
      boolean slow = i == 3;
      fleet.add(EmulatedReplica.builder().id(slow ? "slow" : "fast" + i)
          .baseLatency(Duration.ofMillis(slow ? 100 : 20))
          .prefillNanosPerChar(slow ? 50_000 : 10_000)
          .decodeInterval(Duration.ofMillis(1)).build().start());
    }
    return fleet;
  }

  private static void run(String policy, int callers, int calls, long seed, HedgePolicy hedge,
      boolean watchdog) throws Exception {
    List<EmulatedReplica> fleet = fleet();
    ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor();
    try {
      if (wedged) {
        timer.schedule(() -> fleet.get(3).faults().stallNext(Integer.MAX_VALUE), 2,
            TimeUnit.SECONDS);
      }
      run(fleet, policy, callers, calls, seed, hedge, watchdog);
    } finally {
      timer.shutdownNow();
      fleet.forEach(EmulatedReplica::close);
    }
  }

  private static void run(List<EmulatedReplica> fleet, String policy, int callers, int calls,
      long seed, HedgePolicy hedge, boolean watchdog) throws Exception {
    List<Replica> replicas = new ArrayList<>();
    for (EmulatedReplica r : fleet) replicas.add(Replica.builder(r.baseUrl()).id(r.id()).build());
    LlmClientBuilder client = LlmClient.builder().replicas(replicas)
        .routingPolicy(policy.equals("roundRobin") ? RoutingPolicy.roundRobin()
            : RoutingPolicy.cacheAware())
        .hedgePolicy(hedge).firstByteTimeout(Duration.ofSeconds(5));
    if (!watchdog) client.stallTimeout(Duration.ZERO);
    System.out.printf(Locale.ROOT, "%-10s %-7d %4d %6s %5s %s%n", policy, callers, seed,
        hedge.enabled() ? "on" : "off", watchdog ? "on" : "off",
        measure(client, "m", callers, calls, seed, 16));
  }

  /**
   * Runs {@code calls} streamed chat calls of 20 to 200 words from each of {@code callers}
   * threads sharing the client {@code builder} builds, and returns their time to first token
   * (p50, p99, mean, in ms), the shares of calls that sent a hedge and that the hedge won, and the
   * slowest time to first token, as table columns.
   */
  public static String measure(LlmClientBuilder builder, String model, int callers, int calls,
      long seed, int maxTokens) throws Exception {
    AtomicInteger hedged = new AtomicInteger();
    AtomicInteger hedgeWon = new AtomicInteger();
    RoutingListener counting = new RoutingListener() {
      @Override
      public void onHedge(HedgeEvent e) {
        hedged.incrementAndGet();
        if (e.winner() == HedgeEvent.Winner.HEDGE) hedgeWon.incrementAndGet();
      }
    };
    List<Long> ttft = Collections.synchronizedList(new ArrayList<>());
    try (LlmClient client = builder.listener(counting).build()) {
      ExecutorService pool = Executors.newFixedThreadPool(callers);
      List<Future<?>> running = new ArrayList<>();
      for (int c = 0; c < callers; c++) {
        SplittableRandom random = new SplittableRandom(seed * 1000 + c);
        running.add(pool.submit(() -> {
          for (int i = 0; i < calls; i++) {
            StringBuilder prompt = new StringBuilder();
            int words = 20 + random.nextInt(180);
            for (int w = 0; w < words; w++) prompt.append(WORDS[random.nextInt(WORDS.length)])
                .append(' ');
            ChatRequest request = ChatRequest.builder(model)
                .message(ChatMessage.user(prompt.toString())).maxTokens(maxTokens).build();
            long t0 = System.nanoTime();
            try (ResponseStream<ChatChunk> stream = client.chatStream(request)) {
              ttft.add(System.nanoTime() - t0);
              stream.forEach(chunk -> { });
            }
          }
          return null;
        }));
      }
      for (Future<?> f : running) f.get();
      pool.shutdown();
    }
    List<Long> sorted = new ArrayList<>(ttft);
    Collections.sort(sorted);
    double mean = sorted.stream().mapToLong(Long::longValue).average().orElse(0) / 1e6;
    return String.format(Locale.ROOT, "%9.1f %9.1f %9.1f %7.1f%% %7.1f%% %9.1f", at(sorted, 0.50),
        at(sorted, 0.99), mean, 100.0 * hedged.get() / sorted.size(),
        100.0 * hedgeWon.get() / sorted.size(), sorted.get(sorted.size() - 1) / 1e6);
  }

  private static double at(List<Long> sorted, double q) {
    return sorted.get(Math.min(sorted.size() - 1, (int) Math.floor(q * sorted.size()))) / 1e6;
  }
}
