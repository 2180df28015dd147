package io.github.llmrouter;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.llmrouter.api.ChatMessage;
import io.github.llmrouter.api.ChatRequest;
import io.github.llmrouter.api.ChatResponse;
import io.github.llmrouter.emulator.EmulatedReplica;
import io.github.llmrouter.load.LoadMonitoring;
import io.github.llmrouter.replica.Replica;
import io.github.llmrouter.routing.Fleets;
import io.github.llmrouter.testing.ManualTicker;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import java.util.SplittableRandom;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Clients with no shared state (pods of one service), each listing the same replicas in its own
 * order, take turns sending a conversation's turns: how often they agree on where the
 * conversation lives. 50 conversations of 4 turns behind one shared ~500-token system prompt, on 8
 * emulated replicas; turn {@code t} of each conversation goes through client {@code t mod K}, the
 * calls one after another: instant replicas, 2 ms apart on a manual clock and no load reports
 * (the figures are exact), and again with every default.
 *
 * <p>All 50 conversations stay whole, with 2 and with 4 clients (0.2.1: 42 of 50, 142 of 150
 * consecutive turns; 0.2.0: 35 of 50): a client starts each conversation at its home, where the
 * other clients send its later turns, rather than on the replica its own index holds the shared
 * system prompt on. The bounds are the goal, 45 of 50 and 143 of 150.
 */
class ClientAgreementTest {
  private static final int REPLICAS = 8;
  private static final int CONVERSATIONS = 50;
  private static final int TURNS = 4;

  @ParameterizedTest(name = "{0} clients")
  @ValueSource(ints = {2, 4})
  void independentClientsKeepEachConversationOnOneReplica(int clients) {
    Agreement a = measure(clients, 7);
    System.out.printf("%d clients: %d of %d conversations on one replica for all turns, "
        + "%d of %d consecutive turns on the same replica%n", clients, a.whole, CONVERSATIONS,
        a.sameAsPrevious, CONVERSATIONS * (TURNS - 1));
    assertThat(a.whole).as("conversations on one replica throughout").isGreaterThanOrEqualTo(45);
    assertThat(a.sameAsPrevious).as("consecutive turns on the same replica")
        .isGreaterThanOrEqualTo(143);
  }

  /**
   * The same conversations with every default, as an application runs: emulated replicas that
   * take real time to prefill and report the tokens their own prefix caches held, load
   * monitoring on, the real clock. Client 0 starts all 50 conversations one after another, so
   * that the replica it first cached the shared system prompt on is the cheapest for every first
   * turn unless the conversations' homes win; the other clients continue them. (0.2.1 kept 42 of
   * 50 whole here; the figure reported for 0.2.1 with slower replicas, 4 to 6 of 50, came from a
   * harness outside this repository.)
   */
  @ParameterizedTest(name = "{0} clients, every default")
  @ValueSource(ints = {2, 4})
  void independentClientsWithEveryDefaultKeepEachConversationAtItsHome(int clients) {
    Agreement a = measureWithDefaults(clients, 7);
    System.out.printf("%d clients, every default: %d of %d conversations on one replica for all "
        + "turns, %d of %d consecutive turns on the same replica%n", clients, a.whole,
        CONVERSATIONS, a.sameAsPrevious, CONVERSATIONS * (TURNS - 1));
    assertThat(a.whole).as("conversations on one replica throughout").isGreaterThanOrEqualTo(45);
  }

  record Agreement(int whole, int sameAsPrevious) {}

  /** {@link #measure} on replicas and clients with their defaults and the real clock. */
  static Agreement measureWithDefaults(int k, long seed) {
    List<EmulatedReplica> servers = new ArrayList<>();
    List<Replica> replicas = new ArrayList<>();
    for (int i = 0; i < REPLICAS; i++) {
      EmulatedReplica s = EmulatedReplica.builder().id("replica-" + i).build().start();
      servers.add(s);
      replicas.add(Replica.builder(s.baseUrl()).id(s.id()).build());
    }
    Random order = new Random(seed);
    List<LlmClient> clients = new ArrayList<>();
    try {
      for (int c = 0; c < k; c++) {
        List<Replica> mine = new ArrayList<>(replicas);
        Collections.shuffle(mine, order);
        clients.add(LlmClient.builder().replicas(mine).build());
      }
      return converse(clients, new SplittableRandom(seed), () -> { });
    } finally {
      clients.forEach(LlmClient::close);
      servers.forEach(EmulatedReplica::close);
    }
  }

  /**
   * Runs the workload through {@code k} fresh clients on a fresh fleet; seeded text and replica
   * orders.
   */
  static Agreement measure(int k, long seed) {
    List<EmulatedReplica> servers = new ArrayList<>();
    List<Replica> replicas = new ArrayList<>();
    for (int i = 0; i < REPLICAS; i++) {
      EmulatedReplica s = EmulatedReplica.builder().id("replica-" + i).instant().build().start();
      servers.add(s);
      replicas.add(Replica.builder(s.baseUrl()).id(s.id()).build());
    }
    SplittableRandom text = new SplittableRandom(seed);
    Random order = new Random(seed);
    ManualTicker ticker = new ManualTicker();
    List<LlmClient> clients = new ArrayList<>();
    try {
      for (int c = 0; c < k; c++) {
        List<Replica> mine = new ArrayList<>(replicas);
        Collections.shuffle(mine, order);
        clients.add(LlmClient.builder().replicas(mine).ticker(ticker)
            .loadMonitoring(LoadMonitoring.disabled()).build());
      }
      return converse(clients, text, () -> ticker.advance(Duration.ofMillis(2)));
    } finally {
      clients.forEach(LlmClient::close);
      servers.forEach(EmulatedReplica::close);
    }
  }

  /**
   * Turn {@code t} of each of the conversations goes through client {@code t mod K}, one call
   * after another; {@code afterCall} runs after each.
   */
  private static Agreement converse(List<LlmClient> clients, SplittableRandom text,
      Runnable afterCall) {
    int k = clients.size();
    String system = "You are a support agent. " + Fleets.randomText(text, 2_000);
    List<List<ChatMessage>> histories = new ArrayList<>();
    List<List<String>> placed = new ArrayList<>();
    for (int i = 0; i < CONVERSATIONS; i++) {
      List<ChatMessage> h = new ArrayList<>();
      h.add(ChatMessage.system(system));
      histories.add(h);
      placed.add(new ArrayList<>());
    }
    for (int turn = 0; turn < TURNS; turn++) {
      LlmClient client = clients.get(turn % k);
      for (int i = 0; i < CONVERSATIONS; i++) {
        List<ChatMessage> h = histories.get(i);
        h.add(ChatMessage.user("conversation " + i + ", turn " + turn + ": "
            + Fleets.randomText(text, 300)));
        ChatRequest.Builder b = ChatRequest.builder("m").maxTokens(16);
        h.forEach(b::message);
        ChatResponse r = client.chat(b.build());
        placed.get(i).add(String.valueOf(r.extra().get("x_emulated_replica")));
        h.add(ChatMessage.assistant(r.text()));
        afterCall.run();
      }
    }
    int whole = 0;
    int same = 0;
    for (List<String> p : placed) {
      if (p.stream().distinct().count() == 1) whole++;
      for (int t = 1; t < p.size(); t++) if (p.get(t).equals(p.get(t - 1))) same++;
    }
    return new Agreement(whole, same);
  }
}
