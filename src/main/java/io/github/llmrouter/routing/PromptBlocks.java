package io.github.llmrouter.routing;

import static java.util.Objects.requireNonNull;

import io.github.llmrouter.internal.util.Hashing;
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
 * hashes as it grows. Block hashes are XXH64 of the block's characters, seeded with the previous
 * block's hash; a message's first block is seeded with the previous hash mixed
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
 * <p><b>Long prompts.</b> Every character of a prompt is hashed, however long, but not every
 * block's hash is kept: the first {@value #DENSE_BLOCKS} blocks are all kept (with the default
 * {@value #DEFAULT_BLOCK_CHARS}-character blocks, the first 64 Ki characters, about 16 K tokens);
 * past them, one block in {@value #STRIDE} is kept for the next {@value #LEVEL_BLOCKS} kept blocks
 * (the last block of each stride: its chained hash covers all of it), then one in {@value #STRIDE}
 * × {@value #STRIDE}, and so on. Which blocks are kept depends only on their position, so two
 * prompts that share a prefix keep the same hashes for it, and a match is found to within one
 * stride (2 Ki tokens up to about 2 Mi characters, 64 Ki tokens up to about 69 Mi). A prompt of
 * 1 MiB keeps 376 hashes (4.5 KB with their token ends); memory grows with the logarithm of the
 * length. {@link #size()}, {@link #hash(int)} and {@link #tokensThrough(int)} count kept blocks.
 *
 * <p><b>Hashing once.</b> A message's block hashes depend only on the messages before it and its
 * own text, so a chain can be resumed: when a request's leading messages are the same {@code
 * String} objects as in a request hashed before (as when an application keeps a conversation's
 * history and appends to it), their hashes come from a small bounded cache and only the new
 * messages are hashed (see {@link #CACHED_PIECES}). A message rebuilt from text is hashed again;
 * the result is the same either way.
 *
 * <p>Immutable and thread-safe; {@link #hash(int)} and {@link #tokensThrough(int)} cost a few
 * nanoseconds and allocate nothing.
 *
 * @since 0.2.0
 */
public final class PromptBlocks {
  /** Default characters per block: {@value} (about 64 tokens). */
  public static final int DEFAULT_BLOCK_CHARS = 256;
  /** Leading blocks whose hashes are all kept: {@value}. */
  public static final int DENSE_BLOCKS = 256;
  /** How much sparser each level of kept blocks past the dense ones is: {@value}. */
  public static final int STRIDE = 32;
  /** Kept blocks per level past the dense ones: {@value}. */
  public static final int LEVEL_BLOCKS = 256;
  /**
   * Pieces of messages whose hashes are remembered for resuming, in one cache shared by every
   * request of the process: {@value}. A piece is up to 32 kept blocks of one message (its hashes
   * and character ends, at most 480 bytes with its object and array headers), plus a 32-byte weak
   * reference per remembered message, so the cache holds at most about 4.2 MB, and never the
   * text: a message is recognised by identity through the weak reference.
   */
  static final int CACHED_PIECES = MessageChains.CAPACITY;
  /** The characters-per-token proxy of text blocks: {@value}. */
  public static final int CHARS_PER_TOKEN = 4;
  /** Seeds the hash of a role name, so that a role cannot be mistaken for content. */
  private static final long ROLE_SEED = 0x726F6C65L; // "role"

  static final PromptBlocks EMPTY = new PromptBlocks(new long[0], null, 1, 0, -1, 0, 0);

  private final long[] hashes;
  /** The tokens through each block, for blocks of uneven size (from text); null if even. */
  private final int @Nullable [] tokenEnds;
  private final int blockTokens;
  private final int promptTokens;
  private final int sharedBlocks;
  private final int fullBlocks;
  /** Characters per block of blocks hashed from text; 0 for token blocks. */
  final int blockChars;

  private PromptBlocks(long[] hashes, int @Nullable [] tokenEnds, int blockTokens,
      int promptTokens, int sharedBlocks, int fullBlocks, int blockChars) {
    this.hashes = hashes;
    this.tokenEnds = tokenEnds;
    this.blockTokens = blockTokens;
    this.promptTokens = promptTokens;
    this.sharedBlocks = sharedBlocks;
    this.fullBlocks = fullBlocks;
    this.blockChars = blockChars;
  }

  /**
   * The blocks of a prompt of {@code promptTokens} tokens, {@code blockTokens} tokens per block
   * (the last one possibly fewer), given their chained hashes, every one kept (as an engine that
   * sees the whole prompt holds them); the array is copied. The shared system prompt's extent is
   * unknown. {@link #sampled} keeps what a client keeps of the same prompt.
   *
   * @param chainedHashes block {@code i}'s hash covering blocks 0 to {@code i}; not null
   * @param blockTokens tokens per block, at least 1
   * @param promptTokens the prompt's length in tokens, at least 0
   * @return the blocks
   * @throws IllegalArgumentException if {@code blockTokens < 1} or {@code promptTokens < 0}
   */
  public static PromptBlocks of(long[] chainedHashes, int blockTokens, int promptTokens) {
    requireNonNull(chainedHashes, "chainedHashes");
    checkTokens(blockTokens, promptTokens);
    return new PromptBlocks(chainedHashes.clone(), null, blockTokens, promptTokens, -1,
        Math.min(chainedHashes.length, promptTokens / blockTokens), 0);
  }

  /**
   * What a client keeps of a prompt of such blocks: as {@link #of}, but only the blocks a prompt
   * hashed from text keeps (every one of the first {@value #DENSE_BLOCKS}, then sparser; see
   * <i>Long prompts</i> above). A simulation hands this to a policy so that it sees a long prompt
   * as it would in production.
   *
   * @param chainedHashes every block's chained hash, block {@code i}'s covering blocks 0 to
   *     {@code i}; not null
   * @param blockTokens tokens per block, at least 1
   * @param promptTokens the prompt's length in tokens, at least 0
   * @return the kept blocks
   * @throws IllegalArgumentException if {@code blockTokens < 1} or {@code promptTokens < 0}
   */
  public static PromptBlocks sampled(long[] chainedHashes, int blockTokens, int promptTokens) {
    requireNonNull(chainedHashes, "chainedHashes");
    checkTokens(blockTokens, promptTokens);
    int n = chainedHashes.length;
    if (n <= DENSE_BLOCKS) return of(chainedHashes, blockTokens, promptTokens);
    int kept = keptBlocks(n);
    long[] hashes = new long[kept];
    int[] ends = new int[kept];
    int full = 0;
    long block = 0;
    for (int k = 0; k < kept; k++, block = nextKept(block)) {
      hashes[k] = chainedHashes[(int) block];
      long through = (block + 1) * blockTokens;
      ends[k] = (int) Math.min(promptTokens, through);
      if (through <= promptTokens) full++;
    }
    return new PromptBlocks(hashes, ends, blockTokens, promptTokens, -1, full, 0);
  }

  private static void checkTokens(int blockTokens, int promptTokens) {
    if (blockTokens < 1) {
      throw new IllegalArgumentException("blockTokens must be >= 1, got " + blockTokens);
    }
    if (promptTokens < 0) {
      throw new IllegalArgumentException("promptTokens must be >= 0, got " + promptTokens);
    }
  }

  /** {@return no blocks: the blocks of a request without a prompt} */
  public static PromptBlocks empty() {
    return EMPTY;
  }

  /** {@return the number of kept blocks (every block of a prompt of {@value #DENSE_BLOCKS} or fewer)} */
  public int size() {
    return hashes.length;
  }

  /**
   * The chained hash of kept block {@code index} (covering the prompt through that block).
   *
   * @param index the kept block, from 0
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

  /** {@return the prompt's length in tokens (estimated, for text)} */
  public int promptTokens() {
    return promptTokens;
  }

  /**
   * The prompt tokens covered through the first {@code blocks} kept blocks (estimated, for text).
   * For a replica that holds a request's first {@code blocks} kept blocks, the tokens it need not
   * compute again.
   *
   * @param blocks how many leading kept blocks
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
   * {@return the number of leading kept blocks whose content is final: blocks of {@link
   * #blockTokens()} tokens each for token blocks, every block but a short last one for text (a
   * message's earlier blocks never change as a conversation grows)} Indexes that record only
   * complete blocks (as vLLM caches only full blocks) look at these.
   */
  public int fullBlocks() {
    return fullBlocks;
  }

  /**
   * {@return how many leading kept blocks lie in the shared system prompt (the leading {@code
   * system} and {@code developer} messages of a chat), or -1 when the roles are unknown (a
   * completion, a trace)}
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
        && b.fullBlocks == fullBlocks
        && Arrays.equals(b.hashes, hashes) && Arrays.equals(b.tokenEnds, tokenEnds);
  }

  @Override
  public int hashCode() {
    return Arrays.hashCode(hashes) * 31 + promptTokens;
  }

  /** Whether block {@code block} (from 0) of a prompt is kept. */
  static boolean isKept(long block) {
    return block == 0 || nextKept(block - 1) == block;
  }

  /** The first kept block after block {@code block}. */
  static long nextKept(long block) {
    long next = block + 1;
    if (next < DENSE_BLOCKS) return next;
    long start = DENSE_BLOCKS;
    long stride = STRIDE;
    while (true) {
      long end = start + stride * LEVEL_BLOCKS;
      if (next < end) {
        // The last block of each stride is kept: start + stride - 1, start + 2 × stride - 1, ...
        return start + stride - 1 + (next - start) / stride * stride;
      }
      start = end;
      stride *= STRIDE;
    }
  }

  /** How many of a prompt's first {@code blocks} blocks are kept. */
  static int keptBlocks(long blocks) {
    if (blocks <= DENSE_BLOCKS) return (int) blocks;
    long kept = DENSE_BLOCKS;
    long rest = blocks - DENSE_BLOCKS;
    long stride = STRIDE;
    while (rest >= stride * LEVEL_BLOCKS) {
      kept += LEVEL_BLOCKS;
      rest -= stride * LEVEL_BLOCKS;
      stride *= STRIDE;
    }
    return (int) (kept + rest / stride);
  }

  /**
   * The blocks of a chat's messages ({@code roles[k]} null for text without roles, such as a
   * completion's prompt), {@code blockChars} characters per block, resuming from {@code chains}
   * (null: hash everything) the messages it remembers. Allocates the result and what {@code
   * chains} learns.
   */
  static PromptBlocks ofMessages(String model, @Nullable String[] roles, CharSequence[] contents,
      int messages, int blockChars, @Nullable MessageChains chains) {
    long blocks = 0;
    long totalChars = 0;
    for (int k = 0; k < messages; k++) {
      int length = contents[k].length();
      totalChars += length;
      blocks += Math.max(1, (length + blockChars - 1) / blockChars);
    }
    int kept = keptBlocks(blocks);
    MessageChains.Hashed out = new MessageChains.Hashed(kept);
    int shared = messages > 0 && roles[0] != null ? 0 : -1;
    boolean sharedOpen = shared == 0;
    long hash = Hashing.xxh64(model, 0);
    for (int k = 0; k < messages; k++) {
      String role = roles[k];
      long seed = Hashing.mix64(hash ^ (role == null ? ROLE_SEED : Hashing.xxh64(role, ROLE_SEED)));
      hash = MessageChains.hashMessage(chains, contents[k], seed, blockChars, out);
      if (sharedOpen) {
        if (role != null && (role.equals("system") || role.equals("developer"))) {
          shared = out.kept;
        } else {
          sharedOpen = false;
        }
      }
    }
    // The prompt's last block is the last message's: short unless that message fills it.
    int lastLength = contents[messages - 1].length();
    int lastChars = lastLength == 0 ? 0 : (lastLength - 1) % blockChars + 1;
    int full = kept - (isKept(blocks - 1) && lastChars < blockChars ? 1 : 0);
    return new PromptBlocks(out.hashes, out.ends, Math.max(1, tokensOf(blockChars)),
        tokensOf(totalChars), shared, full, blockChars);
  }

  static int tokensOf(long chars) {
    return (int) Math.min(Integer.MAX_VALUE, (chars + CHARS_PER_TOKEN - 1) / CHARS_PER_TOKEN);
  }
}
