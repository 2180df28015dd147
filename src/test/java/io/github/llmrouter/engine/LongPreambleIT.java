package io.github.llmrouter.engine;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.llmrouter.LlmClient;
import io.github.llmrouter.api.ChatMessage;
import io.github.llmrouter.api.ChatRequest;
import io.github.llmrouter.observe.RoutedEvent;
import io.github.llmrouter.replica.Replica;
import io.github.llmrouter.routing.CacheAware;
import io.github.llmrouter.routing.RoutingPolicy;
import io.github.llmrouter.testing.EventRecorder;
import java.util.ArrayList;
import java.util.List;
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
 * real llama.cpp servers: 9 conversations of 4 turns from 3 application instances, each its own
 * {@code LlmClient} sending 3 conversations in turn. Each instance's first conversation must find
 * a home of its own past the preamble (its ring home, the same for every client), so that the
 * calls spread over the replicas instead of all going where the preamble hashes. Scaled down so
 * that the tiny CPU model prefills it in seconds: 16-character blocks, so the 256 dense blocks end
 * at 4 KB, and a 6 KB preamble (as a 100 KB preamble is past the 64 KB of the default
 * 256-character blocks).
 *
 * <p>One client per caller keeps the outcome a function of the prompts: within one client, which
 * conversation's first turn is sent first decides where the preamble is first cached, and that
 * is a race between the callers' threads.
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

  @Test
  void conversationsBehindALongSharedPreambleSpreadOverTheReplicas() throws Exception {
    Map<String, Integer> cacheAware =
        calls(() -> CacheAware.builder().blockChars(BLOCK_CHARS).build());
    Map<String, Integer> roundRobin = calls(RoutingPolicy::roundRobin);
    System.out.println("calls per replica behind a long preamble: CacheAware " + cacheAware
        + ", RoundRobin " + roundRobin);
    int total = CALLERS * CONVERSATIONS_PER_CALLER * TURNS;
    assertThat(cacheAware.values().stream().mapToInt(Integer::intValue).sum()).isEqualTo(total);
    // Before the whole prompt was hashed, every call went to one replica (36 of 36).
    assertThat(cacheAware).as("replicas used").hasSizeGreaterThanOrEqualTo(2);
    assertThat(cacheAware.values()).as("calls on the busiest replica")
        .allMatch(n -> n <= total * 2 / 3);
  }

  /** Runs the workload on cold servers; returns the calls each replica answered. */
  private Map<String, Integer> calls(Supplier<RoutingPolicy> policy) throws Exception {
    for (LlamaServers.Server s : servers) s.restart();
    String preamble = "You are a coding agent. Tools follow. " + words(new SplittableRandom(5),
        PREAMBLE_CHARS);
    EventRecorder events = new EventRecorder();
    List<Replica> fleet = LlamaServers.replicas(servers);
    long started = System.nanoTime();
    List<LlmClient> clients = new ArrayList<>();
    String name = "";
    try {
      for (int c = 0; c < CALLERS; c++) {
        RoutingPolicy mine = policy.get();
        name = mine.name();
        clients.add(LlmClient.builder().replicas(fleet).routingPolicy(mine).listener(events)
            .build());
      }
      List<Future<?>> loops = new ArrayList<>();
      for (int c = 0; c < CALLERS; c++) {
        int caller = c;
        LlmClient client = clients.get(c);
        loops.add(callers.submit(() -> {
          SplittableRandom mine = new SplittableRandom(200 + caller);
          List<List<ChatMessage>> conversations = new ArrayList<>();
          for (int k = 0; k < CONVERSATIONS_PER_CALLER; k++) {
            conversations.add(new ArrayList<>(List.of(ChatMessage.system(preamble))));
          }
          for (int turn = 0; turn < TURNS; turn++) {
            for (List<ChatMessage> h : conversations) {
              h.add(ChatMessage.user("caller " + caller + " turn " + turn + ": "
                  + words(mine, 300)));
              ChatRequest.Builder b = ChatRequest.builder("tiny").maxTokens(8);
              h.forEach(b::message);
              h.add(ChatMessage.assistant(client.chat(b.build()).text()));
            }
          }
          return null;
        }));
      }
      for (Future<?> f : loops) f.get(540, TimeUnit.SECONDS);
    } finally {
      clients.forEach(LlmClient::close);
    }
    System.out.printf("%s: %.1f s%n", name, (System.nanoTime() - started) / 1e9);
    Map<String, Integer> calls = new TreeMap<>();
    for (RoutedEvent e : events.routed) calls.merge(e.replicaId(), 1, Integer::sum);
    return calls;
  }

  private static String words(SplittableRandom random, int chars) {
    String[] vocabulary = ("the of and to in is was for on that with as by at from it an be "
        + "this are or have not but").split(" ");
    StringBuilder b = new StringBuilder(chars + 16);
    while (b.length() < chars) b.append(vocabulary[random.nextInt(vocabulary.length)]).append(' ');
    return b.toString();
  }
}
