package io.github.llmrouter.engine;

import io.github.llmrouter.HedgingStudy;
import io.github.llmrouter.LlmClient;
import io.github.llmrouter.LlmClientBuilder;
import io.github.llmrouter.dispatch.HedgePolicy;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicBoolean;

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
    System.out.printf(Locale.ROOT, "%-7s %6s %9s %9s %9s %8s %8s %9s%n", "callers", "hedge",
        "p50 ms", "p99 ms", "mean ms", "hedged", "won", "max ms");
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
    LlmClientBuilder client = LlmClient.builder().replicas(LlamaServers.replicas(servers))
        .hedgePolicy(hedging ? HedgePolicy.defaults() : HedgePolicy.disabled());
    System.out.printf(Locale.ROOT, "%-7d %6s %s%n", callers, hedging ? "on" : "off",
        HedgingStudy.measure(client, "tiny", callers, calls, hedging ? 2 : 1, 8));
  }
}
