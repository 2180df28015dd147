package io.github.llmrouter.engine;

import io.github.llmrouter.LlmClient;
import io.github.llmrouter.api.ChatChunk;
import io.github.llmrouter.api.ChatMessage;
import io.github.llmrouter.api.ChatRequest;
import io.github.llmrouter.api.ResponseStream;
import io.github.llmrouter.dispatch.HedgePolicy;
import io.github.llmrouter.observe.HedgeEvent;
import io.github.llmrouter.observe.RoutingListener;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Measures hedging against four real llama-server replicas on loopback, one of which gets a fifth
 * of the CPU time (stopped with SIGSTOP for 80 ms of every 100 ms): streamed chat calls from 1 and
 * 4 callers sharing one client, with and without hedging; prints time to first token (p50, p99,
 * mean) and the share of calls that sent a hedge and that the hedge won. Needs {@code
 * LLAMA_SERVER}. Run with:
 *
 * <pre>{@code
 * mvn -B -q test-compile dependency:build-classpath -Dmdep.outputFile=/tmp/cp.txt \
 *     -Dmdep.includeScope=test
 * LLAMA_SERVER=../shared/engines/llama.cpp/llama-server \
 *     java -cp target/test-classes:target/classes:$(cat /tmp/cp.txt) \
 *     io.github.llmrouter.engine.LlamaHedgingStudy [calls per caller]
 * }</pre>
 */
public final class LlamaHedgingStudy {
  private LlamaHedgingStudy() {}

  public static void main(String[] args) throws Exception {
    int calls = args.length > 0 ? Integer.parseInt(args[0]) : 60;
    List<LlamaServers.Server> servers = LlamaServers.start(4, "hedge");
    LlamaServers.Server slow = servers.get(3);
    AtomicBoolean throttling = new AtomicBoolean(true);
    Thread throttle = new Thread(() -> {
      while (throttling.get()) {
        slow.freeze(true);
        pause(80);
        slow.freeze(false);
        pause(20);
      }
    }, "throttle");
    throttle.setDaemon(true);
    throttle.start();
    System.out.printf(Locale.ROOT, "%-7s %6s %9s %9s %9s %8s %8s%n", "callers", "hedge", "p50 ms",
        "p99 ms", "mean ms", "hedged", "won");
    try {
      for (int callers : new int[] {1, 4}) {
        for (boolean hedging : new boolean[] {false, true}) {
          run(servers, callers, calls, hedging);
        }
      }
    } finally {
      throttling.set(false);
      throttle.join();
      slow.freeze(false);
      servers.forEach(LlamaServers.Server::close);
    }
  }

  private static void pause(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private static void run(List<LlamaServers.Server> servers, int callers, int calls,
      boolean hedging) throws Exception {
    AtomicInteger hedged = new AtomicInteger();
    AtomicInteger won = new AtomicInteger();
    RoutingListener counting = new RoutingListener() {
      @Override
      public void onHedge(HedgeEvent e) {
        hedged.incrementAndGet();
        if (e.winner() == HedgeEvent.Winner.HEDGE) won.incrementAndGet();
      }
    };
    List<Long> ttft = Collections.synchronizedList(new ArrayList<>());
    try (LlmClient client = LlmClient.builder().replicas(LlamaServers.replicas(servers))
        .listener(counting)
        .hedgePolicy(hedging ? HedgePolicy.defaults() : HedgePolicy.disabled()).build()) {
      ExecutorService pool = Executors.newFixedThreadPool(callers);
      List<Future<?>> running = new ArrayList<>();
      for (int c = 0; c < callers; c++) {
        SplittableRandom random = new SplittableRandom(31 * c + (hedging ? 1 : 0));
        running.add(pool.submit(() -> {
          for (int i = 0; i < calls; i++) {
            StringBuilder prompt = new StringBuilder();
            int words = 10 + random.nextInt(60);
            for (int w = 0; w < words; w++) {
              prompt.append("word").append(random.nextInt(1000)).append(' ');
            }
            ChatRequest request = ChatRequest.builder("tiny")
                .message(ChatMessage.user(prompt.toString())).maxTokens(8).build();
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
    System.out.printf(Locale.ROOT, "%-7d %6s %9.1f %9.1f %9.1f %7.1f%% %7.1f%%%n", callers,
        hedging ? "on" : "off", at(sorted, 0.50), at(sorted, 0.99), mean,
        100.0 * hedged.get() / sorted.size(), 100.0 * won.get() / sorted.size());
  }

  private static double at(List<Long> sorted, double q) {
    return sorted.get(Math.min(sorted.size() - 1, (int) Math.floor(q * sorted.size()))) / 1e6;
  }
}
