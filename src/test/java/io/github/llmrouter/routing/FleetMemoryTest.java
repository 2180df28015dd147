package io.github.llmrouter.routing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.github.llmrouter.replica.ReplicaSet;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/**
 * FleetMemory: index slots kept across membership snapshots and handed over when the 64 run out,
 * the per-slot cache horizons the answers teach, and which slots' index entries still count.
 */
class FleetMemoryTest {
  private static final int H = FleetMemory.INITIAL_HORIZON;

  private final FleetMemory memory = new FleetMemory(1024);

  /** A snapshot of replicas {@code Fleets.replica(i)} for each {@code i} given, in that order. */
  private static ReplicaSet snapshot(int... replicas) {
    return ReplicaSet.of(IntStream.of(replicas).mapToObj(Fleets::replica).toList());
  }

  private static ReplicaSet range(int from, int to) {
    return snapshot(IntStream.range(from, to).toArray());
  }

  private static int[] slots(ReplicaState[] states) {
    return java.util.Arrays.stream(states).mapToInt(s -> s.slot).toArray();
  }

  @Test
  void knowsWhetherSomethingWasSentWithinTheLatestRequests() {
    // Fewer requests than asked about: anything sent was among them.
    memory.sentAt(100);
    memory.sentAt(110);
    assertThat(memory.sentWithinLast(4, 50, 120)).isTrue();
    memory.sentAt(120);
    memory.sentAt(130);
    memory.sentAt(140);
    // The latest 4 were sent at 110 to 140: something last sent at 110 (age 40 at 150) was among
    // them, something sent at 105 was not.
    assertThat(memory.sentWithinLast(4, 40, 150)).isTrue();
    assertThat(memory.sentWithinLast(4, 45, 150)).isFalse();
    assertThat(memory.sentWithinLast(2, 20, 150)).isTrue();
    assertThat(memory.sentWithinLast(2, 21, 150)).isFalse();
    assertThat(memory.lastTick).isEqualTo(140);
  }

  @Test
  void remembersTheLatestRequestsUpToItsRing() {
    for (int k = 0; k < 3 * FleetMemory.RECENT_SENDS; k++) memory.sentAt(k);
    int now = 3 * FleetMemory.RECENT_SENDS;
    // Asked about more requests than it remembers: the latest RECENT_SENDS count.
    assertThat(memory.sentWithinLast(1 << 20, FleetMemory.RECENT_SENDS, now)).isTrue();
    assertThat(memory.sentWithinLast(1 << 20, FleetMemory.RECENT_SENDS + 1, now)).isFalse();
  }

  @Test
  void theIndexIsAllocatedWithTheFirstPicker() {
    assertThatThrownBy(memory::index).isInstanceOf(IllegalStateException.class)
        .hasMessage("no picker made yet");
    memory.statesFor(range(0, 2));
    PrefixIndex index = memory.index();
    assertThat(index.capacity()).isEqualTo(1024);
    memory.statesFor(range(0, 3));
    assertThat(memory.index()).as("one index for every snapshot").isSameAs(index);
  }

  @Test
  void newcomersTakeTheLowestFreeSlotsInSnapshotOrder() {
    assertThat(slots(memory.statesFor(snapshot(0, 1, 2)))).containsExactly(0, 1, 2);
    assertThat(slots(memory.statesFor(snapshot(5, 2, 4, 0)))).containsExactly(3, 2, 4, 0);
  }

  @Test
  void aReplicaKeepsItsStateAcrossSnapshotsAndAbsences() {
    ReplicaState[] first = memory.statesFor(snapshot(0, 1, 2));
    ReplicaState[] reordered = memory.statesFor(snapshot(2, 0, 1));
    assertThat(reordered).containsExactly(first[2], first[0], first[1]);
    // Replica 1 leaves and comes back while free slots remain: its state and slot wait for it.
    memory.statesFor(snapshot(0, 2, 3));
    assertThat(memory.statesFor(snapshot(1))[0]).isSameAs(first[1]);
  }

  @Test
  void replicasBeyondTheSixtyFourthGetNoSlot() {
    ReplicaState[] states = memory.statesFor(range(0, 66));
    assertThat(slots(states)).containsExactly(
        IntStream.range(0, 66).map(i -> i < 64 ? i : -1).toArray());
    assertThat(memory.validAt(0, 0)).as("all 64 slots in use").isEqualTo(-1L);
  }

  @Test
  void aNewcomerInAFullIndexTakesTheSlotOfTheReplicaThatLeft() {
    ReplicaState[] before = memory.statesFor(range(0, 64));
    // Replica 5 leaves, replica 64 joins: slot 5 is the only one no present replica holds.
    int[] next = IntStream.concat(IntStream.range(0, 64).filter(i -> i != 5), IntStream.of(64))
        .toArray();
    ReplicaState[] after = memory.statesFor(snapshot(next));
    assertThat(after[63].slot).isEqualTo(5);
    for (int i = 0; i < 63; i++) {
      assertThat(after[i]).as("replica %d", next[i]).isSameAs(before[next[i]]);
    }
    // The state of the replica that left went with its slot: it comes back as a newcomer.
    ReplicaState[] back = memory.statesFor(snapshot(IntStream.concat(IntStream.of(next),
        IntStream.of(5)).toArray()));
    assertThat(back[64]).isNotSameAs(before[5]);
    assertThat(back[64].slot).as("every slot held by a present replica").isEqualTo(-1);
  }

  @Test
  void newcomersInAFullIndexTakeDistinctSlotsOfThoseThatLeft() {
    memory.statesFor(range(0, 64));
    ReplicaState[] after = memory.statesFor(snapshot(64, 65, 66, 67, 10, 11));
    // All but replicas 10 and 11 have left: the newcomers take the lowest slots, one each.
    assertThat(slots(after)).containsExactly(0, 1, 2, 3, 10, 11);
  }

  @Test
  void aSlotlessReplicaMarksNoSlotAsHeld() {
    memory.statesFor(range(0, 65));
    // Replica 63 leaves; replica 64 stays without a slot; the newcomer takes slot 63.
    int[] next = IntStream.concat(IntStream.range(0, 63), IntStream.of(64, 65)).toArray();
    ReplicaState[] after = memory.statesFor(snapshot(next));
    assertThat(after[63].slot).isEqualTo(-1);
    assertThat(after[64].slot).isEqualTo(63);
  }

  @Test
  void aSlotHandedOverForgetsWhatItsPreviousOwnerWasSentAndLearnt() {
    memory.statesFor(range(0, 64));
    memory.learnHorizon(7, 0, false);
    assertThat(memory.horizon(7)).isEqualTo((int) (H - 0.25 * H));
    memory.lastTick = 1_000;
    int[] next = IntStream.concat(IntStream.range(0, 64).filter(i -> i != 7), IntStream.of(64))
        .toArray();
    memory.statesFor(snapshot(next));
    assertThat(memory.horizon(7)).isEqualTo(H);
    assertThat(memory.validAt(1_000, 0)).as("entries up to the handover")
        .isEqualTo(~(1L << 7));
    assertThat(memory.validAt(1_001, 0)).as("entries since").isEqualTo(-1L);
  }

  @Test
  void entriesCountForEverySlotUpToTheHorizon() {
    memory.statesFor(range(0, 3));
    assertThat(memory.validAt(100, H - 1)).isEqualTo(0b111L);
    assertThat(memory.validAt(100, H)).isZero();
  }

  @Test
  void entriesCountForASlotUpToItsOwnHorizon() {
    memory.statesFor(range(0, 3));
    memory.learnHorizon(1, 100_000, false);
    int lowered = (int) (H - 0.25 * (H - 100_000));
    assertThat(memory.horizon(1)).isEqualTo(lowered);
    assertThat(memory.horizon(0)).isEqualTo(H);
    assertThat(memory.validAt(100, lowered - 1)).isEqualTo(0b111L);
    assertThat(memory.validAt(100, lowered)).isEqualTo(0b101L);
    assertThat(memory.validAt(100, H)).isZero();

    // A hit at the others' horizon pushes it out past theirs: the shortest is theirs again.
    memory.learnHorizon(1, H, true);
    assertThat(memory.horizon(1)).isEqualTo((int) (lowered + 0.25 * H));
    assertThat(memory.validAt(100, H - 1)).isEqualTo(0b111L);
    assertThat(memory.validAt(100, H)).isEqualTo(0b010L);
  }

  @Test
  void aResetSlotCountsOnlyEntriesStampedAfterTheReset() {
    memory.statesFor(range(0, 3));
    memory.reset(0, 100);
    memory.reset(2, 500);
    assertThat(memory.validAt(501, 0)).isEqualTo(0b111L);
    assertThat(memory.validAt(500, 0)).isEqualTo(0b011L);
    assertThat(memory.validAt(300, 0)).isEqualTo(0b011L);
    assertThat(memory.validAt(100, 0)).isEqualTo(0b010L);
  }

  @Test
  void aResetOfOneSlotLeavesTheOthersEntriesWhateverTheirStamp() {
    // Ticks read negative after 2^31 of them (about 25 days of a nanoTime origin at boot).
    memory.statesFor(range(0, 2));
    memory.reset(0, -100);
    assertThat(memory.validAt(-500, 0)).isEqualTo(0b10L);
    assertThat(memory.validAt(0, 0)).isEqualTo(0b11L);
  }

  @Test
  void resetsCompareTicksAcrossTheirWrap() {
    // Ticks wrap after about 50 days: a stamp just past the wrap is newer than a reset before it.
    memory.statesFor(range(0, 2));
    memory.reset(1, Integer.MAX_VALUE - 10);
    assertThat(memory.validAt(Integer.MIN_VALUE + 10, 0)).isEqualTo(0b11L);
    assertThat(memory.validAt(Integer.MAX_VALUE - 20, 0)).isEqualTo(0b01L);
  }

  @Test
  void aHitOnEntriesYoungerThanHalfTheHorizonSaysNothing() {
    memory.statesFor(range(0, 1));
    memory.learnHorizon(0, H / 2, true);
    assertThat(memory.horizon(0)).isEqualTo(H);
    memory.learnHorizon(0, H / 2 + 1, true);
    assertThat(memory.horizon(0)).isEqualTo((int) (H + 0.25 * H));
  }

  @Test
  void aHitBeyondTheHorizonMovesItAQuarterOfThatAgeOut() {
    memory.statesFor(range(0, 1));
    memory.learnHorizon(0, 1_000_000, true);
    assertThat(memory.horizon(0)).isEqualTo(H + 250_000);
  }

  @Test
  void hitsStopAtTheLongestHorizon() {
    memory.statesFor(range(0, 1));
    for (int i = 0; i < 20; i++) memory.learnHorizon(0, FleetMemory.MAX_HORIZON, true);
    assertThat(memory.horizon(0)).isEqualTo(FleetMemory.MAX_HORIZON);
  }

  @Test
  void aMissMovesTheHorizonAQuarterOfTheWayToItsAge() {
    memory.statesFor(range(0, 1));
    memory.learnHorizon(0, 100_000, false);
    assertThat(memory.horizon(0)).isEqualTo((int) (H - 0.25 * (H - 100_000)));
  }

  @Test
  void aMissOnEntriesBeyondTheHorizonSaysNothing() {
    memory.statesFor(range(0, 1));
    memory.learnHorizon(0, H + 1, false);
    assertThat(memory.horizon(0)).isEqualTo(H);
  }

  @Test
  void missesStopAtTheShortestHorizon() {
    memory.statesFor(range(0, 2));
    for (int i = 0; i < 40; i++) memory.learnHorizon(1, 0, false);
    assertThat(memory.horizon(1)).isEqualTo(FleetMemory.MIN_HORIZON);
    assertThat(memory.validAt(100, FleetMemory.MIN_HORIZON - 1)).isEqualTo(0b11L);
    assertThat(memory.validAt(100, FleetMemory.MIN_HORIZON)).isEqualTo(0b01L);
  }
}
