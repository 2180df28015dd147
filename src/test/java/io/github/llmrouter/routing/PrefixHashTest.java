package io.github.llmrouter.routing;

import static io.github.llmrouter.routing.Fleets.drain;
import static io.github.llmrouter.routing.Fleets.fleet;
import static io.github.llmrouter.routing.Fleets.randomText;
import static io.github.llmrouter.routing.Fleets.weighted;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import io.github.llmrouter.internal.util.Hashing;
import io.github.llmrouter.load.LoadView;
import io.github.llmrouter.replica.Replica;
import io.github.llmrouter.replica.ReplicaSet;
import io.github.llmrouter.routing.Fleets.ArrayLoad;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.TreeMap;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The acceptance criteria of prefix-affinity routing (CHWBL). */
class PrefixHashTest {
  private static final String MODEL = "llama-3.1-8b";
  private static final int KEYS = 100_000;

  private static PrefixHashPicker picker(ReplicaSet replicas) {
    return (PrefixHashPicker) PrefixHash.builder().build().newPicker(replicas);
  }

  private static List<RoutingRequest> requests(long seed, int count) {
    SplittableRandom random = new SplittableRandom(seed);
    List<RoutingRequest> list = new ArrayList<>(count);
    for (int k = 0; k < count; k++) list.add(RoutingRequest.of(MODEL, randomText(random, 24)));
    return list;
  }

  /** Share of {@code requests} whose rank 0 (under zero load) is each replica. */
  private static double[] shares(ReplicaPicker picker, int n, List<RoutingRequest> requests) {
    LoadView idle = new ArrayLoad(n);
    double[] share = new double[n];
    for (RoutingRequest r : requests) share[picker.rank(r, idle).next()]++;
    for (int i = 0; i < n; i++) share[i] /= requests.size();
    return share;
  }

  private static String firstId(ReplicaSet set, ReplicaPicker picker, RoutingRequest r) {
    return set.get(picker.rank(r, new ArrayLoad(set.size())).next()).id();
  }

  private static double maxDeviation(double[] share, int n) {
    double max = 0;
    for (double s : share) max = Math.max(max, Math.abs(s * n - 1));
    return max;
  }

  @Nested
  class TheRingIsBalanced {
    /*
     * A replica with m ring points owns the sum of m arcs: on a classic ring (one probe) its
     * share has a relative standard deviation of about 1/sqrt(m), 6.25% at 256 points, and the
     * largest deviation among n replicas grows like sqrt(2 ln n) of that: about 13% at n = 8,
     * 16% at n = 32. Three probes per key (the default) more than halve the spread, which is
     * what puts every replica within ±15% at 256 points.
     */

    @ParameterizedTest(name = "{0} equal replicas")
    @ValueSource(ints = {3, 8, 32})
    void withTheDefaults256PointsAnd3ProbesEveryReplicaOwnsItsShareWithin15Percent(int n) {
      double[] share = shares(picker(fleet(n)), n, requests(1, KEYS));
      for (int i = 0; i < n; i++) {
        assertThat(share[i]).as("share of %s", i).isCloseTo(1.0 / n, within(0.15 / n));
      }
    }

    @ParameterizedTest(name = "{0} equal replicas")
    @ValueSource(ints = {3, 8, 32})
    void theClassicOneProbeRingSpreadsAsRandomPlacementPredicts(int n) {
      ReplicaPicker picker = PrefixHash.builder().probes(1).build().newPicker(fleet(n));
      double[] share = shares(picker, n, requests(1, KEYS));
      double sumSquares = 0;
      for (int i = 0; i < n; i++) {
        assertThat(share[i]).as("share of %s", i).isCloseTo(1.0 / n, within(0.25 / n));
        sumSquares += Math.pow(share[i] * n - 1, 2);
      }
      assertThat(Math.sqrt(sumSquares / n)).as("relative spread").isLessThan(1.6 / Math.sqrt(256));
    }

    @ParameterizedTest(name = "{0} equal replicas")
    @ValueSource(ints = {3, 8, 32})
    void probesNarrowTheSpreadOfTheClassicRing(int n) {
      double[] classic = shares(PrefixHash.builder().probes(1).build().newPicker(fleet(n)), n,
          requests(1, KEYS));
      double[] probed = shares(picker(fleet(n)), n, requests(1, KEYS));
      assertThat(maxDeviation(probed, n)).isLessThan(maxDeviation(classic, n));
    }

    @Test
    void weightsSkewSharesProportionally() {
      // A replica with m points owns the sum of m ring arcs: relative standard deviation about
      // 1/sqrt(m) = 6.25% at 256 points (4.4% at 512), plus 1-2% of key sampling noise. A ±15%
      // relative tolerance is more than two standard deviations for every replica, and a
      // doubling of weight can still never pass for equal weight.
      double[] share = shares(picker(weighted(1, 1, 2)), 3, requests(2, KEYS));
      assertThat(share[0]).isCloseTo(0.25, within(0.25 * 0.15));
      assertThat(share[1]).isCloseTo(0.25, within(0.25 * 0.15));
      assertThat(share[2]).isCloseTo(0.50, within(0.50 * 0.15));

      double[] uneven = shares(picker(weighted(1, 3)), 2, requests(3, KEYS));
      assertThat(uneven[1]).isCloseTo(0.75, within(0.75 * 0.15));
    }
  }

  @Nested
  class TheLoadBoundHolds {
    @Test
    void rankZeroIsWithinBoundWheneverAnyReplicaIs() {
      assertBoundHolds(new double[] {1, 1, 1, 1, 1, 1, 1, 1}, 1.25, 11);
    }

    @Test
    void withATightLoadFactor() {
      assertBoundHolds(new double[] {1, 1, 1, 1, 1, 1, 1, 1}, 1.0, 12);
    }

    @Test
    void withWeights() {
      assertBoundHolds(new double[] {1, 1, 2, 4, 0.5, 1, 1, 1.5}, 1.25, 13);
    }

    /**
     * A stream of arrivals and departures with skewed keys (a few hot prefixes, as with shared
     * system prompts), so that the bound is what keeps hot owners from taking everything.
     */
    private void assertBoundHolds(double[] weights, double c, long seed) {
      ReplicaSet replicas = weighted(weights);
      int n = weights.length;
      double totalWeight = replicas.totalWeight();
      ReplicaPicker picker = PrefixHash.builder().loadFactor(c).build().newPicker(replicas);
      ArrayLoad load = new ArrayLoad(n);
      List<Integer> inFlight = new ArrayList<>();
      List<RoutingRequest> hot = requests(seed, 5);
      SplittableRandom random = new SplittableRandom(seed);
      int rerouted = 0;
      for (int step = 0; step < 20_000; step++) {
        boolean arrive = inFlight.isEmpty() || random.nextInt(100) < (inFlight.size() < 200 ? 60 : 40);
        if (!arrive) {
          int j = inFlight.remove(random.nextInt(inFlight.size()));
          load.inFlight[j]--;
          continue;
        }
        RoutingRequest request = random.nextInt(4) > 0 ? hot.get(random.nextInt(hot.size()))
            : RoutingRequest.of(MODEL, randomText(random, 24));
        long total = load.totalInFlight();
        int chosen = picker.rank(request, load).next();
        boolean anyWithin = false;
        for (int i = 0; i < n; i++) {
          anyWithin |= load.inFlight[i] <= c * (total + 1) * weights[i] / totalWeight;
        }
        if (anyWithin) {
          assertThat((double) load.inFlight[chosen])
              .as("step %d: load of rank 0 (r%d)", step, chosen)
              .isLessThanOrEqualTo(c * (total + 1) * weights[chosen] / totalWeight);
        }
        if (chosen != ((PrefixHashPicker) picker).ownerOf(request)) rerouted++;
        load.inFlight[chosen]++;
        inFlight.add(chosen);
      }
      assertThat(rerouted).as("the bound must have redirected some requests").isGreaterThan(1000);
    }
  }

  @Nested
  class MembershipChangesMoveFewKeys {
    @ParameterizedTest(name = "{0} replicas plus one")
    @ValueSource(ints = {4, 8, 16})
    void addingAReplicaMovesKeysOnlyToIt(int n) {
      ReplicaSet before = fleet(n);
      ReplicaSet after = fleet(n + 1);
      ReplicaPicker p1 = picker(before);
      ReplicaPicker p2 = picker(after);
      int moved = 0;
      for (RoutingRequest r : requests(4, KEYS)) {
        String from = firstId(before, p1, r);
        String to = firstId(after, p2, r);
        if (!from.equals(to)) {
          moved++;
          assertThat(to).as("a moved key moves to the new replica").isEqualTo(after.get(n).id());
        }
      }
      assertThat((double) moved / KEYS).isLessThanOrEqualTo(1.5 / (n + 1)).isGreaterThan(0);
    }

    @ParameterizedTest(name = "{0} replicas minus one")
    @ValueSource(ints = {4, 8, 16})
    void removingAReplicaMovesOnlyTheKeysItOwned(int n) {
      ReplicaSet before = fleet(n);
      List<Replica> rest = new ArrayList<>(before.replicas());
      Replica removed = rest.remove(1);
      ReplicaSet after = ReplicaSet.of(rest);
      ReplicaPicker p1 = picker(before);
      ReplicaPicker p2 = picker(after);
      for (RoutingRequest r : requests(5, KEYS)) {
        String from = firstId(before, p1, r);
        String to = firstId(after, p2, r);
        if (!from.equals(removed.id())) assertThat(to).isEqualTo(from);
      }
    }
  }

  @Test
  void independentClientsRankEveryKeyIdentically() {
    ReplicaSet ordered = fleet(16);
    List<Replica> shuffled = new ArrayList<>(ordered.replicas());
    Collections.shuffle(shuffled, new Random(6));
    ReplicaSet reordered = ReplicaSet.of(shuffled);
    ReplicaPicker a = PrefixHash.builder().build().newPicker(ordered);
    ReplicaPicker b = PrefixHash.builder().build().newPicker(reordered);
    for (RoutingRequest r : requests(6, 10_000)) {
      assertThat(ids(reordered, drain(b.rank(r, new ArrayLoad(16)), 32)))
          .isEqualTo(ids(ordered, drain(a.rank(r, new ArrayLoad(16)), 32)))
          .hasSize(16);
    }
  }

  private static List<String> ids(ReplicaSet set, List<Integer> indices) {
    List<String> ids = new ArrayList<>();
    for (int i : indices) ids.add(set.get(i).id());
    return ids;
  }

  @Nested
  class KeyExtraction {
    private final KeyExtractor prefix = KeyExtractor.prefix(100);

    @Test
    void sameModelAndSameFirst100CharsGiveTheSameKey() {
      String head = randomText(new SplittableRandom(7), 100);
      assertThat(prefix.key(RoutingRequest.of(MODEL, head + "first question")))
          .isEqualTo(prefix.key(RoutingRequest.of(MODEL, head + "another, longer question")))
          .isEqualTo(prefix.key(RoutingRequest.of(MODEL, head)));
      assertThat(prefix.key(RoutingRequest.of(MODEL, head.substring(0, 99) + "#")))
          .as("the 100th character counts").isNotEqualTo(prefix.key(RoutingRequest.of(MODEL, head)));
    }

    @Test
    void theModelIsPartOfTheKey() {
      ReplicaSet replicas = fleet(8);
      PrefixHashPicker picker = picker(replicas);
      int sameOwner = 0;
      for (RoutingRequest r : requests(8, 10_000)) {
        RoutingRequest other = RoutingRequest.of("qwen-2.5-7b", r.prompt());
        assertThat(prefix.key(other)).isNotEqualTo(prefix.key(r));
        if (picker.ownerOf(other) == picker.ownerOf(r)) sameOwner++;
      }
      // Independent owners coincide for 1/8 of keys.
      assertThat(sameOwner / 10_000.0).isCloseTo(1.0 / 8, within(0.03));
    }

    @Test
    void anExplicitRoutingKeyReplacesThePrompt() {
      RoutingRequest a = new RoutingRequest(MODEL, "You are a helpful assistant. Hi", "session-42");
      RoutingRequest b = new RoutingRequest(MODEL, "Something else entirely", "session-42");
      RoutingRequest c = new RoutingRequest(MODEL, "You are a helpful assistant. Hi", "session-43");
      assertThat(prefix.key(a)).isEqualTo(prefix.key(b)).isNotEqualTo(prefix.key(c));
      assertThat(prefix.key(new RoutingRequest(MODEL, "session-42", "session-42")))
          .as("a routing key is not confused with an equal prompt")
          .isNotEqualTo(prefix.key(RoutingRequest.of(MODEL, "session-42")));
    }

    @Test
    void prefixCharsBoundsWhatIsHashed() {
      PrefixHashPicker tenChars = (PrefixHashPicker)
          PrefixHash.builder().prefixChars(10).build().newPicker(fleet(64));
      KeyExtractor ten = KeyExtractor.prefix(10);
      assertThat(ten.key(RoutingRequest.of(MODEL, "0123456789abc")))
          .isEqualTo(ten.key(RoutingRequest.of(MODEL, "0123456789xyz")))
          .isNotEqualTo(ten.key(RoutingRequest.of(MODEL, "012345678Xabc")));
      SplittableRandom random = new SplittableRandom(9);
      for (int k = 0; k < 1000; k++) {
        String head = randomText(random, 10);
        assertThat(tenChars.ownerOf(RoutingRequest.of(MODEL, head + randomText(random, 50))))
            .isEqualTo(tenChars.ownerOf(RoutingRequest.of(MODEL, head)));
      }
      assertThat(ten.key(RoutingRequest.of(MODEL, "short")))
          .as("a prompt shorter than prefixChars is hashed whole")
          .isNotEqualTo(ten.key(RoutingRequest.of(MODEL, "shorter")));
    }

    @Test
    void aRequestWithoutPromptIsRoutedByModel() {
      ReplicaPicker picker = picker(fleet(8));
      RoutingRequest none = RoutingRequest.of(MODEL, null);
      int first = picker.rank(none, new ArrayLoad(8)).next();
      assertThat(first).isBetween(0, 7);
      assertThat(picker.rank(RoutingRequest.of(MODEL, null), new ArrayLoad(8)).next()).isEqualTo(first);
      assertThat(prefix.key(none)).isNotEqualTo(prefix.key(RoutingRequest.of(MODEL, "")))
          .isNotEqualTo(prefix.key(RoutingRequest.of("other", null)));
    }
  }

  @Nested
  class FailoverOrder {
    private final ReplicaSet replicas = fleet(8);
    private final ReplicaPicker picker = picker(replicas);
    /** The ring as specified: point v of replica id is xxh64(id, seed v), 256 points each. */
    private final TreeMap<Long, Integer> ring = new TreeMap<>();

    FailoverOrder() {
      for (int i = 0; i < replicas.size(); i++) {
        for (int v = 0; v < 256; v++) ring.put(Hashing.xxh64(replicas.get(i).id(), v), i);
      }
    }

    /**
     * Distinct owners walking clockwise from the key's start: of the three probes (the key, then
     * mix64(previous + golden ratio) twice), the one closest to its next ring point.
     */
    private List<Integer> ringWalk(RoutingRequest r) {
      long probe = KeyExtractor.prefix(100).key(r);
      long start = 0;
      long bestDistance = -1; // unsigned maximum
      for (int p = 0; p < 3; p++) {
        if (p > 0) probe = Hashing.mix64(probe + 0x9E3779B97F4A7C15L);
        Map.Entry<Long, Integer> next = ring.ceilingEntry(probe);
        if (next == null) next = ring.firstEntry();
        long distance = next.getKey() - probe;
        if (Long.compareUnsigned(distance, bestDistance) < 0) {
          bestDistance = distance;
          start = next.getKey();
        }
      }
      List<Integer> order = new ArrayList<>();
      List<Map.Entry<Long, Integer>> clockwise = new ArrayList<>(ring.tailMap(start, true).entrySet());
      clockwise.addAll(ring.headMap(start, false).entrySet());
      for (Map.Entry<Long, Integer> e : clockwise) {
        if (!order.contains(e.getValue())) order.add(e.getValue());
      }
      return order;
    }

    @Test
    void failoverFollowsTheRingClockwiseAndEndsAfterEveryReplica() {
      for (RoutingRequest r : requests(10, 2000)) {
        Ranking ranking = picker.rank(r, new ArrayLoad(8));
        List<Integer> order = new ArrayList<>();
        for (int k = 0; k < 8; k++) {
          order.add(ranking.next());
          assertThat(ranking.reason()).isNotBlank();
        }
        assertThat(order).isEqualTo(ringWalk(r)).doesNotHaveDuplicates();
        assertThat(ranking.next()).isEqualTo(-1);
        assertThat(ranking.next()).as("stays exhausted").isEqualTo(-1);
      }
    }

    @Test
    void overBoundReplicasAreSkippedAtTheTimeOfEachCall() {
      RoutingRequest r = RoutingRequest.of(MODEL, "You are a helpful assistant.");
      List<Integer> walk = ringWalk(r);
      ArrayLoad load = new ArrayLoad(8);
      load.inFlight[walk.get(0)] = 10; // bound = 1.25 × 11 / 8 ≈ 1.7
      Ranking ranking = picker.rank(r, load);

      assertThat(ranking.next()).isEqualTo(walk.get(1));
      assertThat(ranking.reason()).contains("over load bound");

      load.inFlight[walk.get(2)] = 5; // became busy before the retry: bound ≈ 2.5
      assertThat(ranking.next()).isEqualTo(walk.get(3));
      assertThat(ranking.reason()).startsWith("failover");

      // The rest of the walk within bound, then the skipped ones, least loaded first.
      assertThat(drain(ranking, 16))
          .isEqualTo(List.of(walk.get(4), walk.get(5), walk.get(6), walk.get(7), walk.get(2), walk.get(0)));
    }

    @Test
    void whenNoReplicaIsWithinBoundTheLeastLoadedComesNext() {
      RoutingRequest r = RoutingRequest.of(MODEL, "hello");
      List<Integer> walk = ringWalk(r);
      ArrayLoad load = new ArrayLoad(8);
      Ranking ranking = picker.rank(r, load);
      assertThat(ranking.next()).isEqualTo(walk.get(0));
      assertThat(ranking.next()).isEqualTo(walk.get(1));
      // The six replicas not yet tried are all over bound now (loads 51..56, total 321, bound
      // 1.25 × 322 / 8 ≈ 50.3): the rest come by least load, walk.get(7) (51) first.
      for (int k = 2; k < 8; k++) load.inFlight[walk.get(k)] = 50 + (8 - k);
      assertThat(ranking.next()).isEqualTo(walk.get(7));
      assertThat(ranking.reason()).contains("least loaded");
      assertThat(ranking.next()).isEqualTo(walk.get(6));
      assertThat(ranking.reason()).contains("least loaded");
      assertThat(drain(ranking, 16)).containsExactly(walk.get(5), walk.get(4), walk.get(3), walk.get(2));
    }
  }

  @Test
  void theBuilderRejectsBadKnobsByName() {
    assertThatThrownBy(() -> PrefixHash.builder().loadFactor(0.99).build())
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("loadFactor");
    assertThatThrownBy(() -> PrefixHash.builder().loadFactor(Double.NaN).build())
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("loadFactor");
    assertThatThrownBy(() -> PrefixHash.builder().prefixChars(0).build())
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("prefixChars");
    assertThatThrownBy(() -> PrefixHash.builder().pointsPerWeight(0).build())
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("pointsPerWeight");
    assertThatThrownBy(() -> PrefixHash.builder().pointsPerWeight(4097).build())
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("pointsPerWeight");
    assertThatThrownBy(() -> PrefixHash.builder().probes(0).build())
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("probes");
    assertThatThrownBy(() -> PrefixHash.builder().probes(9).build())
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("probes");
    assertThatThrownBy(() -> KeyExtractor.prefix(0))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("prefixChars");
    assertThatThrownBy(() -> PrefixHash.builder().build().newPicker(ReplicaSet.empty()))
        .isInstanceOf(IllegalArgumentException.class);

    PrefixHash edges = PrefixHash.builder().loadFactor(1.0).prefixChars(1).pointsPerWeight(4096).build();
    assertThat(edges.loadFactor()).isEqualTo(1.0);
    PrefixHash.builder().pointsPerWeight(1).loadFactor(100).build();
  }

  @Test
  void aSingleReplicaTakesEverything() {
    ReplicaPicker picker = picker(fleet(1));
    Ranking ranking = picker.rank(RoutingRequest.of(MODEL, "x"), new ArrayLoad(50));
    assertThat(ranking.next()).isZero();
    assertThat(ranking.next()).isEqualTo(-1);
  }

  @Test
  void seenSetBeyond128Replicas() {
    ReplicaSet replicas = fleet(200);
    ReplicaPicker picker = picker(replicas);
    Set<Integer> all = new HashSet<>();
    for (int i = 0; i < 200; i++) all.add(i);
    for (RoutingRequest r : requests(12, 50)) {
      assertThat(new HashSet<>(drain(picker.rank(r, new ArrayLoad(200)), 400))).isEqualTo(all);
      assertThat(drain(picker.rank(r, new ArrayLoad(200)), 400)).hasSize(200).doesNotHaveDuplicates();
    }
  }

  /**
   * Replicas examined and skipped are remembered in a bitmap (one word for indices below 64,
   * an array beyond), so that each is examined once however many ring points it owns. In a fleet
   * of 100 where replicas 64 to 81 are over their load bound, the walk takes the others (below
   * and beyond 64) in ring order, then the skipped ones.
   */
  @Test
  void overBoundReplicasBeyondIndex64AreSkippedOnceAndComeLast() {
    int n = 100;
    ReplicaPicker picker = picker(fleet(n));
    int[] inFlight = new int[n];
    Set<Integer> busy = new HashSet<>();
    for (int i = 64; i < 82; i++) {
      inFlight[i] = 10; // bound = 1.25 × 181 / 100 ≈ 2.3
      busy.add(i);
    }
    for (RoutingRequest r : requests(13, 20)) {
      List<Integer> walk = drain(picker.rank(r, new ArrayLoad(n)), 2 * n);
      List<Integer> free = walk.stream().filter(i -> !busy.contains(i)).toList();
      List<Integer> order = drain(picker.rank(r, new ArrayLoad(inFlight)), 2 * n);
      assertThat(order).hasSize(n);
      assertThat(order.subList(0, free.size())).isEqualTo(free);
      assertThat(new HashSet<>(order.subList(free.size(), n))).isEqualTo(busy);
    }
  }

  @Test
  void everyBoundOfEveryKnobIsAcceptedAndOnePastItRejected() {
    PrefixHash edges = PrefixHash.builder().loadFactor(100).reportedLoadFactor(1.0)
        .pointsPerWeight(1).probes(8).queueThreshold(100_000).kvUsageThreshold(1.0).build();
    assertThat(edges.toString()).isEqualTo("PrefixHash{loadFactor=100.0, pointsPerWeight=1,"
        + " probes=8, reportedLoadFactor=1.0, queueThreshold=100000, kvUsageThreshold=1.0}");
    PrefixHash low = PrefixHash.builder().reportedLoadFactor(100).probes(1).queueThreshold(1)
        .reportedLoad(false).build();
    assertThat(low.toString()).isEqualTo("PrefixHash{loadFactor=1.25, pointsPerWeight=256,"
        + " probes=1, reportedLoad=false}");
    assertThat(low.name()).isEqualTo("PrefixHash");
    assertThatThrownBy(() -> PrefixHash.builder().loadFactor(100.5).build())
        .hasMessage("PrefixHash.loadFactor must be in [1.0, 100], got 100.5");
    assertThatThrownBy(() -> PrefixHash.builder().reportedLoadFactor(0.99).build())
        .hasMessage("PrefixHash.reportedLoadFactor must be in [1.0, 100], got 0.99");
    assertThatThrownBy(() -> PrefixHash.builder().reportedLoadFactor(100.5).build())
        .hasMessage("PrefixHash.reportedLoadFactor must be in [1.0, 100], got 100.5");
    assertThatThrownBy(() -> PrefixHash.builder().queueThreshold(0).build())
        .hasMessage("PrefixHash.queueThreshold must be in [1, 100000], got 0");
    assertThatThrownBy(() -> PrefixHash.builder().queueThreshold(100_001).build())
        .hasMessage("PrefixHash.queueThreshold must be in [1, 100000], got 100001");
    assertThatThrownBy(() -> PrefixHash.builder().kvUsageThreshold(0).build())
        .hasMessage("PrefixHash.kvUsageThreshold must be in (0, 1], got 0.0");
    assertThatThrownBy(() -> PrefixHash.builder().kvUsageThreshold(1.01).build())
        .hasMessage("PrefixHash.kvUsageThreshold must be in (0, 1], got 1.01");
  }

  @Test
  void theAffinityKeyIsTheKeyExtractorsKey() {
    KeyExtractor bySuffix = KeyExtractor.of(r -> String.valueOf(r.prompt()).substring(3));
    RoutingRequest request = new RoutingRequest("m", "abcdef", null);
    assertThat(PrefixHash.builder().keyExtractor(bySuffix).build().affinityKey(request))
        .isEqualTo(bySuffix.key(request));
    assertThat(PrefixHash.builder().build().affinityKey(request)).isEqualTo(request.prefixKey());
  }
}
