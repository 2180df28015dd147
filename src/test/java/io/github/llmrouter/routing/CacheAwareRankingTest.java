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
  private RoutingRequest request;
  private int home;
  private int systemHome;

  @BeforeEach
  void setUp() {
    picker = (CacheAware.Picker) CacheAware.builder().build().newPicker(fleet);
    // A question whose conversation home and system-prompt home differ (the ring decides both).
    for (int q = 0; ; q++) {
      request = RoutingRequest.builder(MODEL).message("system", SYSTEM)
          .message("user", String.format("%04d", q).repeat(256)).build();
      PromptBlocks blocks = request.blocks(CacheAware.DEFAULT_BLOCK_CHARS);
      home = picker.home(blocks.hash(4));
      systemHome = picker.home(blocks.hash(3));
      if (home != systemHome) break;
    }
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
    // is charged: 144 / 10,000 s. System home: (512 - 128) / 10,000 s.
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
    assertThat(ranking.versusRunnerUp()).isEqualTo("r0: estimated TTFT 0.017 s (wait 0.000 s,"
        + " 480 of 1000 prompt tokens cached: conversation home) vs r1: estimated TTFT 0.200 s"
        + " (wait 0.000 s, 0 of 1000 prompt tokens cached: none) (λ 0.00)");
  }

  /** A load view whose reports, report ages and clock a test sets. */
  static final class ScriptedLoad implements LoadView {
    final int[] inFlight;
    final int[] awaiting;
    final long[] ageNanos;
    long now = 1_000_000_000L;

    ScriptedLoad(int n) {
      inFlight = new int[n];
      awaiting = new int[n];
      ageNanos = new long[n];
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
