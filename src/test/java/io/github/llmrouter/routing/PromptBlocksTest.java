package io.github.llmrouter.routing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class PromptBlocksTest {
  @Test
  void coversThePromptBlockByBlockWithAPartialLastBlock() {
    PromptBlocks b = PromptBlocks.of(new long[] {11, 22, 33}, 512, 1100);
    assertThat(b.size()).isEqualTo(3);
    assertThat(b.hash(2)).isEqualTo(33);
    assertThat(b.tokensThrough(0)).isZero();
    assertThat(b.tokensThrough(1)).isEqualTo(512);
    assertThat(b.tokensThrough(2)).isEqualTo(1024);
    assertThat(b.tokensThrough(3)).isEqualTo(1100);
    assertThat(b.fullBlocks()).isEqualTo(2);
    assertThat(PromptBlocks.of(new long[] {1, 2}, 16, 32).fullBlocks()).isEqualTo(2);
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
    assertThatThrownBy(() -> new PromptUsage(10, 11)).hasMessageContaining("cachedTokens");
    assertThatThrownBy(() -> new PromptUsage(-1, -1)).hasMessageContaining("promptTokens");
    assertThat(new PromptUsage(10, -1).cachedTokensKnown()).isFalse();
  }

  @Test
  void aRoutingRequestCarriesItsBlocksWithoutPrintingThem() {
    RoutingRequest plain = new RoutingRequest("m", "hello", null);
    assertThat(plain.blocks()).isNull();
    PromptBlocks blocks = PromptBlocks.of(new long[] {0xCAFEL}, 16, 5);
    RoutingRequest withBlocks = plain.withBlocks(blocks);
    assertThat(withBlocks.blocks()).isSameAs(blocks);
    assertThat(withBlocks.prompt()).isEqualTo("hello");
    assertThat(withBlocks).isNotEqualTo(plain);
    assertThat(withBlocks.toString()).contains("blocks=1").doesNotContain("hello", "cafe", "51966");
    assertThat(blocks.toString()).doesNotContain("51966");
  }

  @Test
  void theDefaultPolicyIsPrefixHashWithItsDefaults() {
    RoutingPolicy p = RoutingPolicy.defaultPolicy();
    assertThat(p).isInstanceOf(PrefixHash.class);
    assertThat(p.toString()).isEqualTo(PrefixHash.builder().build().toString());
  }
}
