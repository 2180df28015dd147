package io.github.llmrouter.routing;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.Tuple;
import org.junit.jupiter.api.Test;

/** Resumed hashing: a message hashed before is not hashed again, and nothing else changes. */
class MessageChainsTest {
  private static final String MODEL = "llama-3.1-8b";
  private static final String[] ROLES = {"system", "user", "assistant", "tool", null};

  /** The blocks of {@code messages}, resuming from {@code chains} (null: a cold pass). */
  private static PromptBlocks blocks(List<String> messages, List<String> roles, int blockChars,
      MessageChains chains) {
    int n = messages.size();
    return PromptBlocks.ofMessages(MODEL, roles.toArray(new String[0]),
        messages.toArray(new CharSequence[0]), n, blockChars, chains);
  }

  @Provide
  Arbitrary<List<Integer>> lengths() {
    // Mostly short messages, some long enough to reach past the dense blocks.
    return Arbitraries.frequencyOf(
            Tuple.of(6, Arbitraries.integers().between(0, 700)),
            Tuple.of(2, Arbitraries.integers().between(700, 12_000)),
            Tuple.of(1, Arbitraries.integers().between(12_000, 90_000)))
        .list().ofMinSize(1).ofMaxSize(24);
  }

  @Property(tries = 60)
  void resumedHashingGivesExactlyTheBlocksOfAColdPass(@ForAll("lengths") List<Integer> lengths,
      @ForAll long seed, @ForAll("blockChars") int blockChars) {
    SplittableRandom random = new SplittableRandom(seed);
    List<String> messages = new ArrayList<>();
    List<String> roles = new ArrayList<>();
    for (int length : lengths) {
      messages.add(Fleets.randomText(random, length));
      roles.add(ROLES[random.nextInt(ROLES.length)]);
    }
    MessageChains chains = new MessageChains(64);
    // Turns of a conversation: each a prefix of the next, hashed with the same cache; some turns
    // rebuild an earlier message from its text, which must be hashed again, to the same hashes.
    for (int turn = 1; turn <= messages.size(); turn++) {
      List<String> prefix = new ArrayList<>(messages.subList(0, turn));
      if (random.nextInt(4) == 0) {
        int k = random.nextInt(turn);
        prefix.set(k, new String(prefix.get(k).toCharArray()));
      }
      List<String> r = roles.subList(0, turn);
      PromptBlocks resumed = blocks(prefix, r, blockChars, chains);
      PromptBlocks cold = blocks(prefix, r, blockChars, null);
      assertThat(resumed).isEqualTo(cold).hasSameHashCodeAs(cold);
      assertThat(resumed.fullBlocks()).isEqualTo(cold.fullBlocks());
    }
    // The same messages after another history: nothing remembered applies.
    List<String> other = new ArrayList<>(messages);
    other.add(0, "another beginning");
    List<String> otherRoles = new ArrayList<>(roles);
    otherRoles.add(0, "system");
    assertThat(blocks(other, otherRoles, blockChars, chains))
        .isEqualTo(blocks(other, otherRoles, blockChars, null));
  }

  @Provide
  Arbitrary<Integer> blockChars() {
    return Arbitraries.of(1, 7, 64, 256);
  }

  @Test
  void aContinuedConversationResumesFromWhatItRemembers() {
    SplittableRandom random = new SplittableRandom(3);
    MessageChains chains = new MessageChains(1024);
    List<String> messages = new ArrayList<>();
    List<String> roles = new ArrayList<>();
    for (int k = 0; k < 40; k++) {
      messages.add(Fleets.randomText(random, 8192));
      roles.add(k % 2 == 0 ? "user" : "assistant");
    }
    blocks(messages, roles, 256, chains);
    int held = chains.size();
    assertThat(held).as("every message remembered").isGreaterThanOrEqualTo(40);
    messages.add(Fleets.randomText(random, 8192));
    roles.add("user");
    PromptBlocks next = blocks(messages, roles, 256, chains);
    assertThat(chains.size()).as("only the new message is hashed and remembered")
        .isEqualTo(held + 1);
    assertThat(next).isEqualTo(blocks(messages, roles, 256, null));
  }

  @Test
  void textsThatMayChangeAreNeverRemembered() {
    MessageChains chains = new MessageChains(64);
    StringBuilder text = new StringBuilder("x".repeat(1000));
    PromptBlocks before = PromptBlocks.ofMessages(MODEL, new String[] {"user"},
        new CharSequence[] {text}, 1, 256, chains);
    assertThat(chains.size()).isZero();
    text.setCharAt(900, 'y');
    assertThat(PromptBlocks.ofMessages(MODEL, new String[] {"user"}, new CharSequence[] {text}, 1,
        256, chains)).isNotEqualTo(before);
  }

  @Test
  void threadsSharingTheCacheAlwaysGetTheColdHashes() throws Exception {
    SplittableRandom random = new SplittableRandom(17);
    int conversations = 6;
    List<List<String>> messages = new ArrayList<>();
    List<List<String>> roles = new ArrayList<>();
    List<List<PromptBlocks>> cold = new ArrayList<>();
    String preamble = Fleets.randomText(random, 30_000);
    for (int c = 0; c < conversations; c++) {
      List<String> m = new ArrayList<>(List.of(preamble));
      List<String> r = new ArrayList<>(List.of("system"));
      List<PromptBlocks> expected = new ArrayList<>();
      for (int k = 0; k < 12; k++) {
        m.add(Fleets.randomText(random, 200 + random.nextInt(9000)));
        r.add(k % 2 == 0 ? "user" : "assistant");
        expected.add(blocks(m, r, 256, null));
      }
      messages.add(m);
      roles.add(r);
      cold.add(expected);
    }
    // A small cache, so that threads keep replacing each other's pieces.
    MessageChains chains = new MessageChains(16);
    int threads = 4;
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    try {
      List<Future<?>> done = new ArrayList<>();
      for (int t = 0; t < threads; t++) {
        int seed = t;
        done.add(pool.submit(() -> {
          SplittableRandom mine = new SplittableRandom(seed);
          for (int i = 0; i < 300; i++) {
            int c = mine.nextInt(conversations);
            int turn = 1 + mine.nextInt(12);
            assertThat(blocks(messages.get(c).subList(0, turn + 1), roles.get(c).subList(0, turn + 1),
                256, chains)).isEqualTo(cold.get(c).get(turn - 1));
          }
          return null;
        }));
      }
      for (Future<?> f : done) f.get(60, TimeUnit.SECONDS);
    } finally {
      pool.shutdownNow();
    }
    assertThat(chains.size()).isLessThanOrEqualTo(16);
  }

  @Test
  void staysWithinItsBoundUnder100000Conversations() {
    MessageChains chains = new MessageChains(MessageChains.CAPACITY);
    SplittableRandom random = new SplittableRandom(11);
    String system = Fleets.randomText(random, 3000);
    String tail = Fleets.randomText(random, 20_000);
    for (int c = 0; c < 100_000; c++) {
      // A distinct opening makes every conversation's later messages distinct pieces.
      String opening = c + " " + Fleets.randomText(random, 300);
      PromptBlocks.ofMessages(MODEL, new String[] {"system", "user", "assistant"},
          new CharSequence[] {system, opening, tail}, 3, 256, chains);
    }
    assertThat(chains.size()).isLessThanOrEqualTo(MessageChains.CAPACITY);
    assertThat(chains.keptHeld())
        .isLessThanOrEqualTo((long) MessageChains.CAPACITY * MessageChains.PIECE_KEPT);
  }
}
