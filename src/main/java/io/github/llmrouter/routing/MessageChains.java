package io.github.llmrouter.routing;

import io.github.llmrouter.internal.util.Hashing;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.lang.ref.WeakReference;
import java.util.Arrays;
import org.jspecify.annotations.Nullable;

/**
 * The block hashes of messages hashed before, so that a conversation's next turn hashes only its
 * new messages. A message is hashed in pieces of up to {@value #PIECE_KEPT} kept blocks; each
 * piece is remembered under what its hashes depend on and nothing else: the chained hash it
 * continues from (which covers the model, every earlier message and the role), its first
 * character, its first block's position in the prompt, the block size, and the message itself,
 * recognised by identity. Only {@code String} messages are remembered (they cannot change), and
 * only through a weak reference, so the cache never keeps a prompt alive nor copies its text. A
 * remembered piece therefore yields exactly the hashes a fresh pass would compute, and two
 * different prompts can never be made to look alike.
 *
 * <p><b>Memory.</b> {@value #CAPACITY} pieces at most, in sets of {@value #WAYS}; a new piece
 * replaces a piece whose message is gone, else one of its set in turn. A piece holds at most
 * {@value #PIECE_KEPT} hashes and character ends: 480 bytes at most with its object and array
 * headers (most hold one or two), plus one weak reference per remembered message: about 4.2 MB
 * at most.
 *
 * <p><b>Concurrency.</b> Lock-free: pieces are immutable and published with release semantics;
 * two threads remembering the same piece may both store it, which wastes a slot and nothing else.
 */
final class MessageChains {
  /** Pieces remembered at most: {@value}. */
  static final int CAPACITY = 8192;
  /** Pieces per set: {@value}. */
  static final int WAYS = 4;
  /** Kept blocks per piece at most: {@value}. */
  static final int PIECE_KEPT = 32;

  /** The cache every request of the process resumes from. */
  static final MessageChains SHARED = new MessageChains(CAPACITY);

  private static final VarHandle PIECES = MethodHandles.arrayElementVarHandle(Piece[].class);

  private final Piece[] pieces;
  private final int setMask;
  /** Which way of a full set is replaced next; racy, as any rotation will do. */
  private int victim;

  /** A cache of {@code capacity} pieces, a power of two of at least {@value #WAYS}. */
  MessageChains(int capacity) {
    if (capacity < WAYS || Integer.bitCount(capacity) != 1) {
      throw new IllegalArgumentException("capacity must be a power of two >= " + WAYS);
    }
    this.pieces = new Piece[capacity];
    this.setMask = capacity / WAYS - 1;
  }

  /** One stretch of a message's blocks and what hashing it gave. Immutable. */
  static final class Piece {
    final WeakReference<String> message;
    final long seed;
    final long block;
    final int from;
    final int to;
    final int blockChars;
    final int blocks;
    final long end;
    /** The kept blocks' chained hashes, and the message's characters through each of them. */
    final long[] hashes;
    final int[] charEnds;

    Piece(WeakReference<String> message, long seed, long block, int from, int to, int blockChars,
        int blocks, long end, long[] hashes, int[] charEnds) {
      this.message = message;
      this.seed = seed;
      this.block = block;
      this.from = from;
      this.to = to;
      this.blockChars = blockChars;
      this.blocks = blocks;
      this.end = end;
      this.hashes = hashes;
      this.charEnds = charEnds;
    }
  }

  /** A prompt's kept blocks as they are hashed, message after message. Not thread-safe. */
  static final class Hashed {
    final long[] hashes;
    final int[] ends;
    /** Kept blocks so far; blocks so far; characters so far. */
    int kept;
    long blocks;
    long chars;
    /** The next block to keep. */
    long nextKept;

    Hashed(int kept) {
      this.hashes = new long[kept];
      this.ends = new int[kept];
    }

    /**
     * Hashes the message {@code content}, which starts at prompt character {@code messageStart},
     * from its character {@code from}, block after block, until it ends or {@code maxKept} blocks
     * have been kept; records in {@code charEnds} (if not null) the message's characters through
     * each kept block. {@return the chained hash of the last block hashed}
     */
    long hash(CharSequence content, long messageStart, int from, long seed, int blockChars,
        int maxKept, int @Nullable [] charEnds) {
      int length = content.length();
      int keptBefore = kept;
      do {
        int to = Math.min(length, from + blockChars);
        seed = Hashing.xxh64(content, from, to, seed);
        chars = messageStart + to;
        if (blocks++ == nextKept) {
          hashes[kept] = seed;
          ends[kept] = PromptBlocks.tokensOf(chars);
          if (charEnds != null) charEnds[kept - keptBefore] = to;
          kept++;
          nextKept = PromptBlocks.nextKept(blocks - 1);
        }
        from = to;
      } while (from < length && kept - keptBefore < maxKept);
      return seed;
    }

    /** Adds a remembered piece of the message that starts at prompt character {@code messageStart}. */
    void resume(Piece p, long messageStart) {
      System.arraycopy(p.hashes, 0, hashes, kept, p.hashes.length);
      for (int j = 0; j < p.charEnds.length; j++) {
        ends[kept + j] = PromptBlocks.tokensOf(messageStart + p.charEnds[j]);
      }
      kept += p.hashes.length;
      blocks += p.blocks;
      nextKept = PromptBlocks.nextKept(blocks - 1);
      chars = messageStart + p.to;
    }
  }

  /**
   * Hashes one message's blocks into {@code out}, continuing the chain from {@code seed}: through
   * {@code chains} (null: none) if it can remember the message, else all at once.
   *
   * @return the chained hash of the message's last block
   */
  static long hashMessage(@Nullable MessageChains chains, CharSequence content, long seed,
      int blockChars, Hashed out) {
    if (chains != null && content instanceof String message && message.length() >= blockChars) {
      return chains.hashRemembering(message, seed, blockChars, out);
    }
    return out.hash(content, out.chars, 0, seed, blockChars, Integer.MAX_VALUE, null);
  }

  /**
   * Hashes {@code message} piece by piece, resuming the pieces remembered and remembering the
   * others.
   */
  private long hashRemembering(String message, long seed, int blockChars, Hashed out) {
    int length = message.length();
    long messageStart = out.chars;
    WeakReference<String> ref = null;
    int from = 0;
    do {
      Piece p = find(message, seed, out.blocks, from, blockChars);
      if (p != null) {
        ref = p.message;
        out.resume(p, messageStart);
        from = p.to;
        seed = p.end;
        continue;
      }
      // One piece: blocks until PIECE_KEPT of them are kept, or the message ends.
      long pieceBlock = out.blocks;
      int keptBefore = out.kept;
      long rest = (length - from + blockChars - 1) / blockChars;
      int pieceKept = Math.min(PIECE_KEPT,
          PromptBlocks.keptBlocks(pieceBlock + rest) - PromptBlocks.keptBlocks(pieceBlock));
      int[] charEnds = new int[pieceKept];
      long end = out.hash(message, messageStart, from, seed, blockChars, PIECE_KEPT, charEnds);
      int to = (int) (out.chars - messageStart);
      if (ref == null) ref = new WeakReference<>(message);
      remember(new Piece(ref, seed, pieceBlock, from, to, blockChars,
          (int) (out.blocks - pieceBlock), end,
          Arrays.copyOfRange(out.hashes, keptBefore, keptBefore + pieceKept), charEnds));
      from = to;
      seed = end;
    } while (from < length);
    return seed;
  }

  /** The piece of {@code message} that continues from {@code seed} at character {@code from}. */
  @Nullable Piece find(String message, long seed, long block, int from, int blockChars) {
    int base = setOf(message, seed, from);
    for (int w = base; w < base + WAYS; w++) {
      Piece p = (Piece) PIECES.getAcquire(pieces, w);
      if (p != null && p.seed == seed && p.from == from && p.block == block
          && p.blockChars == blockChars && p.message.get() == message) {
        return p;
      }
    }
    return null;
  }

  void remember(Piece piece) {
    String message = piece.message.get();
    if (message == null) return;
    int base = setOf(message, piece.seed, piece.from);
    int slot = -1;
    for (int w = base; w < base + WAYS && slot < 0; w++) {
      Piece p = (Piece) PIECES.getAcquire(pieces, w);
      if (p == null || p.message.get() == null) slot = w;
    }
    if (slot < 0) slot = base + (victim++ & (WAYS - 1));
    PIECES.setRelease(pieces, slot, piece);
  }

  private int setOf(String message, long seed, int from) {
    long key = Hashing.mix64(seed ^ ((long) System.identityHashCode(message) << 32 | from));
    return ((int) (key ^ (key >>> 32)) & setMask) * WAYS;
  }

  /** Pieces held now, for tests. */
  int size() {
    int n = 0;
    for (int i = 0; i < pieces.length; i++) if (PIECES.getAcquire(pieces, i) != null) n++;
    return n;
  }

  /** Kept hashes held now, for tests. */
  long keptHeld() {
    long n = 0;
    for (int i = 0; i < pieces.length; i++) {
      Piece p = (Piece) PIECES.getAcquire(pieces, i);
      if (p != null) n += p.hashes.length;
    }
    return n;
  }
}
