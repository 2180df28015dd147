package io.github.llmrouter.routing;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.lang.ref.WeakReference;
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
    /** Characters before the prompt's last block so far. */
    long charsBeforeLast;

    Hashed(int kept) {
      this.hashes = new long[kept];
      this.ends = new int[kept];
    }

    /** Adds the next block; {@return whether it is kept} */
    boolean block(long hash, long charsThrough) {
      boolean keep = blocks == nextKept;
      if (keep) {
        hashes[kept] = hash;
        ends[kept] = PromptBlocks.tokensOf(charsThrough);
        kept++;
        nextKept = PromptBlocks.nextKept(blocks);
      }
      blocks++;
      return keep;
    }
  }

  /**
   * Hashes one message's blocks into {@code out}, continuing the chain from {@code seed}; resumes
   * the pieces {@code chains} (null: none) remembers and remembers the others.
   *
   * @return the chained hash of the message's last block
   */
  static long hashMessage(@Nullable MessageChains chains, CharSequence content, long seed,
      int blockChars, Hashed out) {
    int length = content.length();
    String remembered = chains != null && content instanceof String s && length >= blockChars
        ? s : null;
    WeakReference<String> ref = null;
    long messageStart = out.chars;
    int from = 0;
    do {
      if (remembered != null && chains != null) {
        Piece p = chains.find(remembered, seed, out.blocks, from, blockChars);
        if (p != null) {
          ref = p.message;
          int k = out.kept;
          System.arraycopy(p.hashes, 0, out.hashes, k, p.hashes.length);
          for (int j = 0; j < p.charEnds.length; j++) {
            out.ends[k + j] = PromptBlocks.tokensOf(messageStart + p.charEnds[j]);
          }
          out.kept = k + p.hashes.length;
          out.blocks += p.blocks;
          out.nextKept = PromptBlocks.nextKept(out.blocks - 1);
          out.charsBeforeLast = messageStart + p.from + (long) (p.blocks - 1) * blockChars;
          out.chars = messageStart + p.to;
          from = p.to;
          seed = p.end;
          continue;
        }
      }
      // One piece: blocks until PIECE_KEPT of them are kept, or the message ends.
      long pieceBlock = out.blocks;
      int pieceFrom = from;
      long pieceSeed = seed;
      int keptBefore = out.kept;
      long rest = Math.max(1, (length - from + blockChars - 1) / blockChars);
      int pieceKept = Math.min(PIECE_KEPT,
          PromptBlocks.keptBlocks(pieceBlock + rest) - PromptBlocks.keptBlocks(pieceBlock));
      int[] charEnds = remembered != null ? new int[pieceKept] : null;
      do {
        int to = Math.min(length, from + blockChars);
        seed = Hashing.xxh64(content, from, to, seed);
        out.charsBeforeLast = messageStart + from;
        out.chars = messageStart + to;
        if (out.block(seed, out.chars) && charEnds != null) charEnds[out.kept - keptBefore - 1] = to;
        from = to;
      } while (from < length && out.kept - keptBefore < PIECE_KEPT);
      if (charEnds != null && remembered != null && chains != null) {
        if (ref == null) ref = new WeakReference<>(remembered);
        long[] hashes = new long[pieceKept];
        System.arraycopy(out.hashes, keptBefore, hashes, 0, pieceKept);
        chains.remember(new Piece(ref, pieceSeed, pieceBlock, pieceFrom, from, blockChars,
            (int) (out.blocks - pieceBlock), seed, hashes, charEnds));
      }
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
