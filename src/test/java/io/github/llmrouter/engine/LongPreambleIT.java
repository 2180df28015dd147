package io.github.llmrouter.engine;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.llmrouter.LlmClient;
import io.github.llmrouter.api.ChatMessage;
import io.github.llmrouter.api.ChatRequest;
import io.github.llmrouter.observe.RoutedEvent;
import io.github.llmrouter.routing.CacheAware;
import io.github.llmrouter.routing.RoutingPolicy;
import io.github.llmrouter.testing.EventRecorder;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Conversations behind a shared preamble longer than the blocks a client keeps densely, against
 * real llama.cpp servers: 9 conversations of 4 turns from 3 caller threads sharing one {@code
 * LlmClient}, as applications run it, each caller sending its 3 conversations in turn. The
 * replica that caches the preamble first is the cheapest place for every first turn, so
 * conversations must find their homes past the preamble, or every call lands on one replica.
 * Scaled down so that the tiny CPU model prefills it in seconds: 16-character blocks, so the 256
 * dense blocks end at 4 KB, and a 6 KB preamble (as a 100 KB preamble is past the 64 KB of the
 * default 256-character blocks).
 *
 * <p>The same workload is run under round robin and under sticky sessions ({@link
 * RoutingPolicy#prefixHash()} keyed by the conversation), on restarted servers each time, and
 * CacheAware is judged against them: calls spread, latency, and the share of prompt tokens the
 * servers served from their caches by their own counters.
 */
@Timeout(value = 10, unit = TimeUnit.MINUTES)
class LongPreambleIT {
  private static final int CALLERS = 3;
  private static final int CONVERSATIONS_PER_CALLER = 3;
  private static final int TURNS = 4;
  private static final int BLOCK_CHARS = 16;
  private static final int PREAMBLE_CHARS = 6_000;
  private static final List<LlamaServers.Server> servers = new ArrayList<>();
  private final ExecutorService callers = Executors.newFixedThreadPool(CALLERS);

  @BeforeAll
  static void startServers() {
    servers.addAll(LlamaServers.start(3, "p"));
  }

  @AfterAll
  static void stopServers() {
    servers.forEach(LlamaServers.Server::close);
  }

  @AfterEach
  void stopCallers() throws InterruptedException {
    callers.shutdownNow();
    callers.awaitTermination(30, TimeUnit.SECONDS);
  }

  /** What one policy did with the workload. */
  record Run(String policy, Map<String, Integer> calls, double meanSeconds, double cachedShare) {
    int busiest() {
      return calls.values().stream().mapToInt(Integer::intValue).max().orElse(0);
    }

    int total() {
      return calls.values().stream().mapToInt(Integer::intValue).sum();
    }

    @Override
    public String toString() {
      return String.format(Locale.ROOT, "%s: calls %s, mean latency %.2f s, cached %.1f%%",
          policy, calls, meanSeconds, 100 * cachedShare);
    }
  }

  @Test
  void conversationsBehindALongSharedPreambleSpreadOverTheReplicas() throws Exception {
    // Each policy twice, in turns, so that a slow spell of the machine falls on all of them.
    List<Run> cacheAware = new ArrayList<>();
    List<Run> roundRobin = new ArrayList<>();
    List<Run> sticky = new ArrayList<>();
    for (int round = 0; round < 2; round++) {
      cacheAware.add(run(() -> CacheAware.builder().blockChars(BLOCK_CHARS).build(), false));
      roundRobin.add(run(RoutingPolicy::roundRobin, false));
      sticky.add(run(RoutingPolicy::prefixHash, true));
    }
    System.out.println("behind a long preamble, one client: " + cacheAware + "; " + roundRobin
        + "; sticky " + sticky);
    int total = CALLERS * CONVERSATIONS_PER_CALLER * TURNS;
    for (Run r : cacheAware) {
      assertThat(r.total()).isEqualTo(total);
      assertThat(r.busiest()).as("calls on the busiest replica").isLessThanOrEqualTo(total / 2);
    }
    assertThat(meanOf(cacheAware, Run::cachedShare)).as("cached share vs sticky sessions")
        .isGreaterThanOrEqualTo(meanOf(sticky, Run::cachedShare) - 0.02);
    // Measured at or below the better of the two over five runs but one (docs/engines.md); the
    // margin is this shared machine's noise.
    assertThat(meanOf(cacheAware, Run::meanSeconds)).as("mean latency vs the better of the others")
        .isLessThanOrEqualTo(1.15 * Math.min(meanOf(roundRobin, Run::meanSeconds),
            meanOf(sticky, Run::meanSeconds)));
  }

  private static double meanOf(List<Run> runs, java.util.function.ToDoubleFunction<Run> figure) {
    return runs.stream().mapToDouble(figure).average().orElse(Double.NaN);
  }

  /**
   * Runs the workload on restarted servers through one client of {@code policy}, keyed by the
   * conversation if {@code keyed}.
   */
  private Run run(Supplier<RoutingPolicy> policy, boolean keyed) throws Exception {
    for (LlamaServers.Server s : servers) s.restart();
    String preamble = "You are a coding agent. Tools follow. " + words(new SplittableRandom(5),
        PREAMBLE_CHARS);
    EventRecorder events = new EventRecorder();
    RoutingPolicy mine = policy.get();
    List<Long> nanos = Collections.synchronizedList(new ArrayList<>());
    try (LlmClient client = LlmClient.builder().replicas(LlamaServers.replicas(servers))
        .routingPolicy(mine).listener(events).build()) {
      List<Future<?>> loops = new ArrayList<>();
      for (int c = 0; c < CALLERS; c++) {
        int caller = c;
        loops.add(callers.submit(() -> {
          SplittableRandom text = new SplittableRandom(200 + caller);
          List<List<ChatMessage>> conversations = new ArrayList<>();
          for (int k = 0; k < CONVERSATIONS_PER_CALLER; k++) {
            conversations.add(new ArrayList<>(List.of(ChatMessage.system(preamble))));
          }
          for (int turn = 0; turn < TURNS; turn++) {
            for (int k = 0; k < CONVERSATIONS_PER_CALLER; k++) {
              List<ChatMessage> h = conversations.get(k);
              h.add(ChatMessage.user("caller " + caller + " turn " + turn + ": "
                  + words(text, 300)));
              ChatRequest.Builder b = ChatRequest.builder("tiny").maxTokens(8);
              if (keyed) b.routingKey("caller " + caller + " conversation " + k);
              h.forEach(b::message);
              long start = System.nanoTime();
              String answer = client.chat(b.build()).text();
              nanos.add(System.nanoTime() - start);
              h.add(ChatMessage.assistant(answer));
            }
          }
          return null;
        }));
      }
      for (Future<?> f : loops) f.get(540, TimeUnit.SECONDS);
    }
    Map<String, Integer> calls = new TreeMap<>();
    for (RoutedEvent e : events.routed) calls.merge(e.replicaId(), 1, Integer::sum);
    double mean = nanos.stream().mapToLong(Long::longValue).average().orElse(0) / 1e9;
    return new Run(mine.name() + (keyed ? " by conversation" : ""), calls, mean,
        LlamaServers.cachedShare(servers));
  }

  private static String words(SplittableRandom random, int chars) {
    String[] vocabulary = ("the of and to in is was for on that with as by at from it an be "
        + "this are or have not but").split(" ");
    StringBuilder b = new StringBuilder(chars + 16);
    while (b.length() < chars) b.append(vocabulary[random.nextInt(vocabulary.length)]).append(' ');
    return b.toString();
  }
}
