package io.github.llmrouter.routing;

import static io.github.llmrouter.routing.Fleets.fleet;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.github.llmrouter.api.Ticker;
import io.github.llmrouter.internal.load.LocalLoad;
import io.github.llmrouter.load.LoadReport;
import io.github.llmrouter.replica.ReplicaSet;
import java.time.Duration;
import java.util.HashSet;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** CacheAware: predictions from the request alone, from this client's index, from what replicas report. */
class CacheAwareTest {
  private static final String MODEL = "llama-3.1-8b";
  private static final SplittableRandom RANDOM = new SplittableRandom(3);
  private static final String SYSTEM = Fleets.randomText(RANDOM, 2000);

  private final AtomicLong nanos = new AtomicLong(1_000_000_000L);
  private final Ticker ticker = nanos::get;

  private LocalLoad load(ReplicaSet fleet) {
    return LocalLoad.of(fleet, ticker, Duration.ofSeconds(3));
  }

  private static RoutingRequest chat(String model, String... userAndAssistant) {
    RoutingRequest.Builder b = RoutingRequest.builder(model).message("system", SYSTEM);
    for (int k = 0; k < userAndAssistant.length; k++) {
      b.message(k % 2 == 0 ? "user" : "assistant", userAndAssistant[k]);
    }
    return b.build();
  }

  /** Sends one request as the client does: rank, take rank 0, count it in flight, tell the policy. */
  private Sent send(ReplicaPicker picker, LocalLoad load, RoutingRequest request) {
    Ranking ranking = picker.rank(request, load);
    int i = ranking.next();
    load.counter(i).acquire();
    return new Sent(i, ranking, ranking.sent(i, nanos.get(), true));
  }

  private record Sent(int replica, Ranking ranking, RoutedAttempt attempt) {}

  @Test
  void twoClientsWithNoSharedStatePredictTheSameHomeForAConversation() {
    ReplicaSet fleet = fleet(8);
    ReplicaPicker a = CacheAware.builder().build().newPicker(fleet);
    ReplicaPicker b = CacheAware.builder().build().newPicker(fleet);
    LocalLoad loadA = load(fleet);
    LocalLoad loadB = load(fleet);
    Set<Integer> homes = new HashSet<>();
    for (int c = 0; c < 200; c++) {
      String question = "conversation " + c + ": " + Fleets.randomText(RANDOM, 300);
      // Client A sends the first turn (and has a history of earlier conversations); client B
      // never saw this conversation, nor any other.
      Sent first = send(a, loadA, chat(MODEL, question));
      first.attempt().completed(-1, -1, nanos.get());
      loadA.counter(first.replica()).release();
      RoutingRequest second = chat(MODEL, question, Fleets.randomText(RANDOM, 400), "and then?");
      CacheAwareRanking byA = (CacheAwareRanking) a.rank(second, loadA);
      CacheAwareRanking byB = (CacheAwareRanking) b.rank(second, loadB);
      int pickedByB = byB.next();
      byA.next();
      assertThat(byB.conversationHome()).as("conversation %d", c)
          .isEqualTo(byA.conversationHome());
      assertThat(pickedByB).as("an idle fleet, nothing known: the home").isEqualTo(
          byB.conversationHome());
      homes.add(byB.conversationHome());
    }
    assertThat(homes).as("conversations spread over the fleet").hasSize(8);
  }

  @Test
  void theAffinityKeyIsTheConversationsAndLocatesItsRingHome() {
    CacheAware policy = CacheAware.builder().build();
    ReplicaSet fleet = fleet(8);
    ReplicaPicker picker = policy.newPicker(fleet);
    String question = Fleets.randomText(RANDOM, 300);
    RoutingRequest first = chat(MODEL, question);
    RoutingRequest later = chat(MODEL, question, Fleets.randomText(RANDOM, 400), "and then?");
    RoutingRequest other = chat(MODEL, Fleets.randomText(RANDOM, 300));
    assertThat(policy.affinityKey(later)).as("every turn of a conversation: one key")
        .isEqualTo(policy.affinityKey(first))
        .isEqualTo(CacheAware.builder().build().affinityKey(first)) // any client's
        .isNotEqualTo(policy.affinityKey(other));
    CacheAwareRanking ranking = (CacheAwareRanking) picker.rank(later, load(fleet));
    ranking.next();
    assertThat(ranking.conversationHome())
        .isEqualTo(((CacheAware.Picker) picker).home(policy.affinityKey(later)));
    RoutingRequest keyed = RoutingRequest.builder(MODEL).message("user", question)
        .routingKey("session-1").build();
    assertThat(policy.affinityKey(keyed)).isEqualTo(keyed.prefixKey());
  }

  @Test
  void withoutRolesTheSharedPrefixIsLearntFromHowManyBlocksFollowIt() {
    // Completions whose first 1,000 characters are a shared preamble: once each client has seen
    // the preamble followed by several different texts, both key conversations past it.
    ReplicaSet fleet = fleet(8);
    CacheAware policyA = CacheAware.builder().build();
    CacheAware policyB = CacheAware.builder().build();
    ReplicaPicker a = policyA.newPicker(fleet);
    ReplicaPicker b = policyB.newPicker(fleet);
    LocalLoad loadA = load(fleet);
    LocalLoad loadB = load(fleet);
    String preamble = Fleets.randomText(RANDOM, 1024);
    for (int k = 0; k < 6; k++) {
      for (ReplicaPicker p : new ReplicaPicker[] {a, b}) {
        LocalLoad l = p == a ? loadA : loadB;
        Sent s = send(p, l, RoutingRequest.of(MODEL, preamble + Fleets.randomText(RANDOM, 600)));
        s.attempt().completed(-1, -1, nanos.get());
        l.counter(s.replica()).release();
      }
    }
    Set<Integer> homes = new HashSet<>();
    for (int c = 0; c < 100; c++) {
      String prompt = preamble + "session " + c + Fleets.randomText(RANDOM, 600);
      int home = a.rank(RoutingRequest.of(MODEL, prompt), loadA).next();
      assertThat(b.rank(RoutingRequest.of(MODEL, prompt), loadB).next()).isEqualTo(home);
      homes.add(home);
    }
    assertThat(homes).as("keyed past the shared preamble, not on it").hasSizeGreaterThan(4);
  }

  @Test
  void aBurstOfOneHundredRequestsWithOnePrefixSpreadsWithinTheCap() {
    ReplicaSet fleet = fleet(8);
    ReplicaPicker picker = CacheAware.builder().build().newPicker(fleet);
    LocalLoad load = load(fleet);
    int[] perReplica = new int[8];
    String question = Fleets.randomText(RANDOM, 4000);
    for (int k = 0; k < 100; k++) {
      // All at once: nothing has answered yet, nothing has produced a first token.
      perReplica[send(picker, load, chat(MODEL, question)).replica()]++;
    }
    // The cap as the 100th request found it: 99 awaiting their first token plus itself, a share
    // of 1/8 each.
    double cap = CacheAware.DEFAULT_LOAD_FACTOR * 100 / 8 + CacheAwareRanking.LOAD_SLACK;
    for (int count : perReplica) assertThat(count - 1).isLessThanOrEqualTo((int) cap);
    // Each replica that holds the prefix takes what its cap allows, and no more.
    int used = 0;
    for (int count : perReplica) if (count > 0) used++;
    assertThat(used).as("replicas used: %s", java.util.Arrays.toString(perReplica))
        .isGreaterThanOrEqualTo((int) Math.ceil(100 / (cap + 1)));
  }

  @Test
  void theConfidenceLearnsFromCachedTokensAndRecoversAfterAReplicaRestarts() {
    ReplicaSet fleet = fleet(8);
    CacheAware.Picker picker = (CacheAware.Picker) CacheAware.builder().build().newPicker(fleet);
    LocalLoad load = load(fleet);
    // Second turns of conversations this client never saw: only the ring says where they are.
    for (int phase = 0; phase < 3; phase++) {
      boolean restarted = phase == 1;
      for (int c = 0; c < 200; c++) {
        String question = phase + "/" + c + Fleets.randomText(RANDOM, 600);
        RoutingRequest request = chat(MODEL, question, Fleets.randomText(RANDOM, 600), "more?");
        Sent s = send(picker, load, request);
        nanos.addAndGet(50_000_000L);
        s.attempt().firstToken(nanos.get());
        int prompt = request.blocks().promptTokens();
        // The home holds everything but the last message, unless it has just restarted.
        long cached = restarted ? 0 : prompt - 10;
        s.attempt().completed(prompt, cached, nanos.get());
        load.counter(s.replica()).release();
      }
      double mean = 0;
      for (ReplicaState state : picker.states) mean += state.conversationConfidence / 8;
      if (phase == 0) assertThat(mean).as("learnt: the homes hold them").isGreaterThan(0.8);
      if (phase == 1) assertThat(mean).as("after restarts, nothing is cached").isLessThan(0.3);
      if (phase == 2) assertThat(mean).as("refilled caches: recovered").isGreaterThan(0.8);
    }
  }

  @Test
  void aRestartedReplicaIsForgottenByTheIndex() {
    ReplicaSet fleet = fleet(4);
    CacheAware.Picker picker = (CacheAware.Picker) CacheAware.builder().build().newPicker(fleet);
    LocalLoad load = load(fleet);
    RoutingRequest first = chat(MODEL, Fleets.randomText(RANDOM, 3000));
    Sent s = send(picker, load, first);
    s.attempt().completed(first.blocks().promptTokens(), 0, nanos.get());
    load.counter(s.replica()).release();
    nanos.addAndGet(10_000_000_000L); // long enough for those blocks to have been computed
    // The next turn is predicted from the index: the blocks were sent there a moment ago.
    RoutingRequest next = chat(MODEL, first.prompt().toString(), "answer", "next");
    Ranking ranking = picker.rank(next, load);
    assertThat(ranking.next()).isEqualTo(s.replica());
    assertThat(ranking.versusRunnerUp()).contains("cached: index");
    Sent again = new Sent(s.replica(), ranking, ranking.sent(s.replica(), nanos.get(), true));
    // It answers that nothing was cached: it lost its cache.
    again.attempt().completed(next.blocks().promptTokens(), 0, nanos.get());
    Ranking after = picker.rank(next, load);
    after.next();
    assertThat(after.versusRunnerUp()).doesNotContain("cached: index");
  }

  @Test
  void modelsAndAdaptersNeverShareIndexEntries() {
    PrefixIndex index = new PrefixIndex(4096);
    FleetMemory memory = new FleetMemory(4096);
    memory.statesFor(fleet(2));
    PromptBlocks base = chat(MODEL, "the same question").blocks();
    PromptBlocks adapter = chat(MODEL + "_sql-lora", "the same question").blocks();
    index.record(base.hashes(), base.size(), 0, 100, memory);
    int[] depth = new int[PrefixIndex.SLOTS];
    assertThat(index.depths(base.hashes(), base.size(), 100, memory, depth)).isEqualTo(1L);
    assertThat(depth[0]).isEqualTo(base.size());
    assertThat(index.depths(adapter.hashes(), adapter.size(), 100, memory, new int[64])).isZero();
  }

  @Test
  void anIndexAtItsMemoryBoundEvictsAndKeepsRouting() {
    ReplicaSet fleet = fleet(8);
    CacheAware policy = CacheAware.builder().indexBlocks(1024).build();
    ReplicaPicker picker = policy.newPicker(fleet);
    LocalLoad load = load(fleet);
    RoutingRequest oldest = null;
    RoutingRequest newest = null;
    for (int k = 0; k < 2000; k++) {
      RoutingRequest r = chat(MODEL, "user " + k + Fleets.randomText(RANDOM, 2000));
      Sent s = send(picker, load, r);
      assertThat(s.replica()).isBetween(0, 7);
      s.attempt().completed(-1, -1, nanos.get());
      load.counter(s.replica()).release();
      if (oldest == null) oldest = r;
      newest = r;
    }
    assertThat(policy.indexBytes()).isEqualTo(1024L * PrefixIndex.BYTES_PER_ENTRY);
    assertThat(policy.memory().index().capacity()).isEqualTo(1024);
    Ranking recent = picker.rank(newest, load);
    recent.next();
    assertThat(recent.versusRunnerUp()).as("recent prompts are remembered").contains("index");
    int[] depth = new int[PrefixIndex.SLOTS];
    PromptBlocks old = oldest.blocks();
    int tick = PrefixIndex.tick(nanos.get());
    policy.memory().index().depths(old.hashes(), old.size(), tick, policy.memory(), depth);
    int deepest = 0;
    for (int d : depth) deepest = Math.max(deepest, d);
    assertThat(deepest).as("the oldest prompt's own blocks were evicted")
        .isLessThan(old.size());
  }

  @Test
  void theEventFiguresExplainTheChoice() {
    ReplicaSet fleet = fleet(4);
    ReplicaPicker picker = CacheAware.builder().build().newPicker(fleet);
    LocalLoad load = load(fleet);
    RoutingRequest request = chat(MODEL, Fleets.randomText(RANDOM, 3000));
    Sent s = send(picker, load, request);
    load.counter(s.replica()).release();
    Ranking ranking = picker.rank(chat(MODEL, request.prompt().toString(), "a", "b"), load);
    int i = ranking.next();
    assertThat(i).isEqualTo(s.replica());
    assertThat(ranking.predictedCachedTokens()).isGreaterThan(SYSTEM.length() / 4);
    assertThat(ranking.estimatedWaitSeconds()).as("its own earlier request, not started")
        .isGreaterThan(0);
    assertThat(ranking.versusRunnerUp()).contains(fleet.get(i).id()).contains(" vs ")
        .contains("estimated TTFT");
    assertThat(ranking.reason()).isEqualTo("lowest estimated time to first token");
  }

  @Test
  void reportedQueuesOfOtherClientsCountAsWait() {
    ReplicaSet fleet = fleet(2);
    ReplicaPicker picker = CacheAware.builder().build().newPicker(fleet);
    LocalLoad load = load(fleet);
    RoutingRequest request = chat(MODEL, Fleets.randomText(RANDOM, 300));
    int home = picker.rank(request, load).next();
    // Other clients have 12 requests waiting on the home: about 1.2 s of prefill. (It runs 4;
    // one report with a queue does not tell that 4 is all it can run.)
    load.publish(home, new LoadReport(12, 4, 12, 0.5, Double.NaN, Double.NaN, nanos.get(),
        LoadReport.Source.SCRAPE), false);
    load.publish(1 - home, new LoadReport(0, 4, 0, 0.5, Double.NaN, Double.NaN, nanos.get(),
        LoadReport.Source.SCRAPE), false);
    Ranking ranking = picker.rank(request, load);
    assertThat(ranking.next()).isEqualTo(1 - home);
    assertThat(ranking.versusRunnerUp()).contains("wait 0.000 s");
    // Once the report is old enough for that work to have drained, the home is back.
    nanos.addAndGet(1_500_000_000L);
    assertThat(picker.rank(request, load).next()).isEqualTo(home);
  }

  @Test
  void badSettingsFailAtBuildNamingTheKnob() {
    assertThatThrownBy(() -> CacheAware.builder().blockChars(8).build())
        .hasMessage("CacheAware.blockChars must be in [16, 65536], got 8");
    assertThatThrownBy(() -> CacheAware.builder().indexBlocks(10).build())
        .hasMessage("CacheAware.indexBlocks must be in [1024, 67108864], got 10");
    assertThatThrownBy(() -> CacheAware.builder().loadFactor(0.5).build())
        .hasMessage("CacheAware.loadFactor must be in [1.0, 100], got 0.5");
  }

  @Test
  void everyBoundOfEveryKnobIsAcceptedAndOnePastItRejected() {
    assertThat(CacheAware.builder().blockChars(16).indexBlocks(1024).loadFactor(1.0).build()
        .toString()).isEqualTo("CacheAware{blockChars=16, indexBlocks=1024, loadFactor=1.0}");
    assertThat(CacheAware.builder().blockChars(65_536).indexBlocks(1 << 26).loadFactor(100)
        .build().indexBytes()).isEqualTo((1L << 26) * PrefixIndex.BYTES_PER_ENTRY);
    assertThatThrownBy(() -> CacheAware.builder().blockChars(15).build())
        .hasMessage("CacheAware.blockChars must be in [16, 65536], got 15");
    assertThatThrownBy(() -> CacheAware.builder().blockChars(65_537).build())
        .hasMessage("CacheAware.blockChars must be in [16, 65536], got 65537");
    assertThatThrownBy(() -> CacheAware.builder().indexBlocks(1023).build())
        .hasMessage("CacheAware.indexBlocks must be in [1024, 67108864], got 1023");
    assertThatThrownBy(() -> CacheAware.builder().indexBlocks((1 << 26) + 1).build())
        .hasMessage("CacheAware.indexBlocks must be in [1024, 67108864], got 67108865");
    assertThatThrownBy(() -> CacheAware.builder().loadFactor(100.5).build())
        .hasMessage("CacheAware.loadFactor must be in [1.0, 100], got 100.5");
    assertThat(CacheAware.builder().build().name()).isEqualTo("CacheAware");
  }

  @Test
  void aPickerKnowsEachReplicasSlotAndWeightRelativeToTheMean() {
    CacheAware policy = CacheAware.builder().build();
    CacheAware.Picker first = (CacheAware.Picker) policy.newPicker(fleet(3));
    assertThat(first.indexOfSlot[0]).isZero();
    assertThat(first.indexOfSlot[2]).isEqualTo(2);
    assertThat(first.indexOfSlot[3]).as("no replica").isEqualTo(-1);
    // The same policy, a later snapshot without the first replica: the others keep their slots.
    ReplicaSet later = ReplicaSet.of(java.util.List.of(Fleets.replica(1, 3.0), Fleets.replica(2)));
    CacheAware.Picker second = (CacheAware.Picker) policy.newPicker(later);
    assertThat(second.indexOfSlot[1]).isZero();
    assertThat(second.indexOfSlot[2]).isEqualTo(1);
    assertThat(second.indexOfSlot[0]).as("its replica left").isEqualTo(-1);
    assertThat(second.relativeWeights).containsExactly(1.5, 0.5);
  }
}
