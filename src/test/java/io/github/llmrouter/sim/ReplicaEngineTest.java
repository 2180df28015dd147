package io.github.llmrouter.sim;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The engine model against hand-computed timelines. */
class ReplicaEngineTest {
  /** 1000 prefill tokens/s, 10 ms per step + 1 ms per sequence, 10 tokens per block. */
  private static final EngineProfile SIMPLE = EngineProfile.builder().prefillTokensPerSecond(1000)
      .decodeStepMillis(10).perSequenceMillis(1).cacheTokens(1000).tokenBudget(8192).build();
  private static final int BLOCK = 10;

  private final List<Job> completed = new ArrayList<>();
  private int nextIndex;

  private ReplicaEngine engine(EngineProfile profile) {
    return new ReplicaEngine(profile, BLOCK, completed::add);
  }

  private Job job(double arrival, int input, int output, long... blockIds) {
    TraceRequest r = new TraceRequest(arrival, input, output, blockIds, null);
    return new Job(nextIndex++, r, Simulator.chain(blockIds), (output + BLOCK - 1) / BLOCK, 0);
  }

  private Job adapterJob(double arrival, int output, String adapter) {
    long[] blockIds = ids(0, 20);
    TraceRequest r = new TraceRequest(arrival, 200, output, blockIds, null, adapter, "base");
    return new Job(nextIndex++, r, Simulator.chain(blockIds, adapter), (output + BLOCK - 1) / BLOCK,
        0);
  }

  private static long[] ids(long from, int count) {
    long[] ids = new long[count];
    for (int i = 0; i < count; i++) ids[i] = from + i;
    return ids;
  }

  /** Admits a whole prompt at once and registers all its blocks. */
  private static void admitWhole(PrefixCache cache, long[] chain) {
    int matched = cache.match(chain);
    cache.acquire(chain, matched, 0);
    cache.register(chain, matched, chain.length);
  }

  private static void run(ReplicaEngine e, Job j) {
    e.advanceTo(j.arrival);
    e.submit(j, j.arrival);
  }

  @Test
  void anAdapterNotHeldIsLoadedInTheStepThatAdmitsItsRequestAndThenStays() {
    ReplicaEngine e = engine(SIMPLE.toBuilder().maxLoras(2).loraLoadMillis(50).build());
    Job first = adapterJob(1.0, 1, "sql");
    run(e, first);
    e.drain();
    // The step of a lone request (0.211 s) plus the adapter's load.
    assertThat(first.firstToken - first.arrival).isCloseTo(0.261, within(1e-9));
    Job again = adapterJob(2.0, 1, "sql");
    run(e, again);
    e.drain();
    assertThat(e.loraLoads()).isEqualTo(1);
    assertThat(again.cachedTokens).as("the same adapter's prompt is cached").isPositive();
    Job other = adapterJob(3.0, 1, "chat");
    run(e, other);
    e.drain();
    assertThat(other.cachedTokens).as("another adapter never shares a block").isZero();
    run(e, adapterJob(4.0, 1, "math")); // evicts sql, the least recently used
    e.drain();
    run(e, adapterJob(5.0, 1, "sql"));
    e.drain();
    assertThat(e.loraLoads()).isEqualTo(4);
  }

  @Test
  void aRequestWhoseAdapterFindsEverySlotRunningIsPassedOverAndKeepsItsPlace() {
    ReplicaEngine e = engine(SIMPLE.toBuilder().maxLoras(1).loraLoadMillis(0).build());
    Job running = adapterJob(0, 50, "sql");
    Job blocked = adapterJob(0, 1, "chat");
    Job sameAdapter = adapterJob(0, 1, "sql");
    run(e, running);
    e.submit(blocked, 0);
    e.submit(sameAdapter, 0);
    e.advanceTo(0.5);
    assertThat(e.activeAdapters()).containsExactly("sql", "chat");
    assertThat(sameAdapter.firstToken).as("admitted past the blocked one").isLessThan(0.5);
    assertThat(blocked.admitted).isNaN();
    e.drain();
    assertThat(blocked.admitted).isGreaterThanOrEqualTo(running.finished);
    assertThat(e.loraLoads()).isEqualTo(2);
    assertThat(e.activeAdapters()).isEmpty();
  }

  @Test
  void aLoneRequestsTtftIsItsPrefillTime() {
    ReplicaEngine e = engine(SIMPLE);
    Job j = job(1.0, 200, 1, ids(0, 20));
    run(e, j);
    e.drain();
    // One step: 10 ms + 1 ms for the one sequence + 200 tokens / 1000 tokens/s.
    assertThat(j.firstToken - j.arrival).isCloseTo(0.211, within(1e-9));
    assertThat(j.admitted).isEqualTo(1.0);
    assertThat(j.cachedTokens).isZero();
    assertThat(j.finished).isEqualTo(j.firstToken);
  }

  @Test
  void decodeStepsCostTheFixedTermPlusOneTermPerRunningSequence() {
    ReplicaEngine e = engine(SIMPLE);
    Job a = job(0, 100, 5, ids(0, 10));
    Job b = job(0, 100, 3, ids(100, 10));
    run(e, a);
    run(e, b);
    e.drain();
    // Step 0 prefills both: 10 + 2 × 1 ms + 200 tokens = 212 ms, the first token of each.
    assertThat(a.firstToken).isCloseTo(0.212, within(1e-9));
    assertThat(b.firstToken).isCloseTo(0.212, within(1e-9));
    // Two decode steps with both (12 ms each) finish b's 3 tokens; a needs two more alone (11 ms).
    assertThat(b.finished).isCloseTo(0.212 + 2 * 0.012, within(1e-9));
    assertThat(a.finished).isCloseTo(0.212 + 2 * 0.012 + 2 * 0.011, within(1e-9));
  }

  @Test
  void longPromptsArePrefilledInChunksOfTheTokenBudget() {
    EngineProfile small = SIMPLE.toBuilder().tokenBudget(100).build();
    ReplicaEngine e = engine(small);
    Job j = job(0, 250, 1, ids(0, 25));
    run(e, j);
    e.drain();
    // Three steps of 100, 100 and 50 tokens, each 11 ms of overhead.
    assertThat(j.firstToken).isCloseTo(3 * 0.011 + 0.250, within(1e-9));
  }

  @Test
  void aRequestWaitsWhileARunningPrefillTakesTheWholeTokenBudget() {
    // As in vLLM V1: waiting requests are scheduled only with budget left after running ones, so
    // the waiting count a replica reports includes requests stuck behind a long prefill.
    ReplicaEngine e = engine(SIMPLE.toBuilder().tokenBudget(100).build());
    Job a = job(0, 250, 1, ids(0, 25));
    Job b = job(0, 50, 1, ids(100, 5));
    run(e, a);
    run(e, b);
    e.advanceTo(0.2); // steps 0 and 1 (111 ms each) prefill 100 tokens of a each
    assertThat(e.waitingCount()).isEqualTo(1);
    assertThat(e.runningCount()).isEqualTo(1);
    e.drain();
    // Step 2 has 50 tokens left after a's last chunk: b is admitted and prefilled in it.
    assertThat(b.admitted).isCloseTo(0.222, within(1e-9));
    assertThat(b.firstToken).isCloseTo(0.222 + 0.010 + 2 * 0.001 + 0.100, within(1e-9));
    assertThat(a.firstToken).isEqualTo(b.firstToken);
  }

  @Test
  void aPromptsBlocksEnterTheCacheChunkByChunkAsTheirChunksAreScheduled() {
    // vLLM V1: a block is cached when the step computing it is scheduled, not at admission.
    ReplicaEngine e = engine(SIMPLE.toBuilder().tokenBudget(100).build());
    Job a = job(0, 400, 1, ids(0, 40));
    run(e, a);
    e.advanceTo(0.15); // steps 0 and 1 (111 ms each) scheduled tokens 0-199 of 400
    assertThat(e.cache().match(a.chain)).isEqualTo(20);
    e.advanceTo(0.25); // step 2 scheduled tokens 200-299
    assertThat(e.cache().match(a.chain)).isEqualTo(30);
    e.drain();
    assertThat(e.cache().match(a.chain)).isEqualTo(40);
  }

  @Test
  void aSamePrefixRequestArrivingHalfWayThroughAPrefillHitsOnlyTheBlocksAlreadyScheduled() {
    // With vLLM's long_prefill_token_threshold a long prompt takes 100 tokens per step, so the
    // request behind it starts while it is still being computed.
    ReplicaEngine e = engine(SIMPLE.toBuilder().longPrefillTokenThreshold(100).build());
    Job a = job(0, 400, 1, ids(0, 40));
    Job b = job(0.15, 400, 1, ids(0, 40)); // arrives during step 1, half-way through a's prefill
    run(e, a);
    run(e, b);
    e.drain();
    // Step 2 (from 0.222 s) schedules a's tokens 200-299 first, then admits b: blocks 0-29 are
    // cached, 30-39 are not yet.
    assertThat(b.admitted).isCloseTo(0.222, within(1e-9));
    assertThat(b.cachedTokens).isEqualTo(300);
    // Registered in the old way (every block at a's admission) b would have hit 399 tokens.
    assertThat(a.cachedTokens).isZero();
    assertThat(e.cache().match(b.chain)).isEqualTo(40);
    assertThat(e.cache().pinned()).isZero();
    assertThat(e.cache().used()).isEqualTo(40);
  }

  @Test
  void withoutAChunkCapTheRequestBehindALongPromptWaitsForItsLastChunkAndHitsItAll() {
    // vLLM's default: the running prefill takes the whole budget, so the request behind it is
    // admitted with its last chunk, after every block has been scheduled.
    ReplicaEngine e = engine(SIMPLE.toBuilder().tokenBudget(100).build());
    Job a = job(0, 400, 1, ids(0, 40));
    Job b = job(0.15, 400, 1, ids(0, 40));
    run(e, a);
    run(e, b);
    e.drain();
    assertThat(b.admitted).isGreaterThanOrEqualTo(a.firstToken);
    assertThat(b.cachedTokens).isEqualTo(399);
  }

  @Test
  void anArrivalDuringALongDecodeJoinsAtTheNextStepBoundary() {
    ReplicaEngine e = engine(SIMPLE);
    Job a = job(0, 10, 300, ids(0, 1));
    run(e, a);
    // a: step 0 = 10 + 1 + 10 ms = 21 ms; then decode steps of 11 ms each.
    Job b = job(0.1, 10, 1, ids(50, 1));
    run(e, b);
    e.drain();
    // Decode steps start at 21, 32, 43, 54, 65, 76, 87, 98, 109 ms: b joins the one at 109 ms,
    // which holds a's decode and b's prefill: 10 + 2 × 1 + 10 ms = 22 ms.
    assertThat(b.admitted).isCloseTo(0.109, within(1e-9));
    assertThat(b.firstToken).isCloseTo(0.131, within(1e-9));
  }

  @Test
  void aRepeatedPromptHitsTheCacheAndComputesOnlyItsLastToken() {
    ReplicaEngine e = engine(SIMPLE);
    Job first = job(0, 200, 1, ids(0, 20));
    Job again = job(5, 200, 1, ids(0, 20));
    run(e, first);
    run(e, again);
    e.drain();
    assertThat(again.cachedTokens).isEqualTo(199);
    assertThat(again.firstToken - again.arrival).isCloseTo(0.011 + 0.001, within(1e-9));
  }

  @Test
  void aBlockHitsOnlyIfEveryEarlierBlockHits() {
    ReplicaEngine e = engine(SIMPLE);
    run(e, job(0, 30, 1, 1, 2, 3));
    Job sameTail = job(5, 30, 1, 9, 2, 3);
    Job samePrefix = job(6, 30, 1, 1, 2, 7);
    run(e, sameTail);
    run(e, samePrefix);
    e.drain();
    assertThat(sameTail.cachedTokens).isZero();
    assertThat(samePrefix.cachedTokens).isEqualTo(20);
  }

  @Test
  void theLeastRecentlyUsedPromptIsEvictedFirst() {
    // Room for 10 blocks: prompts of 4 blocks (+1 output block) each.
    EngineProfile tiny = SIMPLE.toBuilder().cacheTokens(100).build();
    ReplicaEngine e = engine(tiny);
    Job a = job(0, 40, 1, ids(0, 4));
    Job b = job(1, 40, 1, ids(10, 4));
    Job aAgain = job(2, 40, 1, ids(0, 4)); // a is now more recent than b
    Job c = job(3, 40, 1, ids(20, 4));     // needs 3 more blocks: they come from b, a stays
    for (Job j : List.of(a, b, aAgain, c)) run(e, j);
    e.drain();
    PrefixCache cache = e.cache();
    assertThat(cache.match(a.chain)).isEqualTo(4);
    // b's tail went first (a released prompt's head is the most recently used of its blocks).
    assertThat(cache.match(b.chain)).isEqualTo(1);
    assertThat(cache.match(c.chain)).isEqualTo(4);
  }

  @Test
  void aPromptsHeadOutlivesItsTail() {
    PrefixCache cache = new PrefixCache(4);
    long[] chain = Simulator.chain(ids(0, 4));
    admitWhole(cache, chain);
    cache.release(chain, chain.length, 0);
    admitWhole(cache, Simulator.chain(ids(10, 2))); // evicts the two least recently used
    assertThat(cache.match(chain)).isEqualTo(2);
  }

  @Test
  void pinnedBlocksSurviveAndANewRequestWaitsForRoom() {
    EngineProfile tiny = SIMPLE.toBuilder().cacheTokens(100).build();
    ReplicaEngine e = engine(tiny);
    Job running = job(0, 60, 20, ids(0, 6));   // 6 prompt + 2 output blocks, pinned for a while
    Job big = job(0.05, 50, 1, ids(100, 5));   // needs 5 + 1 blocks: only 2 are free
    run(e, running);
    run(e, big);
    e.advanceTo(0.1);
    assertThat(e.cache().match(running.chain)).isEqualTo(6);
    assertThat(e.waitingCount()).isEqualTo(1);
    e.drain();
    // big is admitted only when running completes and unpins its blocks.
    assertThat(big.admitted).isCloseTo(running.finished, within(1e-9));
    assertThat(e.cache().used()).isLessThanOrEqualTo(10);
  }

  @Test
  void pinnedBlocksAreNeverEvictedEvenWhenTheCacheIsOvercommitted() {
    PrefixCache cache = new PrefixCache(5);
    long[] pinned = Simulator.chain(ids(0, 3));
    long[] other = Simulator.chain(ids(10, 4));
    admitWhole(cache, pinned);
    assertThat(cache.fits(other, 0, 0)).isFalse();
    admitWhole(cache, other); // forced, as for a lone oversized request
    assertThat(cache.match(pinned)).isEqualTo(3);
    assertThat(cache.pinned()).isEqualTo(7);
  }

  @Test
  void batchSizeIsCappedByMaxNumSeqs() {
    EngineProfile one = SIMPLE.toBuilder().maxNumSeqs(1).build();
    ReplicaEngine e = engine(one);
    Job a = job(0, 10, 3, ids(0, 1));
    Job b = job(0, 10, 1, ids(10, 1));
    run(e, a);
    run(e, b);
    e.drain();
    assertThat(b.admitted).isCloseTo(a.finished, within(1e-9));
  }
}
