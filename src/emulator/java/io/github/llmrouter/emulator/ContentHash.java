package io.github.llmrouter.emulator;

/**
 * The emulated replica's own content hash: 64-bit FNV-1a over UTF-16 code units, finished with
 * SplitMix64's mixer so that nearby inputs spread over all 64 bits.
 *
 * <p>It names prompt blocks in the modelled prefix cache and seeds deterministic output. It owes
 * nothing to the router's hashing, as a real engine's cache owes nothing to its clients': the
 * emulated replica depends only on the router's public API.
 */
final class ContentHash {
  private static final long FNV_OFFSET = 0xCBF29CE484222325L;
  private static final long FNV_PRIME = 0x100000001B3L;

  private ContentHash() {}

  /** The hash of all of {@code text}, starting from {@code seed}. */
  static long of(CharSequence text, long seed) {
    return of(text, 0, text.length(), seed);
  }

  /** The hash of {@code text[from, to)}, starting from {@code seed} (chain blocks through it). */
  static long of(CharSequence text, int from, int to, long seed) {
    long h = FNV_OFFSET ^ mix(seed);
    for (int i = from; i < to; i++) {
      char c = text.charAt(i);
      h = (h ^ (c & 0xFF)) * FNV_PRIME;
      h = (h ^ (c >>> 8)) * FNV_PRIME;
    }
    return mix(h ^ (to - from));
  }

  /** SplitMix64's finalizer: a bijection of 64-bit values with full avalanche. */
  static long mix(long x) {
    x = (x ^ (x >>> 30)) * 0xBF58476D1CE4E5B9L;
    x = (x ^ (x >>> 27)) * 0x94D049BB133111EBL;
    return x ^ (x >>> 31);
  }
}
