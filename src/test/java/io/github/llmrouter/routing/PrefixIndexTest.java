package io.github.llmrouter.routing;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Arrays;
import org.junit.jupiter.api.Test;

/** The prefix index as a data structure: holders, ages, depths, shared blocks and eviction. */
class PrefixIndexTest {
  /** Every recorded copy valid, whatever its age. */
  private static final PrefixIndex.Slots ALL = (stamp, age) -> -1L;

  private final PrefixIndex index = new PrefixIndex(1024);

  /**
   * Keys that all fall in the table's first set (their two halves are equal, so the set index,
   * taken from their xor, is 0), and the first of them in its first entry.
   */
  private static long sameSet(int j) {
    return (long) j << 32 | j;
  }

  private static long[] chain(long... hashes) {
    return hashes;
  }

  @Test
  void capacityIsAPowerOfTwoOfAtLeast64EntriesOf24Bytes() {
    assertThat(PrefixIndex.capacityFor(1)).isEqualTo(64);
    assertThat(PrefixIndex.capacityFor(64)).isEqualTo(64);
    assertThat(PrefixIndex.capacityFor(65)).isEqualTo(128);
    PrefixIndex small = new PrefixIndex(100);
    assertThat(small.capacity()).isEqualTo(128);
    assertThat(small.bytes()).isEqualTo(128L * 24);
  }

  @Test
  void ticksAreAboutAMillisecondAndAgesSurviveAWrap() {
    assertThat(PrefixIndex.tick(1L << 20)).isEqualTo(1);
    assertThat(PrefixIndex.tick(5_000_000_000L)).isEqualTo(4768);
    assertThat(PrefixIndex.age(100, 150)).isEqualTo(50);
    assertThat(PrefixIndex.age(Integer.MAX_VALUE - 5, Integer.MIN_VALUE + 4)).isEqualTo(10);
  }

  @Test
  void recordsWhichSlotsHoldABlockAndWhenItWasLastSent() {
    index.record(chain(11, 12, 13), 3, 2, 100, ALL);
    assertThat(index.holders(11, 150, ALL)).isEqualTo(1L << 2);
    assertThat(index.ageOf(13, 150)).isEqualTo(50);
    index.record(chain(11), 1, 5, 200, ALL);
    assertThat(index.holders(11, 230, ALL)).isEqualTo(1L << 2 | 1L << 5);
    assertThat(index.ageOf(11, 230)).isEqualTo(30);
    assertThat(index.ageOf(12, 230)).as("not sent again").isEqualTo(130);
    assertThat(index.ageOf(11, 190)).as("a clock behind the stamp").isZero();
    assertThat(index.holders(99, 230, ALL)).isZero();
    assertThat(index.ageOf(99, 230)).isEqualTo(-1);
    assertThat(index.isShared(99)).isFalse();
  }

  @Test
  void holdersAreOnlyThoseTheSlotsSayAreStillValid() {
    index.record(chain(21), 1, 0, 0, ALL);
    PrefixIndex.Slots youngOnly = (stamp, age) -> age < 100 ? -1L : 0L;
    assertThat(index.holders(21, 50, youngOnly)).isEqualTo(1L);
    assertThat(index.holders(21, 500, youngOnly)).isZero();
    // Sending it again elsewhere does not revive the lapsed copy.
    index.record(chain(21), 1, 1, 500, youngOnly);
    assertThat(index.holders(21, 500, ALL)).isEqualTo(1L << 1);
  }

  @Test
  void depthsAreTheLeadingBlocksEachSlotHolds() {
    long[] h = {31, 32, 33, 34, 35, 36, 37, 38, 39, 40};
    index.record(h, 10, 0, 10, ALL);
    index.record(h, 4, 1, 10, ALL);
    index.record(h, 7, 3, 10, ALL);
    index.record(h, 1, 4, 10, ALL);
    int[] depth = new int[PrefixIndex.SLOTS];
    Arrays.fill(depth, -7);
    long holders = index.depths(h, 10, 20, ALL, depth);
    assertThat(holders).isEqualTo(1L | 1L << 1 | 1L << 3 | 1L << 4);
    assertThat(depth[0]).isEqualTo(10);
    assertThat(depth[1]).isEqualTo(4);
    assertThat(depth[3]).isEqualTo(7);
    assertThat(depth[4]).isEqualTo(1);
    assertThat(depth[2]).as("left alone").isEqualTo(-7);
    // The first block alone; a prompt nobody holds; no prompt.
    Arrays.fill(depth, -7);
    assertThat(index.depths(h, 1, 20, ALL, depth)).isEqualTo(holders);
    assertThat(depth[0]).isEqualTo(1);
    assertThat(depth[3]).isEqualTo(1);
    assertThat(index.depths(chain(77, 78), 2, 20, ALL, depth)).isZero();
    assertThat(index.depths(h, 0, 20, ALL, depth)).isZero();
  }

  @Test
  void aBlockWhoseSuccessorChangedFourTimesIsShared() {
    // Followed by 41, then 42, 43, 44: three changes.
    for (int k = 1; k <= 4; k++) index.record(chain(50, 40 + k), 2, 0, k, ALL);
    assertThat(index.isShared(50)).isFalse();
    index.record(chain(50, 45), 2, 0, 5, ALL);
    assertThat(index.isShared(50)).isTrue();
    // A block first sent as a prompt's last has no successor: the first one it gets is no change.
    index.record(chain(55), 1, 0, 1, ALL);
    for (int k = 1; k <= 4; k++) index.record(chain(55, 40 + k), 2, 0, k, ALL);
    assertThat(index.isShared(55)).isFalse();
    // The same successor again and again is no change.
    for (int k = 0; k < 10; k++) index.record(chain(60, 61), 2, 0, k, ALL);
    assertThat(index.isShared(60)).isFalse();
    // Counting stops at its limit and never spills into the successor's record.
    for (int k = 0; k < 600; k++) index.record(chain(70, 1000 + k % 2), 2, 0, k, ALL);
    assertThat(index.isShared(70)).isTrue();
  }

  @Test
  void theBlocksBeforeASharedBlockAreSharedToo() {
    for (int k = 1; k <= 5; k++) index.record(chain(80, 81, 100 + k), 3, 0, k, ALL);
    assertThat(index.isShared(81)).isTrue();
    assertThat(index.isShared(80)).as("always followed by 81, but its prefix").isTrue();
    // A block not seen before, followed by a shared one.
    index.record(chain(90, 81), 2, 0, 9, ALL);
    assertThat(index.isShared(90)).isTrue();
    assertThat(index.isShared(105)).isFalse();
  }

  @Test
  void aNewBlockReplacesTheLeastRecentlySentOfItsSet() {
    int ways = PrefixIndex.WAYS;
    for (int j = 1; j <= ways; j++) index.record(chain(sameSet(j)), 1, 0, 10 + j, ALL);
    for (int j = 1; j <= ways; j++) {
      assertThat(index.holders(sameSet(j), 30, ALL)).as("key %d", j).isEqualTo(1L);
    }
    // The first key sits in the table's very first entry: found like any other, and sent again.
    assertThat(index.ageOf(sameSet(1), 30)).isEqualTo(19);
    index.record(chain(sameSet(1)), 1, 2, 30, ALL);
    assertThat(index.holders(sameSet(1), 30, ALL)).isEqualTo(1L | 1L << 2);
    // Now key 2 is the least recently sent: the newcomer replaces it, and holds only its own slot.
    index.record(chain(sameSet(100)), 1, 1, 31, ALL);
    assertThat(index.holders(sameSet(2), 31, ALL)).isZero();
    assertThat(index.ageOf(sameSet(2), 31)).isEqualTo(-1);
    assertThat(index.holders(sameSet(100), 31, ALL)).isEqualTo(1L << 1);
    for (int j = 3; j <= ways; j++) assertThat(index.holders(sameSet(j), 31, ALL)).isEqualTo(1L);
    assertThat(index.holders(sameSet(1), 31, ALL)).isEqualTo(1L | 1L << 2);
  }

  @Test
  void aSharedBlockInTheFirstEntryIsFound() {
    for (int k = 1; k <= 5; k++) index.record(chain(sameSet(1), 200 + k), 2, 0, k, ALL);
    assertThat(index.isShared(sameSet(1))).isTrue();
  }
}
