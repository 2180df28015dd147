package io.github.llmrouter.internal.util;

import static java.nio.charset.StandardCharsets.US_ASCII;
import static java.nio.charset.StandardCharsets.UTF_16LE;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.github.llmrouter.routing.Fleets;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * XXH64 is part of the routing contract (every client must hash a key identically), so it is
 * pinned to the reference implementation. Every expected value below was produced by the reference
 * C implementation ({@code xxhsum -H1}, xxHash 0.8.1) on the same bytes.
 */
class HashingTest {

  @Test
  void bytesMatchTheReferenceVectors() {
    assertThat(Hashing.xxh64(new byte[0], 0)).isEqualTo(0xEF46DB3751D8E999L);
    assertThat(Hashing.xxh64("a".getBytes(US_ASCII), 0)).isEqualTo(0xD24EC4F1A98C6E5BL);
    assertThat(Hashing.xxh64("abc".getBytes(US_ASCII), 0)).isEqualTo(0x44BC2CF5AD770999L);
  }

  @Test
  void bytesMatchTheReferenceOnInputsLongerThanOneStripe() {
    // 39 and 43 bytes: one 32-byte stripe, then the 8-, 4- and 1-byte tails.
    assertThat(Hashing.xxh64("Nobody inspects the spammish repetition".getBytes(US_ASCII), 0))
        .isEqualTo(0xFBCEA83C8A378BF1L);
    assertThat(Hashing.xxh64("The quick brown fox jumps over the lazy dog".getBytes(US_ASCII), 0))
        .isEqualTo(0x0B242D361FDA71BCL);
    // Bytes 0..255: eight stripes, every byte value.
    byte[] all = new byte[256];
    for (int i = 0; i < 256; i++) all[i] = (byte) i;
    assertThat(Hashing.xxh64(all, 0)).isEqualTo(0x1FACBE8406CD904BL);
  }

  @Test
  void textIsHashedAsItsUtf16LittleEndianBytes() {
    // Reference values of iconv -t UTF-16LE output, so the char path is checked without the byte path.
    assertThat(Hashing.xxh64("The quick brown fox jumps over the lazy dog", 0))
        .isEqualTo(0xB50690F4310E490EL);
    assertThat(Hashing.xxh64("h\u00e9llo w\u00f6rld \u20ac \uD83D\uDE00 ok", 0))
        .isEqualTo(0x1BB17935126F460DL);
    assertThat(Hashing.xxh64("", 0)).isEqualTo(0xEF46DB3751D8E999L);
  }

  @Test
  void textEqualsBytesOfEveryLengthUpTo200WithRandomSeeds() {
    SplittableRandom random = new SplittableRandom(42);
    for (int length = 0; length <= 200; length++) {
      for (int trial = 0; trial < 5; trial++) {
        String s = Fleets.randomText(random, length);
        long seed = trial == 0 ? 0 : random.nextLong();
        assertThat(Hashing.xxh64(s, seed))
            .as("length %d, seed %d", length, seed)
            .isEqualTo(Hashing.xxh64(s.getBytes(UTF_16LE), seed));
      }
    }
  }

  @Test
  void aSubRangeHashesLikeTheSubstring() {
    SplittableRandom random = new SplittableRandom(7);
    for (int trial = 0; trial < 2000; trial++) {
      String s = Fleets.randomText(random, random.nextInt(0, 120));
      int from = random.nextInt(0, s.length() + 1);
      int to = random.nextInt(from, s.length() + 1);
      long seed = random.nextLong();
      // A cut may split a surrogate pair, so the reference encodes code units itself.
      long expected = Hashing.xxh64(littleEndianCodeUnits(s.substring(from, to)), seed);
      assertThat(Hashing.xxh64(s, from, to, seed)).isEqualTo(expected);
      assertThat(Hashing.xxh64(new StringBuilder(s), from, to, seed))
          .as("any CharSequence").isEqualTo(expected);
    }
  }

  @Test
  void textIsHashedAsCodeUnitsEvenWhenItIsNotWellFormed() {
    // getBytes(UTF_16LE) would replace a lone surrogate; the hash must not depend on a charset
    // encoder, so it is defined on code units.
    SplittableRandom random = new SplittableRandom(11);
    for (int length = 0; length <= 100; length++) {
      String s = Fleets.randomCodeUnits(random, length);
      long seed = random.nextLong();
      assertThat(Hashing.xxh64(s, seed)).isEqualTo(Hashing.xxh64(littleEndianCodeUnits(s), seed));
    }
  }

  private static byte[] littleEndianCodeUnits(String s) {
    byte[] b = new byte[2 * s.length()];
    for (int i = 0; i < s.length(); i++) {
      b[2 * i] = (byte) s.charAt(i);
      b[2 * i + 1] = (byte) (s.charAt(i) >>> 8);
    }
    return b;
  }

  @Test
  void charArraysAndLongTextsHashLikeTheirBytes() {
    SplittableRandom random = new SplittableRandom(13);
    // Past the per-thread buffer too, and through a CharSequence that is not a String.
    for (int length : new int[] {0, 15, 16, 1023, 1024, 1025, 5000}) {
      String s = Fleets.randomCodeUnits(random, length);
      long seed = random.nextLong();
      long expected = Hashing.xxh64(littleEndianCodeUnits(s), seed);
      assertThat(Hashing.xxh64(s.toCharArray(), 0, length, seed)).isEqualTo(expected);
      assertThat(Hashing.xxh64(s, seed)).isEqualTo(expected);
      assertThat(Hashing.xxh64(java.nio.CharBuffer.wrap(s), 0, length, seed)).isEqualTo(expected);
    }
    assertThatThrownBy(() -> Hashing.xxh64(new char[3], 2, 4, 0))
        .isInstanceOf(IndexOutOfBoundsException.class);
  }

  @Test
  void theSeedChangesTheHash() {
    assertThat(Hashing.xxh64("abc", 1)).isNotEqualTo(Hashing.xxh64("abc", 0));
  }

  @Test
  void rangesOutsideTheTextAreRejected() {
    assertThatThrownBy(() -> Hashing.xxh64("abc", -1, 2, 0))
        .isInstanceOf(IndexOutOfBoundsException.class);
    assertThatThrownBy(() -> Hashing.xxh64("abc", 0, 4, 0))
        .isInstanceOf(IndexOutOfBoundsException.class);
    assertThatThrownBy(() -> Hashing.xxh64("abc", 2, 1, 0))
        .isInstanceOf(IndexOutOfBoundsException.class);
    assertThatThrownBy(() -> Hashing.xxh64((CharSequence) null, 0))
        .isInstanceOf(NullPointerException.class);
    assertThatThrownBy(() -> Hashing.xxh64((byte[]) null, 0))
        .isInstanceOf(NullPointerException.class);
    assertThat(Hashing.xxh64("abc", 3, 3, 0)).as("an empty range at the end is valid")
        .isEqualTo(0xEF46DB3751D8E999L);
  }

  /**
   * {@code mix64} is SplitMix64's finaliser; ring positions and probe sequences depend on it, so
   * clients of two versions would disagree if it changed. Pinned to the first outputs of the
   * reference SplitMix64 generator seeded with 0 (Vigna's {@code splitmix64.c}), whose n-th output
   * is {@code mix64(n * 0x9E3779B97F4A7C15)}.
   */
  @Test
  void mix64IsSplitMix64sFinaliser() {
    long gamma = 0x9E3779B97F4A7C15L;
    assertThat(Hashing.mix64(gamma)).isEqualTo(0xE220A8397B1DCDAFL);
    assertThat(Hashing.mix64(2 * gamma)).isEqualTo(0x6E789E6AA1B965F4L);
    assertThat(Hashing.mix64(3 * gamma)).isEqualTo(0x06C45D188009454FL);
    assertThat(Hashing.mix64(4 * gamma)).isEqualTo(0xF88BB8A8724C81ECL);
    assertThat(Hashing.mix64(0)).isZero();
  }
}
