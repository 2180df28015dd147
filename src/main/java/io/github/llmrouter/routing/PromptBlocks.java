package io.github.llmrouter.routing;

import static java.util.Objects.requireNonNull;

import java.util.Arrays;
import org.jspecify.annotations.Nullable;

/**
 * A prompt as a chain of 64-bit block hashes: block {@code i}'s hash covers blocks {@code 0..i}, so
 * two prompts share the hash at position {@code i} exactly when they share their first {@code i +
 * 1} blocks (up to hash collisions). This is what cache-aware policies match against what replicas
 * hold. Immutable and thread-safe.
 *
 * <p><b>From text</b> ({@link RoutingRequest} builds it from a request's messages, once): the
 * canonical text of a chat is its messages in order, each message its role then its content. Each
 * message's content is cut into blocks of {@code blockChars} characters (its last block shorter),
 * so that blocks never straddle two messages and a conversation's earlier messages keep their
 * hashes as it grows. Block hashes are XXH64 ({@link Hashing}) of the block's characters, seeded
 * with the previous block's hash; a message's first block is seeded with the previous hash mixed
 * with the hash of its role; the first block's chain starts from the hash of the model name (which
 * names the LoRA adapter, if any, for servers that serve adapters as models), so models and
 * adapters never share a block. This function is part of the routing contract: every client of a
 * fleet computes the same hashes for the same request, and it does not change within a major
 * version.
 *
 * <p><b>From token blocks</b> ({@link #of}: a trace's block ids, chained, as the simulator builds
 * them): every block holds {@link #blockTokens()} tokens, the last one possibly fewer.
 *
 * <p><b>Token estimates.</b> Blocks carry an estimate of the prompt tokens they cover: for text,
 * {@value #CHARS_PER_TOKEN} characters per token (a character proxy, as SGLang's router and the
 * Gateway API inference extension use); policies correct it with the token counts replicas report.
 *
 * <p><b>Cap.</b> At most {@value #MAX_BLOCKS} blocks are hashed from text: past that, two prompts
 * that agree on their first {@value #MAX_BLOCKS} blocks look alike (their length still counts in
 * {@link #promptTokens()}). With the default {@value #DEFAULT_BLOCK_CHARS}-character blocks that is
 * the first 64 Ki characters, about 16 K tokens.
 *
 * <p>Immutable and thread-safe; {@link #hash(int)} and {@link #tokensThrough(int)} cost a few
 * nanoseconds and allocate nothing.
 */
public final class PromptBlocks {
  /** Default characters per block: {@value} (about 64 tokens). */
  public static final int DEFAULT_BLOCK_CHARS = 256;
  /** Most blocks hashed per prompt: {@value}. */
  public static final int MAX_BLOCKS = 256;
  /** The characters-per-token proxy of text blocks: {@value}. */
  public static final int CHARS_PER_TOKEN = 4;
  /** Seeds the hash of a role name, so that a role cannot be mistaken for content. */
  private static final long ROLE_SEED = 0x726F6C65L; // "role"

  static final PromptBlocks EMPTY = new PromptBlocks(new long[0], null, 1, 0, -1, 0);

  private final long[] hashes;
  /** The tokens through each block, for blocks of uneven size (from text); null if even. */
  private final int @Nullable [] tokenEnds;
  private final int blockTokens;
  private final int promptTokens;
  private final int sharedBlocks;
  /** Characters per block of blocks hashed from text; 0 for token blocks. */
  final int blockChars;

  private PromptBlocks(long[] hashes, int @Nullable [] tokenEnds, int blockTokens,
      int promptTokens, int sharedBlocks, int blockChars) {
    this.hashes = hashes;
    this.tokenEnds = tokenEnds;
    this.blockTokens = blockTokens;
    this.promptTokens = promptTokens;
    this.sharedBlocks = sharedBlocks;
    this.blockChars = blockChars;
  }

  /**
   * The blocks of a prompt of {@code promptTokens} tokens, {@code blockTokens} tokens per block
   * (the last one possibly fewer), given their chained hashes; the array is copied. The shared
   * system prompt's extent is unknown.
   *
   * @param chainedHashes block {@code i}'s hash covering blocks 0 to {@code i}; not null
   * @param blockTokens tokens per block, at least 1
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
    return new PromptBlocks(chainedHashes.clone(), null, blockTokens, promptTokens, -1, 0);
  }

  /** {@return no blocks: the blocks of a request without a prompt} */
  public static PromptBlocks empty() {
    return EMPTY;
  }

  /** {@return the number of blocks (from text, at most {@value #MAX_BLOCKS})} */
  public int size() {
    return hashes.length;
  }

  /**
   * The chained hash of block {@code index} (covering blocks 0 to {@code index}).
   *
   * @param index the block, from 0
   * @return its chained hash
   * @throws IndexOutOfBoundsException unless {@code 0 <= index < size()}
   */
  public long hash(int index) {
    return hashes[index];
  }

  /**
   * {@return prompt tokens per block: for blocks from text, the tokens of a full block of {@code
   * blockChars} characters (a message's last block may hold fewer, as may the prompt's last)}
   */
  public int blockTokens() {
    return blockTokens;
  }

  /** {@return the prompt's length in tokens (estimated, for text), including any part past the cap} */
  public int promptTokens() {
    return promptTokens;
  }

  /**
   * The prompt tokens covered by the first {@code blocks} blocks (estimated, for text). For a
   * replica that holds a request's first {@code blocks} blocks, the tokens it need not compute
   * again.
   *
   * @param blocks how many leading blocks
   * @return the tokens they cover
   * @throws IllegalArgumentException if {@code blocks} is negative or more than {@link #size()}
   */
  public int tokensThrough(int blocks) {
    if (blocks < 0 || blocks > hashes.length) {
      throw new IllegalArgumentException("blocks must be in [0, " + hashes.length + "], got "
          + blocks);
    }
    if (blocks == 0) return 0;
    if (tokenEnds != null) return tokenEnds[blocks - 1];
    return (int) Math.min(promptTokens, (long) blocks * blockTokens);
  }

  /**
   * {@return the number of leading blocks whose content is final: blocks of {@link #blockTokens()}
   * tokens each for token blocks, every block but a short last one for text (a message's earlier
   * blocks never change as a conversation grows)} Indexes that record only complete blocks (as
   * vLLM caches only full blocks) look at these.
   */
  public int fullBlocks() {
    if (tokenEnds == null) return Math.min(hashes.length, promptTokens / blockTokens);
    int n = hashes.length;
    if (n == 0) return 0;
    int last = tokenEnds[n - 1] - (n > 1 ? tokenEnds[n - 2] : 0);
    return last >= blockTokens ? n : n - 1;
  }

  /**
   * {@return how many leading blocks hold the shared system prompt (the leading {@code system} and
   * {@code developer} messages of a chat), or -1 when the roles are unknown (a completion, a
   * trace)}
   */
  public int sharedBlocks() {
    return sharedBlocks;
  }

  /** The hashes, for policies in this package: not copied. */
  long[] hashes() {
    return hashes;
  }

  @Override
  public String toString() {
    // Hashes of user data are not printed.
    return "PromptBlocks{blocks=" + hashes.length + ", blockTokens=" + blockTokens
        + ", promptTokens=" + promptTokens
        + (sharedBlocks >= 0 ? ", sharedBlocks=" + sharedBlocks : "") + '}';
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof PromptBlocks b && b.blockTokens == blockTokens
        && b.promptTokens == promptTokens && b.sharedBlocks == sharedBlocks
        && Arrays.equals(b.hashes, hashes) && Arrays.equals(b.tokenEnds, tokenEnds);
  }

  @Override
  public int hashCode() {
    return Arrays.hashCode(hashes) * 31 + promptTokens;
  }

  /**
   * The blocks of a chat's messages ({@code roles[k]} null for text without roles, such as a
   * completion's prompt), {@code blockChars} characters per block. Allocates only the result.
   */
  static PromptBlocks ofMessages(String model, @Nullable String[] roles, CharSequence[] contents,
      int messages, int blockChars) {
    int n = 0;
    long totalChars = 0;
    for (int k = 0; k < messages; k++) {
      int length = contents[k].length();
      totalChars += length;
      n += Math.max(1, (length + blockChars - 1) / blockChars);
    }
    n = Math.min(n, MAX_BLOCKS);
    long[] hashes = new long[n];
    int[] ends = new int[n];
    int shared = messages > 0 && roles[0] != null ? 0 : -1;
    boolean sharedOpen = shared == 0;
    long hash = Hashing.xxh64(model, 0);
    long chars = 0;
    int b = 0;
    for (int k = 0; k < messages && b < n; k++) {
      String role = roles[k];
      CharSequence content = contents[k];
      int length = content.length();
      long seed = Hashing.mix64(hash ^ (role == null ? ROLE_SEED : Hashing.xxh64(role, ROLE_SEED)));
      int from = 0;
      do {
        int to = Math.min(length, from + blockChars);
        chars += to - from;
        hash = Hashing.xxh64(content, from, to, seed);
        seed = hash;
        hashes[b] = hash;
        ends[b] = tokensOf(chars);
        b++;
        from = to;
      } while (from < length && b < n);
      if (sharedOpen) {
        if (role != null && (role.equals("system") || role.equals("developer"))) {
          shared = b;
        } else {
          sharedOpen = false;
        }
      }
    }
    return new PromptBlocks(hashes, ends, Math.max(1, tokensOf(blockChars)), tokensOf(totalChars),
        shared, blockChars);
  }

  private static int tokensOf(long chars) {
    return (int) Math.min(Integer.MAX_VALUE, (chars + CHARS_PER_TOKEN - 1) / CHARS_PER_TOKEN);
  }
}
