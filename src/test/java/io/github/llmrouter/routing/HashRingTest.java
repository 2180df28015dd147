package io.github.llmrouter.routing;

import static io.github.llmrouter.routing.Fleets.fleet;
import static io.github.llmrouter.routing.Fleets.replica;
import static io.github.llmrouter.routing.Fleets.weighted;
import static org.assertj.core.api.Assertions.assertThat;

import io.github.llmrouter.replica.Replica;
import io.github.llmrouter.replica.ReplicaSet;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** The consistent-hash ring: points from ids and weights alone, so every client agrees. */
class HashRingTest {
  private static final int POINTS = 256;
  private final SplittableRandom random = new SplittableRandom(17);

  /** The id of the replica owning {@code key} on {@code ring} built over {@code set}. */
  private static String ownerOf(long key, HashRing ring, ReplicaSet set) {
    return set.get(ring.ownerAt(ring.positionOf(key))).id();
  }

  @Test
  void aReplicaOwnsPointsInProportionToItsWeightAtLeastOne() {
    assertThat(HashRing.pointsOf(replica(0, 1.0), POINTS)).isEqualTo(256);
    assertThat(HashRing.pointsOf(replica(0, 2.5), POINTS)).isEqualTo(640);
    assertThat(HashRing.pointsOf(replica(0, 0.001), POINTS)).isEqualTo(1);
    assertThat(HashRing.build(weighted(1, 2, 0.5), POINTS).size()).isEqualTo(256 + 512 + 128);
  }

  @Test
  void theSameReplicasInAnyOrderBuildTheSameRing() {
    ReplicaSet set = fleet(12);
    List<Replica> shuffled = new ArrayList<>(set.replicas());
    Collections.shuffle(shuffled, new java.util.Random(3));
    ReplicaSet reordered = ReplicaSet.of(shuffled);
    HashRing a = HashRing.build(set, POINTS);
    HashRing b = HashRing.build(reordered, POINTS);
    for (int i = 0; i < 10_000; i++) {
      long key = random.nextLong();
      assertThat(ownerOf(key, b, reordered)).isEqualTo(ownerOf(key, a, set));
    }
  }

  @Test
  void aReplicaJoiningTakesKeysOnlyForItselfAndLeavingGivesBackOnlyItsOwn() {
    ReplicaSet before = fleet(8);
    List<Replica> more = new ArrayList<>(before.replicas());
    more.add(replica(8));
    ReplicaSet after = ReplicaSet.of(more);
    HashRing ring = HashRing.build(before, POINTS);
    HashRing grown = HashRing.build(after, POINTS);
    String newcomer = replica(8).id();
    int moved = 0;
    for (int i = 0; i < 20_000; i++) {
      long key = random.nextLong();
      String was = ownerOf(key, ring, before);
      String now = ownerOf(key, grown, after);
      if (!now.equals(was)) {
        assertThat(now).as("a key that moved went to the newcomer").isEqualTo(newcomer);
        moved++;
      }
    }
    assertThat(moved).as("about a ninth of the keys").isBetween(20_000 / 9 / 2, 20_000 / 9 * 2);
  }

  @Test
  void sharesOfKeysFollowWeights() {
    ReplicaSet set = weighted(1, 1, 2);
    HashRing ring = HashRing.build(set, POINTS);
    int[] counts = new int[3];
    for (int i = 0; i < 40_000; i++) counts[ring.ownerAt(ring.positionOf(random.nextLong()))]++;
    assertThat(counts[2] / 40_000.0).as("the double-weight replica's share").isBetween(0.42, 0.58);
  }

  @Test
  void aKeyPastTheLastPointWrapsToTheFirstAndDistancesWrapToo() {
    HashRing ring = HashRing.build(fleet(3), POINTS);
    assertThat(ring.positionOf(Long.MAX_VALUE)).isIn(0, ring.size() - 1);
    int last = ring.size() - 1;
    long beyond = ring.distance(0, last) + 1; // the key just after the last point
    assertThat(ring.positionOf(beyond)).as("wraps round").isZero();
    assertThat(Long.compareUnsigned(ring.distance(beyond, 0), 0)).as("clockwise, unsigned")
        .isPositive();
  }
}
