package io.github.llmrouter.sim;

import static io.github.llmrouter.routing.Fleets.named;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.github.llmrouter.internal.load.LocalLoad;
import io.github.llmrouter.load.LoadReport;
import io.github.llmrouter.replica.Replica;
import io.github.llmrouter.replica.ReplicaSet;
import io.github.llmrouter.routing.PromptBlocks;
import io.github.llmrouter.routing.Ranking;
import io.github.llmrouter.routing.RoutedAttempt;
import io.github.llmrouter.routing.RoutingRequest;
import java.time.Duration;
import java.util.List;
import java.util.stream.LongStream;
import org.junit.jupiter.api.Test;

/** Each modelled peer's decisions on small hand-built fleets follow its documented rule. */
class PeerModelsTest {
  private static final int BLOCK = 100;

  private long nanos;
  private final ReplicaSet fleet = named(3);
  private final LocalLoad load = LocalLoad.of(fleet, () -> nanos, Duration.ofSeconds(3));

  /** A prompt of whole 100-token blocks with these block ids. */
  private static RoutingRequest prompt(long... ids) {
    return withBlocks(PromptBlocks.of(Simulator.chain(ids), BLOCK, ids.length * BLOCK));
  }

  private static RoutingRequest withBlocks(PromptBlocks blocks) {
    return RoutingRequest.builder(Simulator.MODEL).blocks(blocks).build();
  }

  private static long[] ids(long from, int count) {
    return LongStream.range(from, from + count).toArray();
  }

  private static long[] concat(long[] a, long[] b) {
    return LongStream.concat(LongStream.of(a), LongStream.of(b)).toArray();
  }

  private void inFlight(int... counts) {
    for (int i = 0; i < counts.length; i++) {
      while (load.inFlight(i) < counts[i]) load.counter(i).acquire();
      while (load.inFlight(i) > counts[i]) load.counter(i).release();
    }
  }

  private void report(int replica, int waiting, double kvUsage) {
    load.publish(replica, new LoadReport(waiting, 0, kvUsage, nanos, LoadReport.Source.SCRAPE), false);
  }

  // SGLang: imbalance thresholds, match-rate threshold, eviction.

  @Test
  void sglangRoutesToTheLongestMatchOnlyAboveTheMatchRateThreshold() {
    SglangCacheAware.Picker sglang = (SglangCacheAware.Picker) SglangCacheAware.policy(1).newPicker(fleet);
    long[] p = ids(1, 10);
    assertThat(sglang.rank(prompt(p), load).next()).isZero(); // empty tree: least loaded, lowest index
    inFlight(5, 0, 0);
    // Shares 3 of 10 blocks with p: a match rate of 0.3 is not above 0.3, so least loaded.
    assertThat(sglang.rank(prompt(concat(ids(1, 3), ids(100, 7))), load).next()).isEqualTo(1);
    // Shares 4 of 10 blocks with p, and only replica 0 was sent block 4: 0.4 > 0.3.
    Ranking r = sglang.rank(prompt(concat(ids(1, 4), ids(200, 6))), load);
    assertThat(r.next()).isZero();
    assertThat(r.reason()).contains("longest prefix match");
    // Failover goes by least in-flight.
    assertThat(r.next()).isEqualTo(1);
  }

  @Test
  void sglangBalancesOnlyWhenBothImbalanceThresholdsAreExceeded() {
    long[] p = ids(1, 10);
    int[][] loads = {{64, 0, 0}, {65, 0, 0}, {200, 135, 135}, {203, 135, 135}};
    int[] expected = {0, 1, 0, 1};
    for (int k = 0; k < loads.length; k++) {
      SglangCacheAware.Picker sglang =
          (SglangCacheAware.Picker) SglangCacheAware.policy(1).newPicker(fleet);
      inFlight(0, 0, 0);
      assertThat(sglang.rank(prompt(p), load).next()).isZero();
      inFlight(loads[k]);
      // A full match on replica 0: it wins unless max - min > 64 and max > 1.5 x min.
      assertThat(sglang.rank(prompt(p), load).next()).as("loads %s", List.of(loads[k][0],
          loads[k][1], loads[k][2])).isEqualTo(expected[k]);
    }
  }

  @Test
  void sglangEvictsATooLargeReplicasLeastRecentlyUsedLeavesEveryInterval() {
    SglangCacheAware.Picker sglang =
        (SglangCacheAware.Picker) SglangCacheAware.policy(1, 500).newPicker(fleet);
    RoutingRequest a = prompt(ids(1, 5));
    RoutingRequest b = prompt(ids(11, 5));
    sglang.rank(a, load).next(); // both to replica 0, the least loaded: 1,000 tokens
    nanos = 1_000_000_000L;
    sglang.rank(b, load).next();
    assertThat(sglang.tree.tenantTokens(0)).isEqualTo(1000);
    nanos = 119_000_000_000L;
    inFlight(1, 0, 0);
    sglang.rank(prompt(ids(21, 1)), load).next(); // not yet: the interval is 120 s
    assertThat(sglang.tree.tenantTokens(0)).isEqualTo(1000);
    nanos = 120_000_000_000L;
    sglang.rank(prompt(ids(31, 1)), load).next();
    // Replica 0's oldest prompt went, leaf first, until it held 500 tokens.
    assertThat(sglang.tree.tenantTokens(0)).isEqualTo(500);
    assertThat(sglang.tree.matchDepth(a.blocks())).isZero();
    assertThat(sglang.tree.matchDepth(b.blocks())).isEqualTo(5);
  }

  // llm-d: scorer weights over scraped metrics and the approximate prefix index.

  @Test
  void llmdAddsPrefixThreeQueueTwoAndKvUsageTwo() {
    ReplicaSet two = named(2);
    LocalLoad view = LocalLoad.of(two, () -> nanos, Duration.ofSeconds(3));
    LlmdScorer.Picker llmd = (LlmdScorer.Picker) LlmdScorer.policy(1).newPicker(two);
    RoutingRequest p = prompt(ids(1, 10));
    double[] fresh = llmd.scores(p, view);
    assertThat(fresh).containsExactly(4.0, 4.0); // no index, no reports: queue 1, KV 1 each
    int holder = llmd.rank(p, view).next();
    int other = 1 - holder;
    // The holder has p indexed (prefix 1) but the longest queue (queue 0) and KV usage 0.4.
    view.publish(holder, new LoadReport(10, 0, 0.4, nanos, LoadReport.Source.SCRAPE), false);
    view.publish(other, new LoadReport(0, 0, 0.0, nanos, LoadReport.Source.SCRAPE), false);
    double[] s = llmd.scores(p, view);
    assertThat(s[holder]).isCloseTo(3 * 1 + 2 * 0 + 2 * 0.6, within(1e-9));
    assertThat(s[other]).isCloseTo(3 * 0 + 2 * 1 + 2 * 1.0, within(1e-9));
    assertThat(llmd.rank(p, view).next()).isEqualTo(holder);
    // A fuller cache on the holder tips it: 3 + 2 x 0.4 < 4.
    view.publish(holder, new LoadReport(10, 0, 0.6, nanos, LoadReport.Source.SCRAPE), false);
    assertThat(llmd.scores(p, view)[holder]).isCloseTo(3.8, within(1e-9));
    assertThat(llmd.rank(prompt(ids(1, 10)), view).next()).isEqualTo(other);
    // Half the prompt indexed on the holder only: prefix 0.5.
    LlmdScorer.Picker half = (LlmdScorer.Picker) LlmdScorer.policy(1).newPicker(two);
    int h = half.rank(prompt(ids(1, 5)), LocalLoad.of(two, () -> nanos, Duration.ofSeconds(3))).next();
    double[] partial = half.scores(p, LocalLoad.of(two, () -> nanos, Duration.ofSeconds(3)));
    assertThat(partial[h]).isCloseTo(3 * 0.5 + 2 + 2, within(1e-9));
  }

  @Test
  void llmdMatchesOnlyWholeBlocksWithinItsPrefixWindow() {
    LlmdScorer.Picker llmd = (LlmdScorer.Picker) LlmdScorer.policy(1).newPicker(fleet);
    // 512-token blocks: the 4,096-token window holds 8 of them; the partial last block is ignored.
    long[] longIds = ids(1, 20);
    RoutingRequest big = withBlocks(PromptBlocks.of(Simulator.chain(longIds), 512, 19 * 512 + 100));
    int r = llmd.rank(big, load).next();
    long[] sameWindow = concat(ids(1, 8), ids(500, 12));
    RoutingRequest other = withBlocks(PromptBlocks.of(Simulator.chain(sameWindow), 512, 20 * 512));
    // Same first 8 blocks: a full prefix score although the prompts differ after them.
    assertThat(llmd.scores(other, load)[r]).isCloseTo(3 + 2 + 2, within(1e-9));
  }

  // Dynamo: cost = overlap weight x prefill blocks + active blocks, with feedback.

  @Test
  void dynamoPicksTheLowestOverlapWeightedPrefillPlusActiveBlocks() {
    ReplicaSet two = named(2);
    LocalLoad view = LocalLoad.of(two, () -> nanos, Duration.ofSeconds(3));
    DynamoKvRouter.Picker dynamo = (DynamoKvRouter.Picker) DynamoKvRouter.policy(1).newPicker(two);
    RoutingRequest a = prompt(ids(1, 10));
    Ranking ra = dynamo.rank(a, view);
    int r = ra.next(); // a tie at 1000/100 + 10 = 20: the seed decides
    RoutedAttempt sentA = ra.sent(r, nanos, true);
    int other = 1 - r;
    assertThat(dynamo.activePrefillTokens(r)).isEqualTo(1000);
    assertThat(dynamo.activeBlocks(r)).isEqualTo(10);
    // Same prompt again: on r 10 blocks overlap but a's prefill is pending: (1000 + 0)/100 + 10.
    assertThat(dynamo.cost(a.blocks(), 10, r)).isEqualTo(20.0);
    assertThat(dynamo.cost(a.blocks(), 0, other)).isEqualTo(20.0);
    // Tied: the replica with fewer indexed blocks wins.
    Ranking rb = dynamo.rank(prompt(ids(1, 10)), view);
    assertThat(rb.next()).isEqualTo(other);
    RoutedAttempt sentB = rb.sent(other, nanos, true);
    // a's first token: its prefill leaves the accounting.
    sentA.firstToken(nanos);
    assertThat(dynamo.activePrefillTokens(r)).isZero();
    sentB.firstToken(nanos);
    sentB.completed(1000, 0, nanos);
    assertThat(dynamo.activeBlocks(other)).isZero();
    // 4 of 10 blocks overlap on r: (1000 - 4 x 100)/100 + 10 active + 6 new = 22; on the other
    // replica, overlapped too since b went there: 6 + 0 active + 10 new = 16.
    RoutingRequest c = prompt(concat(ids(1, 4), ids(50, 6)));
    assertThat(dynamo.overlaps(c.blocks())[r]).isEqualTo(4);
    assertThat(dynamo.cost(c.blocks(), 4, r)).isEqualTo(22.0);
    assertThat(dynamo.cost(c.blocks(), 4, other)).isEqualTo(6.0 + 0 + 10);
    sentA.completed(1000, 0, nanos);
    assertThat(dynamo.activeBlocks(r)).isZero();
    assertThat(dynamo.cost(c.blocks(), 4, r)).isEqualTo(6.0 + 0 + 10);
    assertThat(dynamo.rank(c, view).next()).isEqualTo(r);
  }

  @Test
  void dynamoForgetsWhatItRoutedAfterItsTimeToLive() {
    DynamoKvRouter.Picker dynamo = (DynamoKvRouter.Picker) DynamoKvRouter.policy(1).newPicker(fleet);
    RoutingRequest a = prompt(ids(1, 10));
    int r = dynamo.rank(a, load).next();
    assertThat(dynamo.overlaps(a.blocks())[r]).isEqualTo(10);
    nanos = 121_000_000_000L;
    dynamo.rank(prompt(ids(900, 1)), load).next(); // any decision expires old entries
    assertThat(dynamo.overlaps(a.blocks())).containsOnly(0);
  }
}
