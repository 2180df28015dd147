package io.github.llmrouter.routing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.github.llmrouter.load.LoadView;
import io.github.llmrouter.replica.ReplicaSet;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * CacheAware's estimate, figure by figure, on a fleet of four replicas whose load is scripted: the
 * cost of each candidate, the wait it is charged, the tokens predicted cached and where the
 * prediction came from, as the decision's explanation states them. The figures follow from the
 * calibration's starting values: 10,000 prompt tokens prefilled per second, 1,000 uncached tokens
 * per typical request, ring predictions trusted half, half the continued conversations foreign.
 *
 * <p>The request: a 1,024-character system prompt and a 1,024-character question, eight blocks of
 * 64 estimated tokens (512 in all), the first four shared. Its conversation home is predicted to
 * hold the first seven blocks (448 tokens) at confidence 0.5, so 224; the system prompt's home the
 * first four (256) at 0.5, so 128.
 */
class CacheAwareRankingTest {
  private static final String MODEL = "llama-3.1-8b";
  private static final String SYSTEM = "s".repeat(1024);

  private final ReplicaSet fleet = Fleets.named(4);
  private final ScriptedLoad load = new ScriptedLoad(4);
  private CacheAware.Picker picker;
  private String question = "";
  private RoutingRequest request;
  private int home;
  private int systemHome;

  @BeforeEach
  void setUp() {
    picker = (CacheAware.Picker) CacheAware.builder().build().newPicker(fleet);
    // A question whose conversation home is r0 and whose system-prompt home is another replica
    // (the ring decides both): r0 holds index slot 0 and is the replica index 0, each a boundary.
    for (int q = 0; q < 1000; q++) {
      question = String.format("%04d", q).repeat(256);
      request = withSystem(question);
      PromptBlocks blocks = request.blocks(CacheAware.DEFAULT_BLOCK_CHARS);
      home = picker.home(blocks.hash(4));
      systemHome = picker.home(blocks.hash(3));
      if (home == 0 && systemHome != 0) return;
    }
    throw new AssertionError("no question found for the fixture");
  }

  /** A request of the fixture's system prompt followed by {@code user}. */
  private static RoutingRequest withSystem(String user) {
    return RoutingRequest.builder(MODEL).message("system", SYSTEM).message("user", user).build();
  }

  private CacheAwareRanking rank() {
    return (CacheAwareRanking) picker.rank(request, load);
  }

  private String id(int i) {
    return "r" + i;
  }

  /** The replicas other than the two homes, in ring-scan order from the conversation home. */
  private List<Integer> others() {
    return java.util.stream.IntStream.range(1, 4).map(k -> (home + k) % 4)
        .filter(i -> i != systemHome).boxed().toList();
  }

  @Test
  void onAnIdleFleetTheConversationHomeWinsOnPredictedCachedTokens() {
    CacheAwareRanking ranking = rank();
    assertThat(ranking.next()).isEqualTo(home);
    assertThat(ranking.conversationHome()).isEqualTo(home);
    assertThat(ranking.reason()).isEqualTo("lowest estimated time to first token");
    assertThat(ranking.predictedCachedTokens()).isEqualTo(224);
    assertThat(ranking.estimatedWaitSeconds()).isZero();
    // Home: 512 - 224 = 288 tokens left, of which the half other clients' turns would find there
    // is charged: 144 / 10,000 s. System home: (512 - 128) / 10,000 s. (The shared prefix was
    // never sent before: no sign that a copy of it at the home would be used again.)
    assertThat(ranking.versusRunnerUp()).isEqualTo(id(home)
        + ": estimated TTFT 0.014 s (wait 0.000 s, 224 of 512 prompt tokens cached:"
        + " conversation home) vs " + id(systemHome) + ": estimated TTFT 0.038 s (wait 0.000 s,"
        + " 128 of 512 prompt tokens cached: system-prompt home) (λ 0.00)");
  }

  @Test
  void failoverTakesTheSystemHomeThenTheRestInRingOrderThenNothing() {
    CacheAwareRanking ranking = rank();
    assertThat(ranking.next()).isEqualTo(home);
    assertThat(ranking.next()).isEqualTo(systemHome);
    assertThat(ranking.reason()).isEqualTo("failover: next lowest estimated time to first token");
    assertThat(ranking.predictedCachedTokens()).isEqualTo(128);
    List<Integer> rest = others();
    assertThat(ranking.next()).isEqualTo(rest.get(0));
    assertThat(ranking.predictedCachedTokens()).isZero();
    assertThat(ranking.versusRunnerUp()).isEqualTo(id(rest.get(0))
        + ": estimated TTFT 0.051 s (wait 0.000 s, 0 of 512 prompt tokens cached: none) vs "
        + id(rest.get(1)) + ": estimated TTFT 0.051 s (wait 0.000 s, 0 of 512 prompt tokens"
        + " cached: none) (λ 0.00)");
    assertThat(ranking.next()).isEqualTo(rest.get(1));
    assertThat(ranking.versusRunnerUp()).isEqualTo("only replica left: " + id(rest.get(1))
        + ": estimated TTFT 0.051 s (wait 0.000 s, 0 of 512 prompt tokens cached: none)");
    assertThat(ranking.next()).isEqualTo(-1);
    assertThat(ranking.next()).isEqualTo(-1);
  }

  @Test
  void beforeTheFirstCallNothingIsChosen() {
    CacheAwareRanking ranking = rank();
    assertThat(ranking.predictedCachedTokens()).isEqualTo(-1);
    assertThat(ranking.estimatedWaitSeconds()).isNaN();
    assertThat(ranking.versusRunnerUp()).isEmpty();
    assertThat(ranking.sent(0, load.now, true)).isSameAs(RoutedAttempt.IGNORED);
  }

  @Test
  void otherClientsReportedBacklogIsChargedDrainedByTheReportsAge() {
    // One request awaiting its first token on the conversation home, reported 80 ms ago: 1,000
    // typical tokens at 10,000 per second, less 0.08 s drained.
    load.awaiting[home] = 1;
    load.ageNanos[home] = 80_000_000L;
    CacheAwareRanking ranking = rank();
    assertThat(ranking.next()).isEqualTo(home);
    assertThat(ranking.estimatedWaitSeconds()).isCloseTo(0.02, within(1e-9));
    assertThat(ranking.versusRunnerUp()).isEqualTo(id(home)
        + ": estimated TTFT 0.034 s (wait 0.020 s, 224 of 512 prompt tokens cached:"
        + " conversation home) vs " + id(systemHome) + ": estimated TTFT 0.038 s (wait 0.000 s,"
        + " 128 of 512 prompt tokens cached: system-prompt home) (λ 0.00)");
    // The fleet's mean wait (0.02 / 4) in typical requests' prefill times (0.1 s): λ = 0.05,
    // which weighs every uncached token more at the next decision.
    CacheAwareRanking next = rank();
    next.next();
    assertThat(next.versusRunnerUp()).isEqualTo(id(home)
        + ": estimated TTFT 0.035 s (wait 0.020 s, 224 of 512 prompt tokens cached:"
        + " conversation home) vs " + id(systemHome) + ": estimated TTFT 0.040 s (wait 0.000 s,"
        + " 128 of 512 prompt tokens cached: system-prompt home) (λ 0.05)");
  }

  @Test
  void aReportFullyDrainedOrCountingOnlyThisClientsRequestsAddsNoWait() {
    load.awaiting[home] = 3;
    load.ageNanos[home] = 300_000_000L;
    CacheAwareRanking drained = rank();
    drained.next();
    assertThat(drained.estimatedWaitSeconds()).isZero();

    // This client's one request there, streamed: its own prefill, exact, and the report's count
    // of one is that same request.
    load.awaiting[home] = 0;
    picker.states[home].add(load.now, 20_000_000L, true);
    load.awaiting[home] = 1;
    load.ageNanos[home] = 0;
    CacheAwareRanking own = rank();
    assertThat(own.next()).isEqualTo(home);
    assertThat(own.estimatedWaitSeconds()).isCloseTo(0.02, within(1e-9));
    // One more in the report than this client has there, reported 90 ms ago: 10 ms of another
    // client's prefill left, on top of this client's 20 ms. That costs the home the first place.
    load.awaiting[home] = 2;
    load.ageNanos[home] = 90_000_000L;
    CacheAwareRanking more = rank();
    assertThat(more.next()).isEqualTo(systemHome);
    assertThat(more.next()).isEqualTo(home);
    assertThat(more.estimatedWaitSeconds()).isCloseTo(0.03, within(1e-9));
  }

  @Test
  void whatThisClientSentIsChargedAsItsOwnWaitAndFoundInTheIndex() {
    CacheAwareRanking first = rank();
    assertThat(first.next()).isEqualTo(home);
    // Sent whole (not streamed): 288 uncached tokens, 28.8 ms of prefill queued on the home.
    RoutedAttempt attempt = first.sent(home, load.now, false);
    assertThat(picker.states[home].ownWait(load.now)).isCloseTo(0.0288, within(1e-12));
    assertThat(picker.states[home].awaiting.get()).isEqualTo(1);

    // The same prompt again: the index holds all eight blocks on the home.
    load.now += 8_800_000L;
    CacheAwareRanking second = rank();
    assertThat(second.next()).isEqualTo(home);
    assertThat(second.predictedCachedTokens()).isEqualTo(512);
    assertThat(second.estimatedWaitSeconds()).isCloseTo(0.02, within(1e-9));
    assertThat(second.versusRunnerUp()).startsWith(id(home)
        + ": estimated TTFT 0.020 s (wait 0.020 s, 512 of 512 prompt tokens cached: index) vs ");

    attempt.completed(512, 448, load.now);
    assertThat(picker.states[home].awaiting.get()).isZero();
  }

  @Test
  void aStreamedAttemptsPrefillStaysUntilItsFirstToken() {
    CacheAwareRanking first = rank();
    first.next();
    RoutedAttempt attempt = first.sent(home, load.now, true);
    load.now += 1_000_000_000L;
    assertThat(picker.states[home].ownWait(load.now)).isCloseTo(0.0288, within(1e-12));
    attempt.firstToken(load.now);
    assertThat(picker.states[home].ownWait(load.now)).isZero();
  }

  @Test
  void anAnswerFromTheConversationHomeTeachesItsConfidenceAndTheForeignShare() {
    CacheAwareRanking ranking = rank();
    ranking.next();
    RoutedAttempt attempt = ranking.sent(home, load.now, true);
    // All seven predicted blocks were there: the sample past the shared 256 tokens is 1.
    attempt.completed(512, 448, load.now + 1);
    ReplicaState state = picker.states[home];
    assertThat(state.conversationConfidence).isCloseTo(0.55, within(1e-12));
    assertThat(state.systemConfidence).as("not the system home").isEqualTo(0.5);
    Calibration cal = picker.memory.calibration;
    assertThat(cal.foreignShare()).as("a continued conversation this client had not sent")
        .isCloseTo(0.525, within(1e-12));
    assertThat(cal.typicalUncached()).isCloseTo(1000 + 0.05 * (64 - 1000), within(1e-9));
    assertThat(cal.tokenRatio()).isEqualTo(1.0);
  }

  @Test
  void anAnswerFromTheSystemHomeTeachesItsSystemConfidence() {
    CacheAwareRanking ranking = rank();
    ranking.next();
    ranking.next();
    RoutedAttempt attempt = ranking.sent(systemHome, load.now, true);
    // Half the system prompt cached: the sample is 128 / 256.
    attempt.completed(512, 128, load.now + 1);
    ReplicaState state = picker.states[systemHome];
    assertThat(state.systemConfidence).isCloseTo(0.5, within(1e-12));
    assertThat(state.conversationConfidence).isEqualTo(0.5);
    ranking = rank();
    ranking.next();
    ranking.next();
    ranking.sent(systemHome, load.now, true).completed(512, 256, load.now + 1);
    assertThat(picker.memory.calibration.foreignShare())
        .as("the shared prefix alone is no continued conversation").isEqualTo(0.5);
    // Now the index holds the prompt there: the home's figure no longer comes from the ring.
    assertThat(state.systemConfidence).isCloseTo(0.5, within(1e-12));
  }

  @Test
  void aReplicaOverTheLoadCapIsPassedOverForTheBestWithinIt() {
    // Ten requests awaiting a first token on the home, reported long enough ago that their
    // prefill is done: no wait, but over the cap (2 x 1 x (0 + 1) / 4 + 4 = 4.5).
    load.awaiting[home] = 10;
    load.ageNanos[home] = 5_000_000_000L;
    CacheAwareRanking ranking = rank();
    assertThat(ranking.next()).isEqualTo(systemHome);
    assertThat(ranking.reason())
        .isEqualTo("lowest estimated time to first token among the replicas within the load cap");
    assertThat(ranking.versusRunnerUp()).startsWith(id(systemHome)
        + ": estimated TTFT 0.038 s (wait 0.000 s, 128 of 512 prompt tokens cached:"
        + " system-prompt home) vs ");
  }

  @Test
  void withEveryReplicaOverTheCapTheLowestEstimateWins() {
    Arrays.fill(load.awaiting, 10);
    Arrays.fill(load.ageNanos, 5_000_000_000L);
    CacheAwareRanking ranking = rank();
    assertThat(ranking.next()).isEqualTo(home);
    assertThat(ranking.reason())
        .isEqualTo("every replica over the load cap: lowest estimated time to first token");
    assertThat(ranking.next()).isEqualTo(systemHome);
    assertThat(ranking.reason()).isEqualTo("failover: next lowest estimated time to first token");
    // Equal estimates over the cap: the first in ring order from the home.
    assertThat(ranking.next()).isEqualTo(others().get(0));
    assertThat(ranking.next()).isEqualTo(others().get(1));
  }

  @Test
  void underOverloadRingPredictionsAreTrustedWhole() {
    // Every replica 2.1 s behind (21 typical requests): the least wait is over 2 s.
    Arrays.fill(load.awaiting, 21);
    rank().next();
    CacheAwareRanking ranking = rank();
    assertThat(ranking.next()).isEqualTo(home);
    assertThat(ranking.predictedCachedTokens()).isEqualTo(448);
    // λ = 2.1 / 0.1 = 21: an uncached token costs 22 times its prefill time.
    assertThat(ranking.versusRunnerUp()).isEqualTo(id(home)
        + ": estimated TTFT 2.170 s (wait 2.100 s, 448 of 512 prompt tokens cached:"
        + " conversation home) vs " + id(systemHome) + ": estimated TTFT 2.663 s (wait 2.100 s,"
        + " 256 of 512 prompt tokens cached: system-prompt home) (λ 21.00, overload)");
  }

  @Test
  void justUnderTwoSecondsOfLeastWaitIsNoOverload() {
    Arrays.fill(load.awaiting, 20);
    rank().next();
    CacheAwareRanking ranking = rank();
    ranking.next();
    assertThat(ranking.predictedCachedTokens()).isEqualTo(224);
    assertThat(ranking.versusRunnerUp()).endsWith("(λ 20.00)");
  }

  @Test
  void aHeavierReplicaPrefillsFasterInProportionToItsWeight() {
    ReplicaSet weighted = ReplicaSet.of(List.of(Fleets.replica(0, 3.0).toBuilder().id("r0").build(),
        Fleets.replica(1).toBuilder().id("r1").build()));
    CacheAware.Picker p = (CacheAware.Picker) CacheAware.builder().build().newPicker(weighted);
    RoutingRequest prompt = RoutingRequest.of(MODEL, "x".repeat(4000));
    CacheAwareRanking ranking = (CacheAwareRanking) p.rank(prompt, new ScriptedLoad(2));
    // 1,000 tokens; r0 has 1.5x the mean weight: 15,000 tokens per second, and r1 0.5x. Without
    // roles nothing is known shared: r0, the home of the first block, holds 960 tokens at 0.5.
    assertThat(ranking.next()).isZero();
    assertThat(ranking.estimatedWaitSeconds()).isZero();
    assertThat(ranking.versusRunnerUp()).isEqualTo("r0: estimated TTFT 0.017 s (wait 0.000 s,"
        + " 480 of 1000 prompt tokens cached: conversation home) vs r1: estimated TTFT 0.200 s"
        + " (wait 0.000 s, 0 of 1000 prompt tokens cached: none) (λ 0.00)");
  }

  @Test
  void theCapIsTheReplicasShareOfRequestsAwaitingAFirstTokenPlusTheSlack() {
    // On the picker's first decision nothing is known awaiting: the bound is 2 x 1/4 + 4 = 4.5.
    load.awaiting[home] = 4;
    load.ageNanos[home] = 5_000_000_000L;
    CacheAwareRanking within = rank();
    assertThat(within.next()).isEqualTo(home);
    assertThat(within.reason()).isEqualTo("lowest estimated time to first token");
    CacheAware.Picker fresh = (CacheAware.Picker) CacheAware.builder().build().newPicker(fleet);
    load.awaiting[home] = 5;
    CacheAwareRanking over = (CacheAwareRanking) fresh.rank(request, load);
    assertThat(over.next()).isEqualTo(systemHome);
  }

  @Test
  void withOneReplicaWithinTheCapTheRunnerUpIsTheBestOverIt() {
    for (int i = 0; i < 4; i++) {
      if (i == systemHome) continue;
      load.awaiting[i] = 10;
      load.ageNanos[i] = 5_000_000_000L;
    }
    CacheAwareRanking ranking = rank();
    assertThat(ranking.next()).isEqualTo(systemHome);
    assertThat(ranking.versusRunnerUp()).isEqualTo(id(systemHome)
        + ": estimated TTFT 0.038 s (wait 0.000 s, 128 of 512 prompt tokens cached:"
        + " system-prompt home) vs " + id(home) + ": estimated TTFT 0.014 s (wait 0.000 s,"
        + " 224 of 512 prompt tokens cached: conversation home) (λ 0.00)");
  }

  @Test
  void amongEqualEstimatesTheRunnerUpIsTheNextInRingOrder() {
    ReplicaSet six = Fleets.named(6);
    CacheAware.Picker p = (CacheAware.Picker) CacheAware.builder().build().newPicker(six);
    CacheAwareRanking ranking = (CacheAwareRanking) p.rank(request, new ScriptedLoad(6));
    int first = ranking.next();
    int second = ranking.next();
    List<Integer> rest = new java.util.ArrayList<>();
    for (int k = 1; k < 6; k++) {
      int i = (ranking.conversationHome() + k) % 6;
      if (i != first && i != second) rest.add(i);
    }
    assertThat(ranking.next()).isEqualTo(rest.get(0));
    assertThat(ranking.versusRunnerUp()).contains(" vs r" + rest.get(1) + ": ");
  }

  @Test
  void aReplicaWhoseRequestsWaitLongerThanTheFleetsPrefillsSlowerInProportion() {
    // The home's requests waited twice the fleet's mean (0.15 s): its prefill rate is halved.
    load.queueWait[home] = 0.3;
    for (int i = 1; i < 4; i++) load.queueWait[i] = 0.1;
    CacheAwareRanking ranking = rank();
    assertThat(ranking.next()).isEqualTo(home);
    assertThat(ranking.versusRunnerUp()).startsWith(id(home)
        + ": estimated TTFT 0.029 s (wait 0.000 s, 224 of 512 prompt tokens cached:");
  }

  @Test
  void aContinuedConversationThisClientSentIsKnownAndTeachesTheForeignShareDown() {
    CacheAwareRanking first = rank();
    first.next();
    first.sent(home, load.now, true).completed(512, 0, load.now + 1);
    // The next turn: the index holds the first turn's eight blocks on the home, past the shared
    // four, so the conversation is this client's own and the ring prediction is not judged.
    RoutingRequest next = RoutingRequest.builder(MODEL).message("system", SYSTEM)
        .message("user", question)
        .message("assistant", "a".repeat(256)).message("user", "u".repeat(256)).build();
    CacheAwareRanking second = (CacheAwareRanking) picker.rank(next, load);
    assertThat(second.next()).isEqualTo(home);
    assertThat(second.predictedCachedTokens()).isEqualTo(512);
    double confidence = picker.states[home].conversationConfidence;
    double foreign = picker.memory.calibration.foreignShare();
    second.sent(home, load.now, true).completed(640, 512, load.now + 1);
    assertThat(picker.states[home].conversationConfidence).isEqualTo(confidence);
    assertThat(picker.memory.calibration.foreignShare())
        .isCloseTo(foreign - 0.05 * foreign, within(1e-12));
  }

  @Test
  void aPromptThatIsAllSystemPromptIsKeyedOnItsLastBlock() {
    RoutingRequest systemOnly = RoutingRequest.builder(MODEL).message("system", SYSTEM).build();
    CacheAwareRanking ranking = (CacheAwareRanking) picker.rank(systemOnly, load);
    int first = ranking.next();
    assertThat(ranking.conversationHome()).isEqualTo(systemHome);
    assertThat(first).isEqualTo(systemHome);
    // The conversation prediction (three blocks) and the system prompt's (all four) on one home.
    assertThat(ranking.predictedCachedTokens()).isEqualTo(128);
  }

  @Test
  void aTwoBlockPromptPredictsItsFirstBlockOnItsHome() {
    CacheAwareRanking ranking =
        (CacheAwareRanking) picker.rank(RoutingRequest.of(MODEL, "t".repeat(512)), load);
    ranking.next();
    assertThat(ranking.predictedCachedTokens()).isEqualTo(32);
  }

  @Test
  void aSharedPreambleLearntWithoutRolesEndsWhereTheBlocksFollowingItDiffer() {
    // Completions (no roles) that all start with the same four blocks, each followed by a
    // different one: the four are learnt shared.
    String preamble = "p".repeat(1024);
    for (int k = 0; k < 8; k++) {
      RoutingRequest r = RoutingRequest.of(MODEL, preamble + String.format("%03d", k).repeat(86));
      CacheAwareRanking ranking = (CacheAwareRanking) picker.rank(r, load);
      ranking.sent(ranking.next(), load.now, true).completed(-1, -1, load.now);
    }
    // The preamble and one block more: every block but the last is shared; keyed on the last.
    RoutingRequest r = RoutingRequest.of(MODEL, preamble + "q".repeat(256));
    PromptBlocks blocks = r.blocks(CacheAware.DEFAULT_BLOCK_CHARS);
    CacheAwareRanking ranking = (CacheAwareRanking) picker.rank(r, load);
    ranking.next();
    assertThat(ranking.conversationHome()).isEqualTo(picker.home(blocks.hash(4)));
    // Longer: keyed on the first block past the preamble.
    RoutingRequest longer = RoutingRequest.of(MODEL, preamble + "q".repeat(256 * 5));
    CacheAwareRanking l = (CacheAwareRanking) picker.rank(longer, load);
    l.next();
    assertThat(l.conversationHome())
        .isEqualTo(picker.home(longer.blocks(CacheAware.DEFAULT_BLOCK_CHARS).hash(4)));
    // The preamble's first block alone: a one-block prompt has no shared prefix to predict.
    RoutingRequest head = RoutingRequest.of(MODEL, "p".repeat(256));
    CacheAwareRanking h = (CacheAwareRanking) picker.rank(head, load);
    int chosen = h.next();
    // The eight completions went to their homes past the preamble, so another replica holds it
    // too and is the runner-up at the same estimate.
    assertThat(h.versusRunnerUp()).matches("r" + chosen + ": estimated TTFT 0\\.000 s \\(wait"
        + " 0\\.000 s, 64 of 64 prompt tokens cached: index\\) vs r[0-3]: estimated TTFT 0\\.000 s"
        + " \\(wait 0\\.000 s, 64 of 64 prompt tokens cached: index\\) \\(λ 0\\.00\\)");
    assertThat(h.versusRunnerUp()).doesNotContain(" vs r" + chosen + ":");
    // Two blocks, the first shared: the second is the conversation's.
    RoutingRequest two = RoutingRequest.of(MODEL, "p".repeat(256) + "z".repeat(256));
    CacheAwareRanking t = (CacheAwareRanking) picker.rank(two, load);
    t.next();
    assertThat(t.conversationHome())
        .isEqualTo(picker.home(two.blocks(CacheAware.DEFAULT_BLOCK_CHARS).hash(1)));
  }

  @Test
  void theTokenRatioAnswersReportScalesEveryEstimate() {
    // One answer reported 1,024 prompt tokens for the 512 estimated: the ratio moves 5% of the
    // way to 2.
    CacheAwareRanking first = rank();
    first.next();
    first.sent(home, load.now, true).completed(1024, -1, load.now);
    double r = 1.05;
    assertThat(picker.memory.calibration.tokenRatio()).isCloseTo(r, within(1e-12));
    load.now += 1;
    CacheAwareRanking ranking = (CacheAwareRanking) picker.rank(withSystem(
        "v".repeat(1024)), load);
    assertThat(ranking.next()).isEqualTo(ranking.conversationHome());
    int h = ranking.conversationHome();
    // 512 estimated tokens are 537.6 real ones; 224 predicted cached are 235.2.
    assertThat(ranking.predictedCachedTokens()).isEqualTo(235);
    // Its home: (537.6 - 268.8) x 0.5 / 10,000 s, the four system blocks (268.8 real tokens, sent
    // in the one request before) counted as a one-time copy. The first request's home, r0, holds
    // them in the index.
    assertThat(ranking.versusRunnerUp()).isEqualTo(id(h)
        + ": estimated TTFT 0.013 s (wait 0.000 s, 235 of 538 prompt tokens cached:"
        + " conversation home; 34 more of the shared prefix, a one-time copy) vs r0: estimated"
        + " TTFT 0.027 s (wait 0.000 s, 269 of 538 prompt tokens cached: index) (λ 0.00)");
    // Sent: (537.6 - 235.2) real tokens to prefill at 10,000 per second.
    ranking.sent(h, load.now, true);
    assertThat(picker.states[h].ownWait(load.now)).isCloseTo(0.03024, within(1e-9));
  }

  @Test
  void ringPredictionsAreJudgedInRealTokens() {
    CacheAwareRanking warm = rank();
    warm.next();
    warm.sent(home, load.now, true).completed(1024, -1, load.now);
    double r = picker.memory.calibration.tokenRatio();
    RoutingRequest fresh = withSystem("w".repeat(1024));
    CacheAwareRanking ranking = (CacheAwareRanking) picker.rank(fresh, load);
    ranking.next();
    int h = ranking.conversationHome();
    ReplicaState state = picker.states[h];
    double before = state.conversationConfidence;
    // 360 real tokens cached, of the 448 x r predicted and the shared 256 x r.
    ranking.sent(h, load.now, true).completed(538, 360, load.now);
    double sample = (360 - 256 * r) / (448 * r - 256 * r);
    assertThat(state.conversationConfidence)
        .isCloseTo(before + 0.1 * (sample - before), within(1e-9));
  }

  @Test
  void aSystemHomeThisClientAlreadyFilledWithTheSystemPromptIsNotJudgedByTheRing() {
    // Another conversation with the same system prompt went to the system home: the index holds
    // exactly the four shared blocks there.
    CacheAwareRanking other = (CacheAwareRanking) picker.rank(withSystem("o".repeat(1024)), load);
    other.next();
    other.sent(systemHome, load.now, true).completed(-1, -1, load.now);
    CacheAwareRanking ranking = rank();
    ranking.next();
    double before = picker.states[systemHome].systemConfidence;
    ranking.sent(systemHome, load.now, true).completed(512, 0, load.now);
    assertThat(picker.states[systemHome].systemConfidence).isEqualTo(before);
    // Judged where the index did not make the prediction: nothing cached pulls it down.
    CacheAware.Picker fresh = (CacheAware.Picker) CacheAware.builder().build().newPicker(fleet);
    CacheAwareRanking judged = (CacheAwareRanking) fresh.rank(request, load);
    judged.next();
    judged.sent(systemHome, load.now, true).completed(512, 0, load.now);
    assertThat(fresh.states[systemHome].systemConfidence).isCloseTo(0.45, within(1e-12));
  }

  @Test
  void theRunnerUpOverTheCapIsTheFirstOfEqualEstimatesInRingOrder() {
    // Only the system home is within the cap. Over it: the home, its reported backlog half
    // drained (0.5 s ahead), and the other two, drained, at equal estimates.
    load.awaiting[home] = 10;
    load.ageNanos[home] = 500_000_000L;
    for (int i : others()) {
      load.awaiting[i] = 10;
      load.ageNanos[i] = 5_000_000_000L;
    }
    CacheAwareRanking ranking = rank();
    assertThat(ranking.next()).isEqualTo(systemHome);
    assertThat(ranking.reason()).isEqualTo("lowest estimated time to first token");
    assertThat(ranking.versusRunnerUp()).contains(" vs " + id(others().get(0)) + ": ");
  }

  @Test
  void aReplicaOverTheCapOnlyAsGoodAsTheBestWithinItIsNoReasonToMentionTheCap() {
    // Both homes busy with this client's own work (1 s each, within the cap); of the other two,
    // one is over the cap and one within, at equal estimates.
    picker.states[home].add(load.now, 1_000_000_000L, true);
    picker.states[systemHome].add(load.now, 1_000_000_000L, true);
    int over = others().get(0);
    load.awaiting[over] = 10;
    load.ageNanos[over] = 5_000_000_000L;
    CacheAwareRanking ranking = rank();
    assertThat(ranking.next()).isEqualTo(others().get(1));
    assertThat(ranking.reason()).isEqualTo("lowest estimated time to first token");
  }

  @Test
  void blocksSentLongAgoAndFoundMostlyMissingShortenTheSlotsHorizon() {
    CacheAwareRanking warm = rank();
    warm.next();
    warm.sent(home, load.now, true).completed(1024, -1, load.now);
    double r = picker.memory.calibration.tokenRatio();
    // Ten seconds on, the same prompt: the index holds it on the home, 512 x r real tokens.
    load.now += 10_000_000_000L;
    CacheAwareRanking again = rank();
    again.next();
    int before = picker.memory.horizon(picker.states[home].slot);
    // 410 cached is under 80% of 537.6: a miss at age 10 s pulls the horizon a quarter of the way
    // down to it.
    again.sent(home, load.now, true).completed(538, 410, load.now);
    int age = PrefixIndex.tick(load.now) - PrefixIndex.tick(load.now - 10_000_000_000L);
    assertThat(r).isCloseTo(1.05, within(1e-12));
    assertThat(picker.memory.horizon(picker.states[home].slot))
        .isEqualTo((int) (before - FleetMemory.HORIZON_STEP * (before - age)));
  }

  @Test
  void theSystemHomeIsJudgedInRealTokens() {
    CacheAwareRanking warm = rank();
    warm.next();
    warm.sent(home, load.now, true).completed(1024, -1, load.now);
    double r = picker.memory.calibration.tokenRatio();
    CacheAwareRanking ranking = rank();
    ranking.next();
    ranking.next();
    // 200 real tokens cached of the system prompt's 256 x r.
    ranking.sent(systemHome, load.now, true).completed(538, 200, load.now);
    assertThat(picker.states[systemHome].systemConfidence)
        .isCloseTo(0.5 + 0.1 * (200 / (256 * r) - 0.5), within(1e-9));
  }

  /** A load view whose reports, report ages and clock a test sets. */
  @Test
  void aReplicaWhoseKvMemoryIsFullLosesALongPromptToOneThatHoldsLessOfIt() {
    answeredWholeFromHome();
    Arrays.fill(load.kvCapacity, 1_000);
    Arrays.fill(load.kvUsage, 0.1);
    // The home holds all 512 tokens, but its running requests hold 900 of its 1,000: the prompt
    // waits for 412 tokens' worth of them to end, 412/900 of a typical run (2 s, one step towards
    // the 71.2 ms the first answer ran past its expected 28.8 ms prefill).
    double run = 2 + 0.05 * (0.1 - 0.0288 - 2);
    load.kvUsage[home] = 0.9;
    CacheAwareRanking full = rank();
    assertThat(full.next()).isNotEqualTo(home);
    assertThat(nextUntil(full, home)).as("the home ranks last of four").isEqualTo(2);
    assertThat(full.versusRunnerUp()).isEqualTo("only replica left: " + id(home)
        + ": estimated TTFT 0.871 s (wait 0.000 s + 0.871 s for KV memory, 512 of 512 prompt"
        + " tokens cached: index)");
    assertThat(full.estimatedWaitSeconds()).isCloseTo(run * 412 / 900.0, within(1e-9));

    // The same report a fifth of a run old: 720 tokens still held, 232 in excess.
    load.ageNanos[home] = Math.round(run * 0.2e9);
    CacheAwareRanking older = rank();
    nextUntil(older, home);
    assertThat(older.estimatedWaitSeconds()).isCloseTo(run * 232 / 720.0, within(1e-6));

    // A run old, what the report saw running has ended: the cached prefix keeps it home.
    load.ageNanos[home] = Math.round(run * 1e9);
    CacheAwareRanking ended = rank();
    assertThat(ended.next()).isEqualTo(home);
    assertThat(ended.versusRunnerUp()).doesNotContain("KV memory");

    // With room for the prompt beside what runs there, the same.
    load.ageNanos[home] = 0;
    load.kvUsage[home] = 0.4;
    CacheAwareRanking room = rank();
    assertThat(room.next()).isEqualTo(home);
    assertThat(room.versusRunnerUp()).doesNotContain("KV memory");
  }

  @Test
  void aFullReplicaWalkedAfterTheBestTwoIsStillPricedForItsMemory() {
    // The prompt is held by a replica other than the homes, so the walk from the conversation
    // home has a best and a runner-up before it reaches it.
    int holder = others().get(others().size() - 1);
    CacheAwareRanking first = rank();
    first.next();
    first.sent(holder, load.now, false).completed(512, 0, load.now + 100_000_000L);
    load.now += 200_000_000L;
    CacheAwareRanking free = rank();
    assertThat(free.next()).as("with memory to spare the holder wins").isEqualTo(holder);

    Arrays.fill(load.kvCapacity, 1_000);
    Arrays.fill(load.kvUsage, 0.1);
    load.kvUsage[holder] = 0.9;
    CacheAwareRanking full = rank();
    assertThat(full.next()).isNotEqualTo(holder);
    assertThat(nextUntil(full, holder)).as("the holder ranks last of four").isEqualTo(2);
  }

  @Test
  void thisClientsUnfinishedRequestsCountAsHeldMemoryUntilTheyEnd() {
    Arrays.fill(load.kvCapacity, 800);
    CacheAwareRanking first = rank();
    assertThat(first.next()).isEqualTo(home);
    RoutedAttempt attempt = first.sent(home, load.now, true);
    attempt.firstToken(load.now + 50_000_000L);
    assertThat(picker.states[home].activeTokens.get()).isEqualTo(512);
    load.now += 100_000_000L;
    // No usage reported: this client's own 512 tokens and 512 more exceed 800 by 224.
    CacheAwareRanking second = rank();
    assertThat(second.next()).isNotEqualTo(home);
    nextUntil(second, home);
    assertThat(second.versusRunnerUp()).contains(id(home) + ": estimated TTFT")
        .contains("+ 0.875 s for KV memory");

    attempt.completed(512, 0, load.now);
    assertThat(picker.states[home].activeTokens.get()).isZero();
    // The stream ran 50 ms from its first token: one sample towards it.
    assertThat(picker.memory.calibration.runSeconds()).isCloseTo(2 + 0.05 * (0.05 - 2),
        within(1e-9));
    CacheAwareRanking third = rank();
    assertThat(third.next()).isEqualTo(home);
    assertThat(third.versusRunnerUp()).doesNotContain("KV memory");
  }

  @Test
  void aFailedAttemptReleasesItsMemoryOnceAndAnUnknownCapacityChargesNone() {
    CacheAwareRanking first = rank();
    first.next();
    RoutedAttempt attempt = first.sent(home, load.now, false);
    assertThat(picker.states[home].activeTokens.get()).isEqualTo(512);
    // Capacity unknown: what this client holds there costs nothing.
    CacheAwareRanking unknown = rank();
    assertThat(unknown.next()).isEqualTo(home);
    attempt.failed(load.now);
    attempt.failed(load.now);
    attempt.completed(512, 0, load.now);
    assertThat(picker.states[home].activeTokens.get()).isZero();
  }

  @Test
  void predictedCachedTokensNeverExceedTheReplicasCapacity() {
    answeredWholeFromHome();
    load.kvCapacity[home] = 300;
    load.kvUsage[home] = 0.0;
    CacheAwareRanking ranking = rank();
    nextUntil(ranking, home);
    assertThat(ranking.predictedCachedTokens()).isEqualTo(300);
    assertThat(ranking.versusRunnerUp()).contains("300 of 512 prompt tokens cached: index");
  }

  @Test
  void aReplicaRunningAllItCanIsChargedTheWaitForRunsToEnd() {
    // The home runs 4 at once, as its reports showed, and reports 4 running and 1 waiting: the
    // request waits for 2 of them to end, ends spread over a typical run (2 s): 2 × 2 / 4 s.
    load.concurrency[home] = 4;
    load.reportedLoad[home] = 5;
    CacheAwareRanking ranking = rank();
    assertThat(ranking.next()).isEqualTo(systemHome);
    assertThat(nextUntil(ranking, home)).as("ranked last").isEqualTo(2);
    assertThat(ranking.estimatedWaitSeconds()).isCloseTo(1.0, within(1e-9));
    // The fleet is now found busy (a mean 0.25 s, 2.5 typical prefills): λ = 2.5, so the home's
    // 144 tokens to prefill weigh 3.5 × 0.0144 s.
    assertThat(ranking.versusRunnerUp()).startsWith("only replica left: " + id(home)
        + ": estimated TTFT 1.050 s (wait 0.000 s + 1.000 s for a place to run, 224 of 512");
    // Reported 0.5 s ago: runs have ended since, 0.5 s of the 1 s.
    load.ageNanos[home] = 500_000_000L;
    CacheAwareRanking later = rank();
    nextUntil(later, home);
    assertThat(later.estimatedWaitSeconds()).isCloseTo(0.5, within(1e-9));
  }

  @Test
  void aReplicaWithAPlaceToRunIsNotCharged() {
    // Its own requests in flight count if it reports fewer: 3 in flight, a limit of 4.
    load.concurrency[home] = 4;
    load.reportedLoad[home] = 0;
    load.inFlight[home] = 3;
    CacheAwareRanking ranking = rank();
    assertThat(ranking.next()).isEqualTo(home);
    assertThat(ranking.estimatedWaitSeconds()).isZero();
    // A fourth one of its own: the request would be the fifth, and waits for one run of four.
    load.inFlight[home] = 4;
    CacheAwareRanking busy = rank();
    assertThat(busy.next()).isEqualTo(systemHome);
    nextUntil(busy, home);
    assertThat(busy.estimatedWaitSeconds()).isCloseTo(0.5, within(1e-9));
  }

  @Test
  void waitsForAPlaceToRunCountInHowBusyTheFleetIs() {
    // Every replica full with 3 more ahead: 2 s each, so even the least busy has more than the
    // 2 s that make an overload, and the ring homes are trusted fully.
    for (int i = 0; i < 4; i++) {
      load.concurrency[i] = 2;
      load.reportedLoad[i] = 4;
    }
    rank().next(); // the decision that finds the fleet busy
    CacheAwareRanking ranking = rank();
    assertThat(ranking.next()).isEqualTo(home);
    assertThat(ranking.versusRunnerUp()).contains("overload");
    assertThat(ranking.predictedCachedTokens()).isEqualTo(448);
  }

  @Test
  void aNewConversationBehindAPopularSharedPrefixGoesHomeAndCopiesThePrefixThere() {
    // One client whose conversations are all its own: the home gets no foreign discount.
    for (int k = 0; k < 200; k++) picker.memory.calibration.continued(true);
    sendBehindTheSystemPromptTo(systemHome, 3, 10);
    CacheAwareRanking ranking = rank();
    // The system-prompt home holds the shared 256 tokens by the index; the home is priced as if
    // it held them too: they are a one-time copy there, the conversation lives at its home.
    assertThat(ranking.next()).isEqualTo(home);
    assertThat(ranking.versusRunnerUp()).startsWith(id(home) + ": estimated TTFT 0.026 s (wait"
        + " 0.000 s, 224 of 512 prompt tokens cached: conversation home; 32 more of the shared"
        + " prefix, a one-time copy) vs " + id(systemHome) + ": estimated TTFT 0.026 s");
  }

  @Test
  void aNewConversationBehindARareSharedPrefixStaysWhereThePrefixIsCached() {
    for (int k = 0; k < 200; k++) picker.memory.calibration.continued(true);
    sendBehindTheSystemPromptTo(systemHome, 3, 10);
    // Then 20 requests behind other prompts, 10 ms apart: the fixture's system prompt was last
    // sent 200 ms ago, more than once in the 4 requests that would make it a replica's share.
    for (int k = 0; k < 20; k++) {
      load.now += 10_000_000L;
      send(RoutingRequest.builder(MODEL).message("system", "t".repeat(1024))
          .message("user", String.format("%04d", 2000 + k).repeat(256)).build(), (k + 1) % 4);
    }
    load.now += 10_000_000L;
    CacheAwareRanking ranking = rank();
    assertThat(ranking.next()).isEqualTo(systemHome);
    assertThat(ranking.versusRunnerUp()).doesNotContain("one-time copy");
  }

  @Test
  void promptsThatComeBackUnchangedAreNotConversationsWorthACopy() {
    for (int k = 0; k < 200; k++) picker.memory.calibration.continued(true);
    sendBehindTheSystemPromptTo(systemHome, 3, 10);
    // The same three questions asked again and again: nothing grows behind the shared prefix.
    for (int round = 0; round < 30; round++) sendBehindTheSystemPromptTo(systemHome, 3, 10);
    assertThat(picker.memory.calibration.growingShare()).isLessThan(0.02);
    CacheAwareRanking ranking = rank();
    assertThat(ranking.next()).isEqualTo(systemHome);
    assertThat(ranking.versusRunnerUp()).doesNotContain("one-time copy");
  }

  /**
   * Sends {@code n} other questions behind the fixture's system prompt to {@code replica}, {@code
   * millis} apart, each answered at once, and moves the clock {@code millis} on after the last.
   */
  private void sendBehindTheSystemPromptTo(int replica, int n, int millis) {
    for (int k = 0; k < n; k++) {
      send(withSystem(String.format("%04d", 1000 + k).repeat(256)), replica);
      load.now += millis * 1_000_000L;
    }
  }

  /** Ranks {@code r} and sends it to {@code replica}, its stream answered at once. */
  private void send(RoutingRequest r, int replica) {
    CacheAwareRanking ranking = (CacheAwareRanking) picker.rank(r, load);
    ranking.next();
    RoutedAttempt attempt = ranking.sent(replica, load.now, true);
    attempt.firstToken(load.now);
    attempt.completed(-1, -1, load.now);
  }

  /**
   * Sends the fixture's request to its home, answered whole 100 ms later with nothing cached (its
   * 512 tokens now in the index there), and moves the clock 200 ms on.
   */
  private void answeredWholeFromHome() {
    CacheAwareRanking first = rank();
    first.next();
    first.sent(home, load.now, false).completed(512, 0, load.now + 100_000_000L);
    load.now += 200_000_000L;
  }

  /** Takes replicas from {@code ranking} until {@code replica}; returns how many came before it. */
  private static int nextUntil(CacheAwareRanking ranking, int replica) {
    for (int k = 0; k < 4; k++) {
      if (ranking.next() == replica) return k;
    }
    throw new AssertionError("replica " + replica + " never ranked");
  }

  static final class ScriptedLoad implements LoadView {
    final int[] inFlight;
    final int[] awaiting;
    final long[] ageNanos;
    final double[] queueWait;
    final long[] kvCapacity;
    final double[] kvUsage;
    final int[] concurrency;
    final int[] reportedLoad;
    long now = 1_000_000_000L;

    ScriptedLoad(int n) {
      inFlight = new int[n];
      awaiting = new int[n];
      ageNanos = new long[n];
      queueWait = new double[n];
      Arrays.fill(queueWait, Double.NaN);
      kvCapacity = new long[n];
      Arrays.fill(kvCapacity, -1);
      kvUsage = new double[n];
      Arrays.fill(kvUsage, Double.NaN);
      concurrency = new int[n];
      Arrays.fill(concurrency, -1);
      reportedLoad = new int[n];
      Arrays.fill(reportedLoad, -1);
    }

    @Override
    public int concurrency(int index, long now) {
      return concurrency[index];
    }

    @Override
    public int reportedLoad(int index, long now) {
      return reportedLoad[index];
    }

    @Override
    public long kvCapacityTokens(int index) {
      return kvCapacity[index];
    }

    @Override
    public double kvUsage(int index) {
      return kvUsage[index];
    }

    @Override
    public double queueWait(int index, long now) {
      return queueWait[index];
    }

    @Override
    public int inFlight(int index) {
      return inFlight[index];
    }

    @Override
    public long totalInFlight() {
      return Arrays.stream(inFlight).sum();
    }

    @Override
    public int awaitingFirstToken(int index, long now) {
      return awaiting[index];
    }

    @Override
    public long reportAgeNanos(int index, long now) {
      return ageNanos[index];
    }

    @Override
    public long nanoTime() {
      return now;
    }
  }
}
