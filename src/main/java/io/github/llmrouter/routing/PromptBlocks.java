package io.github.llmrouter.routing;

import static java.util.Objects.requireNonNull;

import java.util.Arrays;

/**
 * A request's prompt as a sequence of chained 64-bit block hashes: the hash of block {@code i}
 * covers blocks {@code 0..i}, so two prompts share their first {@code k} hashes exactly when they
 * share their first {@code k} blocks. This is how inference engines identify prefix-cache blocks
 * (vLLM, SGLang) and how prefix-aware routers index them, so a policy can compare a request with
 * what it has seen block by block instead of by one key.
 *
 * <p>Blocks stand for {@link #blockTokens()} prompt tokens each, the last one possibly fewer; the
 * blocks cover the first {@link #tokensThrough(int) tokensThrough(size())} tokens of a prompt of
 * {@link #promptTokens()} tokens (all of them, unless whoever hashed the prompt stopped early).
 *
 * <pre>{@code
 * PromptBlocks blocks = PromptBlocks.of(chainedHashes, 16, 700);
 * int cachedTokens = blocks.tokensThrough(matchedBlocks);
 * }</pre>
 *
 * <p>Immutable and thread-safe; {@link #hash(int)} and {@link #tokensThrough(int)} cost a few
 * nanoseconds and allocate nothing.
 */
public final class PromptBlocks {
  private static final PromptBlocks EMPTY = new PromptBlocks(new long[0], 1, 0);

  private final long[] hashes;
  private final int blockTokens;
  private final int promptTokens;

  private PromptBlocks(long[] hashes, int blockTokens, int promptTokens) {
    this.hashes = hashes;
    this.blockTokens = blockTokens;
    this.promptTokens = promptTokens;
  }

  /**
   * The blocks of a prompt of {@code promptTokens} tokens, {@code blockTokens} tokens per block.
   * The array is copied.
   *
   * @param chainedHashes block {@code i}'s hash covering blocks {@code 0..i}; not null
   * @param blockTokens prompt tokens per block, at least 1
   * @param promptTokens the prompt's length in tokens, at least 0
   * @return the blocks
   * @throws IllegalArgumentException if {@code blockTokens < 1} or {@code promptTokens < 0}
   */
  public static PromptBlocks of(long[] chainedHashes, int blockTokens, int promptTokens) {
    requireNonNull(chainedHashes, "chainedHashes");
    if (blockTokens < 1) {
      throw new IllegalArgumentException("blockTokens must be >= 1, got " + blockTokens);
    }
    if (promptTokens < 0) {
      throw new IllegalArgumentException("promptTokens must be >= 0, got " + promptTokens);
    }
    return new PromptBlocks(chainedHashes.clone(), blockTokens, promptTokens);
  }

  /** {@return no blocks: a request without a prompt} */
  public static PromptBlocks empty() {
    return EMPTY;
  }

  /** {@return the number of blocks} */
  public int size() {
    return hashes.length;
  }

  /**
   * {@return the chained hash of block {@code index} (covering blocks 0 to {@code index})}
   *
   * @param index the block, in [0, size())
   * @throws IndexOutOfBoundsException unless {@code 0 <= index < size()}
   */
  public long hash(int index) {
    return hashes[index];
  }

  /** {@return prompt tokens per block (the last block may hold fewer)} */
  public int blockTokens() {
    return blockTokens;
  }

  /** {@return the prompt's length in tokens} */
  public int promptTokens() {
    return promptTokens;
  }

  /**
   * The prompt tokens covered by the first {@code blocks} blocks: {@code min(promptTokens, blocks
   * × blockTokens)}. For a replica that holds a request's first {@code blocks} blocks, the tokens
   * it need not compute again.
   *
   * @param blocks a number of leading blocks, in [0, size()]
   * @return the tokens they cover
   * @throws IllegalArgumentException if {@code blocks} is negative or more than {@link #size()}
   */
  public int tokensThrough(int blocks) {
    if (blocks < 0 || blocks > hashes.length) {
      throw new IllegalArgumentException("blocks must be in [0, " + hashes.length + "], got " + blocks);
    }
    return (int) Math.min(promptTokens, (long) blocks * blockTokens);
  }

  /**
   * {@return the number of whole blocks: blocks that hold {@link #blockTokens()} tokens each}
   * Indexes that record only complete blocks (as vLLM caches only full blocks) look at these.
   */
  public int fullBlocks() {
    return Math.min(hashes.length, promptTokens / blockTokens);
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof PromptBlocks b && b.blockTokens == blockTokens
        && b.promptTokens == promptTokens && Arrays.equals(b.hashes, hashes);
  }

  @Override
  public int hashCode() {
    return Arrays.hashCode(hashes) * 31 + promptTokens;
  }

  @Override
  public String toString() {
    // Hashes of user data are not printed.
    return "PromptBlocks{blocks=" + hashes.length + ", blockTokens=" + blockTokens
        + ", promptTokens=" + promptTokens + '}';
  }
}
