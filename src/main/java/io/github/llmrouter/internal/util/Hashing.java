package io.github.llmrouter.internal.util;

import static java.util.Objects.requireNonNull;

/**
 * XXH64 over text, without copying it into a byte array.
 *
 * <p>Characters are hashed as their UTF-16 code units in little-endian order: {@code xxh64(s, 0,
 * s.length(), seed)} is the reference XXH64 of those code units' bytes (for well-formed text, of
 * {@code s.getBytes(UTF_16LE)}; a lone surrogate is hashed as the code unit it is). Every client
 * of a fleet must compute the same hash for the same request, so this function is part of the
 * routing contract: it never changes between versions
 * of one major release.
 */
public final class Hashing {
  private static final long P1 = 0x9E3779B185EBCA87L;
  private static final long P2 = 0xC2B2AE3D27D4EB4FL;
  private static final long P3 = 0x165667B19E3779F9L;
  private static final long P4 = 0x85EBCA77C2B2AE63L;
  private static final long P5 = 0x27D4EB2F165667C5L;

  /** Texts up to this many characters are hashed from a per-thread buffer, without allocating. */
  static final int CHUNK = 1024;
  private static final ThreadLocal<char[]> BUFFER = ThreadLocal.withInitial(() -> new char[CHUNK]);

  private Hashing() {}

  /**
   * XXH64 of the whole of {@code text} with the given seed.
   *
   * @param text the text; not null, not copied
   * @param seed the seed (chain blocks by passing the previous block's hash)
   * @return the hash
   */
  public static long xxh64(CharSequence text, long seed) {
    return xxh64(text, 0, text.length(), seed);
  }

  /**
   * XXH64 of the characters {@code text[from, to)} with the given seed.
   *
   * @param text the text; not null, not copied
   * @param from the first character's index, inclusive
   * @param to the end index, exclusive
   * @param seed the seed (chain blocks by passing the previous block's hash)
   * @return the hash
   * @throws IndexOutOfBoundsException if the range is not inside {@code text}
   */
  public static long xxh64(CharSequence text, int from, int to, long seed) {
    requireNonNull(text, "text");
    if (from < 0 || to > text.length() || from > to) {
      throw new IndexOutOfBoundsException("range [" + from + ", " + to + ") of length " + text.length());
    }
    int length = to - from;
    char[] chars = length <= CHUNK ? BUFFER.get() : new char[length];
    copy(text, from, to, chars, 0);
    return xxh64(chars, 0, length, seed);
  }

  /**
   * XXH64 of the characters {@code chars[from, to)} with the given seed: the same value as the
   * {@link CharSequence} variant for the same characters.
   *
   * @param chars the characters; not null
   * @param from the first character hashed
   * @param to one past the last character hashed
   * @param seed the seed
   * @return the hash
   * @throws IndexOutOfBoundsException if the range is not inside {@code chars}
   */
  public static long xxh64(char[] chars, int from, int to, long seed) {
    requireNonNull(chars, "chars");
    if (from < 0 || to > chars.length || from > to) {
      throw new IndexOutOfBoundsException("range [" + from + ", " + to + ") of length " + chars.length);
    }
    long byteLength = 2L * (to - from);
    int i = from;
    long h;
    if (to - i >= 16) {
      long v1 = seed + P1 + P2;
      long v2 = seed + P2;
      long v3 = seed;
      long v4 = seed - P1;
      int limit = to - 16;
      do {
        v1 = round(v1, lane(chars, i));
        v2 = round(v2, lane(chars, i + 4));
        v3 = round(v3, lane(chars, i + 8));
        v4 = round(v4, lane(chars, i + 12));
        i += 16;
      } while (i <= limit);
      h = Long.rotateLeft(v1, 1) + Long.rotateLeft(v2, 7) + Long.rotateLeft(v3, 12)
          + Long.rotateLeft(v4, 18);
      h = mergeRound(h, v1);
      h = mergeRound(h, v2);
      h = mergeRound(h, v3);
      h = mergeRound(h, v4);
    } else {
      h = seed + P5;
    }
    h += byteLength;
    while (to - i >= 4) {
      h ^= round(0, lane(chars, i));
      h = Long.rotateLeft(h, 27) * P1 + P4;
      i += 4;
    }
    if (to - i >= 2) {
      long word = (chars[i] & 0xFFFFL) | ((chars[i + 1] & 0xFFFFL) << 16);
      h ^= word * P1;
      h = Long.rotateLeft(h, 23) * P2 + P3;
      i += 2;
    }
    if (i < to) {
      char c = chars[i];
      h = byteStep(h, c & 0xFF);
      h = byteStep(h, (c >>> 8) & 0xFF);
    }
    return avalanche(h);
  }

  /**
   * Copies {@code text[from, to)} into {@code dst} at {@code at}: in bulk for the JDK's own
   * character sequences (an intrinsic for strings), else character by character.
   */
  static void copy(CharSequence text, int from, int to, char[] dst, int at) {
    if (text instanceof String s) {
      s.getChars(from, to, dst, at);
    } else if (text instanceof StringBuilder b) {
      b.getChars(from, to, dst, at);
    } else {
      for (int i = from; i < to; i++) dst[at++] = text.charAt(i);
    }
  }

  /**
   * XXH64 of a byte array; the reference the text variant is tested against.
   *
   * @param bytes the bytes; not null
   * @param seed the seed
   * @return the hash
   */
  public static long xxh64(byte[] bytes, long seed) {
    requireNonNull(bytes, "bytes");
    int len = bytes.length;
    int i = 0;
    long h;
    if (len >= 32) {
      long v1 = seed + P1 + P2;
      long v2 = seed + P2;
      long v3 = seed;
      long v4 = seed - P1;
      do {
        v1 = round(v1, le64(bytes, i));
        v2 = round(v2, le64(bytes, i + 8));
        v3 = round(v3, le64(bytes, i + 16));
        v4 = round(v4, le64(bytes, i + 24));
        i += 32;
      } while (i <= len - 32);
      h = Long.rotateLeft(v1, 1) + Long.rotateLeft(v2, 7) + Long.rotateLeft(v3, 12)
          + Long.rotateLeft(v4, 18);
      h = mergeRound(h, v1);
      h = mergeRound(h, v2);
      h = mergeRound(h, v3);
      h = mergeRound(h, v4);
    } else {
      h = seed + P5;
    }
    h += len;
    while (len - i >= 8) {
      h ^= round(0, le64(bytes, i));
      h = Long.rotateLeft(h, 27) * P1 + P4;
      i += 8;
    }
    if (len - i >= 4) {
      long word = (bytes[i] & 0xFFL) | (bytes[i + 1] & 0xFFL) << 8 | (bytes[i + 2] & 0xFFL) << 16
          | (bytes[i + 3] & 0xFFL) << 24;
      h ^= word * P1;
      h = Long.rotateLeft(h, 23) * P2 + P3;
      i += 4;
    }
    while (i < len) {
      h = byteStep(h, bytes[i] & 0xFF);
      i++;
    }
    return avalanche(h);
  }

  /**
   * A fast 64-bit finaliser (SplitMix64's), for mixing integers such as block ids.
   *
   * @param x any value
   * @return its mix: a bijection of 64-bit values with full avalanche
   */
  public static long mix64(long x) {
    x = (x ^ (x >>> 30)) * 0xBF58476D1CE4E5B9L;
    x = (x ^ (x >>> 27)) * 0x94D049BB133111EBL;
    return x ^ (x >>> 31);
  }

  private static long lane(char[] c, int i) {
    return (c[i] & 0xFFFFL) | (c[i + 1] & 0xFFFFL) << 16 | (c[i + 2] & 0xFFFFL) << 32
        | (c[i + 3] & 0xFFFFL) << 48;
  }

  private static long le64(byte[] b, int i) {
    return (b[i] & 0xFFL) | (b[i + 1] & 0xFFL) << 8 | (b[i + 2] & 0xFFL) << 16
        | (b[i + 3] & 0xFFL) << 24 | (b[i + 4] & 0xFFL) << 32 | (b[i + 5] & 0xFFL) << 40
        | (b[i + 6] & 0xFFL) << 48 | (b[i + 7] & 0xFFL) << 56;
  }

  private static long byteStep(long h, int b) {
    h ^= b * P5;
    return Long.rotateLeft(h, 11) * P1;
  }

  private static long round(long acc, long input) {
    acc += input * P2;
    acc = Long.rotateLeft(acc, 31);
    return acc * P1;
  }

  private static long mergeRound(long acc, long val) {
    acc ^= round(0, val);
    return acc * P1 + P4;
  }

  private static long avalanche(long h) {
    h ^= h >>> 33;
    h *= P2;
    h ^= h >>> 29;
    h *= P3;
    h ^= h >>> 32;
    return h;
  }
}
