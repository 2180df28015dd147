package io.github.llmrouter.routing;

import static java.util.Objects.requireNonNull;

import java.util.Arrays;

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
 * <p><b>Token estimates.</b> Blocks carry an estimate of the prompt tokens they end at: for text,
 * {@value #CHARS_PER_TOKEN} characters per token (a character proxy, as SGLang's router and the
 * Gateway API inference extension use); policies correct it with the token counts replicas report.
 *
 * <p><b>Cap.</b> At most {@value #MAX_BLOCKS} blocks are hashed: past that, two prompts that agree
 * on their first {@value #MAX_BLOCKS} blocks look alike (their length still counts in {@link
 * #tokens()}). With the default {@value #DEFAULT_BLOCK_CHARS}-character blocks that is the first
 * 64 Ki characters, about 16 K tokens.
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
  /** Seeds the chain of trace block ids. */
  private static final long ID_SEED = 0x626C6F636B4964L; // "blockId"

  static final PromptBlocks EMPTY = new PromptBlocks(new long[0], new int[0], 0, -1, 0);

  private final long[] hashes;
  private final int[] tokenEnds;
  private final int tokens;
  private final int sharedBlocks;
  /** Characters per block of blocks hashed from text; 0 for blocks from ids. */
  final int blockChars;

  private PromptBlocks(long[] hashes, int[] tokenEnds, int tokens, int sharedBlocks,
      int blockChars) {
    this.hashes = hashes;
    this.tokenEnds = tokenEnds;
    this.tokens = tokens;
    this.sharedBlocks = sharedBlocks;
    this.blockChars = blockChars;
  }

  /**
   * The blocks of a prompt known only by block ids, as in a trace (Mooncake's {@code hash_ids}):
   * block {@code i}'s hash chains id {@code i} onto block {@code i - 1}'s, starting from the model.
   * Block {@code i} ends at {@code min((i + 1) × tokensPerBlock, promptTokens)} tokens. The
   * shared system prompt's extent is unknown.
   *
   * @param model the model (and adapter) name
   * @param blockIds one id per block; equal ids at equal positions mean equal content
   * @param tokensPerBlock tokens per block, at least 1
   * @param promptTokens the prompt's length in tokens, at least 0
   */
  public static PromptBlocks ofBlockIds(String model, long[] blockIds, int tokensPerBlock,
      int promptTokens) {
    requireNonNull(model, "model");
    requireNonNull(blockIds, "blockIds");
    if (tokensPerBlock < 1) {
      throw new IllegalArgumentException("tokensPerBlock must be >= 1, got " + tokensPerBlock);
    }
    if (promptTokens < 0) {
      throw new IllegalArgumentException("promptTokens must be >= 0, got " + promptTokens);
    }
    int n = Math.min(blockIds.length, MAX_BLOCKS);
    long[] hashes = new long[n];
    int[] ends = new int[n];
    long h = Hashing.xxh64(model, ID_SEED);
    for (int i = 0; i < n; i++) {
      h = Hashing.mix64(h * 0x9E3779B97F4A7C15L + blockIds[i]);
      hashes[i] = h;
      ends[i] = (int) Math.min((long) (i + 1) * tokensPerBlock, promptTokens);
    }
    return new PromptBlocks(hashes, ends, promptTokens, -1, 0);
  }

  /** The number of blocks hashed (at most {@value #MAX_BLOCKS}). */
  public int size() {
    return hashes.length;
  }

  /** The chained hash of blocks {@code 0..i}. */
  public long hash(int i) {
    return hashes[i];
  }

  /** The estimated prompt tokens up to the end of block {@code i}. */
  public int tokensThrough(int i) {
    return tokenEnds[i];
  }

  /** The estimated prompt tokens of the whole prompt, including any part past the cap. */
  public int tokens() {
    return tokens;
  }

  /**
   * How many leading blocks hold the shared system prompt (the leading {@code system} and {@code
   * developer} messages of a chat), or -1 when the roles are unknown (a completion, a trace).
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
    return "PromptBlocks{blocks=" + hashes.length + ", tokens~" + tokens
        + (sharedBlocks >= 0 ? ", sharedBlocks=" + sharedBlocks : "") + '}';
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof PromptBlocks b && b.tokens == tokens && b.sharedBlocks == sharedBlocks
        && Arrays.equals(b.hashes, hashes) && Arrays.equals(b.tokenEnds, tokenEnds);
  }

  @Override
  public int hashCode() {
    return Arrays.hashCode(hashes);
  }

  /**
   * The blocks of a chat's messages ({@code roles[k]} null for text without roles, such as a
   * completion's prompt), {@code blockChars} characters per block. Allocates only the result.
   */
  static PromptBlocks ofMessages(String model, String[] roles, CharSequence[] contents,
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
    return new PromptBlocks(hashes, ends, tokensOf(totalChars), shared, blockChars);
  }

  private static int tokensOf(long chars) {
    return (int) Math.min(Integer.MAX_VALUE, (chars + CHARS_PER_TOKEN - 1) / CHARS_PER_TOKEN);
  }
}
