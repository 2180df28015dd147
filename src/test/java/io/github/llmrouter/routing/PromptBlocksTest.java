package io.github.llmrouter.routing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** The prompt as chained block hashes: what every cache-aware consumer of a request reads. */
class PromptBlocksTest {
  private static final String MODEL = "llama-3.1-8b";
  private static final SplittableRandom RANDOM = new SplittableRandom(5);
  private static final String SYSTEM = Fleets.randomText(RANDOM, 700);
  private static final String QUESTION = Fleets.randomText(RANDOM, 300);
  private static final String ANSWER = Fleets.randomText(RANDOM, 500);

  private static RoutingRequest.Builder chat(String model) {
    return RoutingRequest.builder(model).message("system", SYSTEM).message("user", QUESTION);
  }

  @Test
  void blocksFollowMessagesAndEachHashCoversEverythingBeforeIt() {
    PromptBlocks b = chat(MODEL).build().blocks(256);
    // 700 system characters: 3 blocks (256, 256, 188); 300 user characters: 2 blocks.
    assertThat(b.size()).isEqualTo(5);
    assertThat(b.sharedBlocks()).as("the system prompt's blocks").isEqualTo(3);
    assertThat(b.tokensThrough(3)).isEqualTo(700 / PromptBlocks.CHARS_PER_TOKEN);
    assertThat(b.tokensThrough(0)).isZero();
    assertThat(b.promptTokens()).isEqualTo(1000 / PromptBlocks.CHARS_PER_TOKEN);
    assertThat(b.blockTokens()).isEqualTo(256 / PromptBlocks.CHARS_PER_TOKEN);
    assertThat(b.fullBlocks()).as("the short last block may still change").isEqualTo(4);

    PromptBlocks other = RoutingRequest.builder(MODEL).message("system", SYSTEM)
        .message("user", "a different question").build().blocks(256);
    for (int i = 0; i < 3; i++) assertThat(other.hash(i)).isEqualTo(b.hash(i));
    assertThat(other.hash(3)).isNotEqualTo(b.hash(3));
  }

  @Test
  void aGrowingConversationKeepsTheHashesOfItsEarlierMessages() {
    PromptBlocks turn1 = chat(MODEL).build().blocks(256);
    PromptBlocks turn2 = chat(MODEL).message("assistant", ANSWER).message("user", "and then?")
        .build().blocks(256);
    for (int i = 0; i < turn1.size(); i++) assertThat(turn2.hash(i)).isEqualTo(turn1.hash(i));
    assertThat(turn2.size()).isEqualTo(turn1.size() + 2 + 1);
  }

  @Test
  void modelsAndAdaptersNeverShareABlock() {
    PromptBlocks base = chat(MODEL).build().blocks(256);
    PromptBlocks adapter = chat(MODEL + "_sql-lora").build().blocks(256);
    for (int i = 0; i < base.size(); i++) {
      for (int j = 0; j < adapter.size(); j++) assertThat(adapter.hash(j)).isNotEqualTo(base.hash(i));
    }
  }

  @Test
  void rolesArePartOfTheText() {
    PromptBlocks asUser = RoutingRequest.builder(MODEL).message("user", QUESTION).build().blocks();
    PromptBlocks asSystem = RoutingRequest.builder(MODEL).message("system", QUESTION).build()
        .blocks();
    PromptBlocks noRole = RoutingRequest.of(MODEL, QUESTION).blocks();
    assertThat(asUser.hash(0)).isNotEqualTo(asSystem.hash(0)).isNotEqualTo(noRole.hash(0));
    assertThat(asUser.sharedBlocks()).as("roles known, no system prompt").isZero();
    assertThat(noRole.sharedBlocks()).as("roles unknown").isEqualTo(-1);
  }

  @Test
  void blocksAreComputedOnceAndShared() {
    RoutingRequest request = chat(MODEL).build();
    assertThat(request.blocks()).isSameAs(request.blocks());
    assertThat(request.blocks(PromptBlocks.DEFAULT_BLOCK_CHARS)).isSameAs(request.blocks());
    assertThat(request.blocks(64).size()).isGreaterThan(request.blocks().size());
  }

  @Test
  void thePrefixKeyIsTheDefaultExtractorsKeyComputedOnce() {
    RoutingRequest request = chat(MODEL).routingKey(null).build();
    assertThat(request.prompt()).as("the first user message").isEqualTo(QUESTION);
    long expected = KeyExtractor.prefixKey(request, KeyExtractor.DEFAULT_PREFIX_CHARS);
    assertThat(request.prefixKey()).isEqualTo(expected);
    assertThat(KeyExtractor.prefix(KeyExtractor.DEFAULT_PREFIX_CHARS).key(request))
        .isEqualTo(expected);
    assertThat(KeyExtractor.prefix(KeyExtractor.DEFAULT_PREFIX_CHARS).key(request))
        .isEqualTo(KeyExtractor.prefix(100).key(RoutingRequest.of(MODEL, QUESTION)));
  }

  @Test
  void promptsThatDifferOnlyPastTheirFirst64KbStillDiffer() {
    String head = Fleets.randomText(RANDOM, 64 * 1024);
    String one = head + Fleets.randomText(RANDOM, 200_000);
    String two = head + Fleets.randomText(RANDOM, 200_000);
    PromptBlocks a = RoutingRequest.of(MODEL, one).blocks(256);
    PromptBlocks b = RoutingRequest.of(MODEL, two).blocks(256);
    int blocks = (one.length() + 255) / 256;
    assertThat(a.size()).isEqualTo(PromptBlocks.keptBlocks(blocks)).isGreaterThan(256);
    for (int k = 0; k < 256; k++) assertThat(a.hash(k)).isEqualTo(b.hash(k));
    for (int k = 256; k < a.size(); k++) assertThat(a.hash(k)).isNotEqualTo(b.hash(k));
    assertThat(a.promptTokens()).isEqualTo(one.length() / PromptBlocks.CHARS_PER_TOKEN);
    assertThat(a.tokensThrough(a.size())).as("to within one stride of the end")
        .isBetween(a.promptTokens() - PromptBlocks.STRIDE * 64, a.promptTokens());
    // The first kept block past the dense ones closes the first stride: its hash covers it all.
    assertThat(a.tokensThrough(257)).isEqualTo((256 + PromptBlocks.STRIDE) * 64);
    assertThat(a.fullBlocks()).isEqualTo(a.size());
  }

  @Test
  void aShortLastBlockThatIsKeptIsNotFull() {
    // 288 blocks: the last (block 287, the end of the first stride) is kept, and holds 100 chars.
    String text = Fleets.randomText(RANDOM, 287 * 256 + 100);
    PromptBlocks b = RoutingRequest.of(MODEL, text).blocks(256);
    assertThat(PromptBlocks.isKept(287)).isTrue();
    assertThat(b.size()).isEqualTo(257);
    assertThat(b.fullBlocks()).isEqualTo(256);
    PromptBlocks full = RoutingRequest.of(MODEL, text + "x".repeat(156)).blocks(256);
    assertThat(full.fullBlocks()).isEqualTo(257);
  }

  @Test
  void keptBlocksThinOutByLevelsAndDependOnlyOnTheirPosition() {
    long kept = 0;
    long previous = -1;
    for (long block = 0; block < 300_000; block++) {
      if (PromptBlocks.isKept(block)) {
        kept++;
        if (previous >= 0) assertThat(PromptBlocks.nextKept(previous)).isEqualTo(block);
        previous = block;
      }
      assertThat(PromptBlocks.keptBlocks(block + 1)).isEqualTo(kept);
    }
    assertThat(PromptBlocks.keptBlocks(256)).isEqualTo(256);
    assertThat(PromptBlocks.keptBlocks(256 + 32 * 256)).isEqualTo(512);
    assertThat(PromptBlocks.keptBlocks(4096)).as("a MiB of text in 256-character blocks")
        .isEqualTo(376);
    assertThat(PromptBlocks.keptBlocks(Integer.MAX_VALUE)).isLessThan(1800);
  }

  @Test
  void sampledTokenBlocksKeepWhatTextKeeps() {
    long[] chain = new long[5000];
    for (int i = 0; i < chain.length; i++) chain[i] = i * 7919L + 1;
    PromptBlocks all = PromptBlocks.of(chain, 16, 5000 * 16 - 3);
    PromptBlocks kept = PromptBlocks.sampled(chain, 16, 5000 * 16 - 3);
    assertThat(all.size()).isEqualTo(5000);
    assertThat(kept.size()).isEqualTo(PromptBlocks.keptBlocks(5000));
    int k = 0;
    for (int block = 0; block < 5000; block++) {
      if (!PromptBlocks.isKept(block)) continue;
      assertThat(kept.hash(k)).isEqualTo(chain[block]);
      assertThat(kept.tokensThrough(k + 1)).isEqualTo(all.tokensThrough(block + 1));
      k++;
    }
    assertThat(kept.fullBlocks()).as("the last block, kept, is short")
        .isEqualTo(kept.size() - (PromptBlocks.isKept(4999) ? 1 : 0));
    assertThat(PromptBlocks.sampled(chain, 16, 5000 * 16).fullBlocks())
        .as("every kept block full").isEqualTo(kept.size());
    assertThatThrownBy(() -> PromptBlocks.sampled(chain, 0, 10))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("blockTokens");
    assertThatThrownBy(() -> PromptBlocks.sampled(chain, 16, -1))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("promptTokens");
    PromptBlocks shortOne = PromptBlocks.sampled(new long[] {1, 2}, 16, 20);
    assertThat(shortOne).isEqualTo(PromptBlocks.of(new long[] {1, 2}, 16, 20));
  }

  @Test
  void emptyAndAbsentPrompts() {
    assertThat(RoutingRequest.of(MODEL, null).blocks().size()).isZero();
    PromptBlocks empty = RoutingRequest.of(MODEL, "").blocks();
    assertThat(empty.size()).as("one empty block still carries the model").isEqualTo(1);
    assertThat(empty.promptTokens()).isZero();
  }

  @Test
  void tokenBlocksCoverThePromptBlockByBlockWithAPartialLastBlock() {
    PromptBlocks b = PromptBlocks.of(new long[] {11, 22, 33}, 512, 1100);
    assertThat(b.size()).isEqualTo(3);
    assertThat(b.hash(2)).isEqualTo(33);
    assertThat(b.tokensThrough(0)).isZero();
    assertThat(b.tokensThrough(1)).isEqualTo(512);
    assertThat(b.tokensThrough(2)).isEqualTo(1024);
    assertThat(b.tokensThrough(3)).isEqualTo(1100);
    assertThat(b.fullBlocks()).isEqualTo(2);
    assertThat(b.sharedBlocks()).as("roles unknown").isEqualTo(-1);
    assertThat(PromptBlocks.of(new long[] {1, 2}, 16, 32).fullBlocks()).isEqualTo(2);
    RoutingRequest request = RoutingRequest.builder(MODEL).blocks(b).build();
    assertThat(request.blocks(64)).as("precomputed blocks whatever the size").isSameAs(b);
  }

  @Test
  void isImmutableAndComparedByValue() {
    long[] hashes = {1, 2, 3};
    PromptBlocks b = PromptBlocks.of(hashes, 16, 40);
    hashes[0] = 99;
    assertThat(b.hash(0)).isEqualTo(1);
    assertThat(b).isEqualTo(PromptBlocks.of(new long[] {1, 2, 3}, 16, 40))
        .hasSameHashCodeAs(PromptBlocks.of(new long[] {1, 2, 3}, 16, 40))
        .isNotEqualTo(PromptBlocks.of(new long[] {1, 2, 4}, 16, 40));
    assertThat(PromptBlocks.empty().size()).isZero();
    assertThat(PromptBlocks.empty().tokensThrough(0)).isZero();
  }

  @Test
  void rejectsNonsenseNamingTheArgument() {
    assertThatThrownBy(() -> PromptBlocks.of(new long[0], 0, 1)).hasMessageContaining("blockTokens");
    assertThatThrownBy(() -> PromptBlocks.of(new long[0], 1, -1)).hasMessageContaining("promptTokens");
    assertThatThrownBy(() -> PromptBlocks.of(new long[] {1}, 1, 1).tokensThrough(2))
        .hasMessageContaining("[0, 1]");
    assertThatThrownBy(() -> RoutingRequest.of(MODEL, "x").blocks(0))
        .hasMessageContaining("blockChars");
  }

  @Test
  void theDefaultPolicyIsCacheAwareWithItsDefaultsAndItsOwnMemory() {
    RoutingPolicy p = RoutingPolicy.defaultPolicy();
    assertThat(p).isInstanceOf(CacheAware.class);
    assertThat(p.toString()).isEqualTo(CacheAware.builder().build().toString());
    assertThat(RoutingPolicy.defaultPolicy()).isNotSameAs(p);
  }

  @Test
  void neverPrintsThePromptNorItsHashes() {
    RoutingRequest request = chat(MODEL).routingKey("secret-session").build();
    assertThat(request.toString()).doesNotContain(QUESTION.substring(0, 20))
        .doesNotContain("secret-session");
    assertThat(request.blocks().toString()).doesNotContain(QUESTION.substring(0, 20))
        .doesNotContain(Long.toString(request.blocks().hash(0)));
    PromptBlocks blocks = PromptBlocks.of(new long[] {0xCAFEL}, 16, 5);
    assertThat(blocks.toString()).doesNotContain("51966").doesNotContain("cafe");
  }

  @Test
  void eachMessageTakesWholeBlocksAndAnEmptyOneStillTakesOne() {
    PromptBlocks b = RoutingRequest.builder(MODEL).message("system", "a".repeat(256))
        .message("user", "b".repeat(257)).message("assistant", "").build().blocks(256);
    assertThat(b.size()).isEqualTo(1 + 2 + 1);
    assertThat(b.tokensThrough(1)).isEqualTo(64);
    assertThat(b.tokensThrough(2)).isEqualTo(128);
    assertThat(b.tokensThrough(3)).as("257 characters are 65 tokens, rounded up").isEqualTo(129);
    assertThat(b.tokensThrough(4)).isEqualTo(129);
    assertThat(b.sharedBlocks()).isEqualTo(1);
  }

  @Test
  void aLastBlockOfExactlyBlockCharsIsFull() {
    PromptBlocks one = RoutingRequest.builder(MODEL).message("user", "a".repeat(256)).build()
        .blocks(256);
    assertThat(one.fullBlocks()).isEqualTo(1);
    PromptBlocks two = RoutingRequest.builder(MODEL).message("user", "a".repeat(256))
        .message("assistant", "b".repeat(256)).build().blocks(256);
    assertThat(two.fullBlocks()).isEqualTo(2);
    PromptBlocks partial = RoutingRequest.builder(MODEL).message("user", "a".repeat(256))
        .message("assistant", "b".repeat(200)).build().blocks(256);
    assertThat(partial.fullBlocks()).as("a last block of 50 tokens").isEqualTo(1);
    assertThat(RoutingRequest.builder(MODEL).message("user", "").build().blocks(256).fullBlocks())
        .isZero();
  }

  @Test
  void manyMessagesKeepTheSameBlocksAsOneText() {
    RoutingRequest.Builder b = RoutingRequest.builder(MODEL);
    int messages = PromptBlocks.DENSE_BLOCKS + 300;
    for (int k = 0; k < messages; k++) {
      b.message(k % 2 == 0 ? "user" : "assistant", "m".repeat(256));
    }
    PromptBlocks blocks = b.build().blocks(256);
    assertThat(blocks.size()).isEqualTo(PromptBlocks.keptBlocks(messages));
    assertThat(blocks.promptTokens()).isEqualTo(messages * 64);
    assertThat(blocks.tokensThrough(blocks.size())).as("through the last kept block")
        .isEqualTo((PromptBlocks.nextKept(messages - PromptBlocks.STRIDE - 1)) * 64 + 64);
    assertThat(blocks.fullBlocks()).isEqualTo(blocks.size());
  }

  @Test
  void aBuilderBuiltFromKeepsItsRequestsUnchanged() {
    RoutingRequest.Builder b = RoutingRequest.builder(MODEL, 1).message("system", SYSTEM);
    RoutingRequest first = b.build();
    RoutingRequest second = b.message("user", QUESTION).build();
    assertThat(first.blocks(256)).isEqualTo(RoutingRequest.builder(MODEL)
        .message("system", SYSTEM).build().blocks(256));
    assertThat(first.toString()).contains("messages=1");
    assertThat(second.blocks(256)).isEqualTo(chat(MODEL).build().blocks(256));
    assertThat(RoutingRequest.builder(MODEL, -3).message("user", QUESTION).build().blocks(256))
        .isEqualTo(RoutingRequest.builder(MODEL).message("user", QUESTION).build().blocks(256));
  }

  @Test
  void aPromptOfNoTokensIsAccepted() {
    assertThat(PromptBlocks.of(new long[0], 1, 0).promptTokens()).isZero();
  }

  @Test
  void printsItsShapeAndTheSharedBlocksWhenKnown() {
    assertThat(PromptBlocks.of(new long[] {1, 2, 3}, 16, 40).toString())
        .isEqualTo("PromptBlocks{blocks=3, blockTokens=16, promptTokens=40}");
    assertThat(RoutingRequest.builder(MODEL).message("user", "a".repeat(300)).build().blocks(256)
        .toString())
        .isEqualTo("PromptBlocks{blocks=2, blockTokens=64, promptTokens=75, sharedBlocks=0}");
  }

  @Test
  void blockHashesAreTheSameInEveryRelease() {
    // Clients of one fleet on different releases must find the same homes for the same prompt:
    // a change to these values moves every conversation to another replica.
    PromptBlocks b = RoutingRequest.builder(MODEL).message("system", "You are terse.")
        .message("user", "Hello").build().blocks(256);
    PromptBlocks plain = RoutingRequest.of(MODEL, "Hello").blocks(256);
    assertThat(b.hash(0)).isEqualTo(0x0bb7d297247f75aaL);
    assertThat(b.hash(1)).isEqualTo(0x7c689701b54316e9L);
    assertThat(plain.hash(0)).isEqualTo(0xff1e4f9226fe00a4L);
  }

  @Test
  void aRequestPrintsItsShapeOnly() {
    assertThat(RoutingRequest.of(MODEL, "hello").toString())
        .isEqualTo("RoutingRequest{model=llama-3.1-8b, promptChars=5}");
    assertThat(RoutingRequest.of(MODEL, null).toString())
        .isEqualTo("RoutingRequest{model=llama-3.1-8b, promptChars=0}");
    // promptChars: the first user message, the text a prefix key reads.
    assertThat(chat(MODEL).routingKey("k").build().toString()).isEqualTo(
        "RoutingRequest{model=llama-3.1-8b, promptChars=300, messages=2, routingKey=<set>}");
  }

  @Test
  void blocksOfOneCharacterAreAllowed() {
    assertThat(RoutingRequest.of(MODEL, "abc").blocks(1).size()).isEqualTo(3);
  }
}
