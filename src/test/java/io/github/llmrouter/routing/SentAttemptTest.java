package io.github.llmrouter.routing;

import static io.github.llmrouter.routing.Fleets.fleet;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import org.junit.jupiter.api.Test;

/**
 * SentAttempt: what an answer teaches the fleet memory (calibration, ring confidences, cache
 * horizon, restarts) against what the attempt expected, and the work ahead it takes back.
 */
class SentAttemptTest {
  private static final long SENT = 10_000_000_000L;
  /** The attempt's expected prefill: 0.1 s. */
  private static final long PREFILL = 100_000_000L;
  private static final double EXPECTED_UNCACHED = 800;

  private final FleetMemory memory = new FleetMemory(1024);
  /** Replica 0 of a fleet of 2: slot 0. */
  private final ReplicaState state = memory.statesFor(fleet(2))[0];

  /** An attempt to send; the defaults: streamed, nothing ahead, no index or ring prediction. */
  private final class Send {
    private ReplicaState on = state;
    private long sentNanos = SENT;
    private boolean streamed = true;
    private double waited;
    private double weight = 1;
    private double indexTokens;
    private int indexAge = -1;
    private double conversationTokens;
    private double sharedTokens;
    private double systemTokens;
    private boolean conversationKnown;

    Send on(ReplicaState s) {
      on = s;
      return this;
    }

    Send at(long nanos) {
      sentNanos = nanos;
      return this;
    }

    Send whole() {
      streamed = false;
      return this;
    }

    Send waited(double seconds) {
      waited = seconds;
      return this;
    }

    Send weight(double w) {
      weight = w;
      return this;
    }

    /** The index predicted {@code tokens} cached there, from blocks last sent {@code age} ago. */
    Send index(double tokens, int age) {
      indexTokens = tokens;
      indexAge = age;
      return this;
    }

    /** The ring predicted a conversation of {@code tokens}, {@code shared} of them shared. */
    Send conversation(double tokens, double shared, boolean known) {
      conversationTokens = tokens;
      sharedTokens = shared;
      conversationKnown = known;
      return this;
    }

    Send shared(double tokens) {
      sharedTokens = tokens;
      return this;
    }

    Send system(double tokens) {
      systemTokens = tokens;
      return this;
    }

    /** Sends it as {@link CacheAwareRanking#sent} does: counted in the replica's work first. */
    SentAttempt send() {
      on.add(sentNanos, PREFILL, streamed);
      on.activeTokens.addAndGet(1000);
      return new SentAttempt(memory, on, streamed, 1000, sentNanos, PREFILL, EXPECTED_UNCACHED,
          waited, weight, indexTokens, indexAge, conversationTokens, sharedTokens, systemTokens,
          conversationKnown, 1000);
    }
  }

  private Send attempt() {
    return new Send();
  }

  private Calibration calibration() {
    return memory.calibration;
  }

  @Test
  void aStreamTakesItsPrefillOutOfTheWorkAheadAtItsFirstTokenOnly() {
    SentAttempt a = attempt().send();
    assertThat(state.awaiting.get()).isEqualTo(1);
    assertThat(state.ownWait(SENT)).isCloseTo(0.1, within(1e-12));

    a.firstToken(SENT + 50_000_000L);
    assertThat(state.awaiting.get()).isZero();
    assertThat(state.ownWait(SENT)).isZero();

    a.firstToken(SENT + 60_000_000L);
    a.completed(2000, 0, SENT + 90_000_000L);
    assertThat(state.awaiting.get()).as("taken out once").isZero();
    assertThat(state.ownWait(SENT)).isZero();
  }

  @Test
  void anAttemptWithoutAFirstTokenTakesItsPrefillOutWhenItCompletes() {
    attempt().send().completed(2000, 0, SENT + 90_000_000L);
    assertThat(state.awaiting.get()).isZero();
    assertThat(state.ownWait(SENT)).isZero();
  }

  @Test
  void aFailedAttemptTakesItsPrefillOutOnce() {
    SentAttempt beforeFirstToken = attempt().send();
    beforeFirstToken.failed(SENT + 1);
    assertThat(state.awaiting.get()).isZero();
    assertThat(state.ownWait(SENT)).isZero();

    SentAttempt afterFirstToken = attempt().send();
    afterFirstToken.firstToken(SENT + 2);
    afterFirstToken.failed(SENT + 3);
    assertThat(state.awaiting.get()).isZero();
    assertThat(state.ownWait(SENT)).isZero();
  }

  @Test
  void onlyTheFirstOutcomeCounts() {
    SentAttempt completedTwice = attempt().send();
    completedTwice.completed(2000, 0, SENT + 1);
    completedTwice.completed(2000, 0, SENT + 2);
    completedTwice.failed(SENT + 3);
    completedTwice.firstToken(SENT + 4);
    assertThat(state.awaiting.get()).isZero();
    assertThat(state.activeTokens.get()).as("released once").isZero();
    assertThat(calibration().tokenRatio()).as("one step towards 2").isCloseTo(1.05, within(1e-12));

    SentAttempt failedFirst = attempt().send();
    failedFirst.failed(SENT + 5);
    failedFirst.completed(2000, 0, SENT + 6);
    failedFirst.failed(SENT + 7);
    failedFirst.firstToken(SENT + 8);
    assertThat(state.awaiting.get()).isZero();
    assertThat(state.activeTokens.get()).as("released once").isZero();
    assertThat(calibration().tokenRatio()).isCloseTo(1.05, within(1e-12));
  }

  @Test
  void anAttemptHoldsItsPromptsMemoryUntilItEnds() {
    SentAttempt a = attempt().send();
    SentAttempt b = attempt().send();
    assertThat(state.activeTokens.get()).isEqualTo(2000);
    a.firstToken(SENT + 1);
    assertThat(state.activeTokens.get()).as("a first token frees nothing").isEqualTo(2000);
    a.completed(2000, 0, SENT + 2);
    assertThat(state.activeTokens.get()).isEqualTo(1000);
    b.failed(SENT + 3);
    assertThat(state.activeTokens.get()).isZero();
  }

  @Test
  void aStreamTeachesItsRunFromItsFirstTokenAWholeAnswerFromItsExpectedPrefill() {
    SentAttempt stream = attempt().send();
    stream.firstToken(SENT + 500_000_000L);
    stream.completed(2000, 0, SENT + 1_500_000_000L);
    double afterStream = 2 + 0.05 * (1.0 - 2);
    assertThat(calibration().runSeconds()).isCloseTo(afterStream, within(1e-12));

    // Whole: 1.5 s in all, less 0.2 s expected wait and the 0.1 s prefill.
    attempt().whole().waited(0.2).send().completed(2000, 0, SENT + 1_500_000_000L);
    assertThat(calibration().runSeconds())
        .isCloseTo(afterStream + 0.05 * (1.2 - afterStream), within(1e-12));
  }

  @Test
  void aFirstTokenAtANegativeTickerReadingCountsLikeAnyOther() {
    // A ticker's origin is arbitrary (System.nanoTime may read negative).
    long sent = -5_000_000_000L;
    SentAttempt a = attempt().at(sent).send();
    a.firstToken(sent + 1_000_000_000L);
    a.firstToken(sent + 2_000_000_000L);
    a.completed(20_000, 0, sent + 3_000_000_000L);
    assertThat(state.awaiting.get()).isZero();
    assertThat(state.ownWait(sent)).isZero();
    assertThat(calibration().prefillRate()).isEqualTo(rateAfterOnePrefill(20_000, 1.0, 1));
  }

  @Test
  void theReportedPromptTokensCalibrateTheTokenRatio() {
    attempt().send().completed(3000, -1, SENT + 1);
    assertThat(calibration().tokenRatio()).as("estimated 1000").isCloseTo(1.1, within(1e-12));
  }

  @Test
  void theUncachedTokensAreThePromptLessTheCached() {
    attempt().send().completed(2000, 500, SENT + 1);
    assertThat(calibration().typicalUncached()).isCloseTo(1000 + 0.05 * (1500 - 1000),
        within(1e-9));
  }

  @Test
  void moreCachedThanPromptTokensLeaveNothingUncached() {
    attempt().send().completed(2000, 2500, SENT + 1);
    assertThat(calibration().typicalUncached()).isCloseTo(950, within(1e-9));
  }

  @Test
  void anAnswerThatDoesNotSayWhatWasCachedTeachesOnlyWhatTheAttemptExpected() {
    long[][] answers = {{2000, -1}, {0, 0}, {-1, 300}};
    double uncached = Calibration.INITIAL_UNCACHED_TOKENS;
    for (int k = 0; k < answers.length; k++) {
      attempt().conversation(3000, 0, false).system(1000)
          .index(2000, FleetMemory.SETTLED).send()
          .completed(answers[k][0], answers[k][1], SENT + 1);
      uncached += 0.05 * (EXPECTED_UNCACHED - uncached);
      assertThat(calibration().typicalUncached()).as("answer %d", k)
          .isCloseTo(uncached, within(1e-9));
    }
    assertThat(state.conversationConfidence).isEqualTo(ReplicaState.INITIAL_CONFIDENCE);
    assertThat(state.systemConfidence).isEqualTo(ReplicaState.INITIAL_CONFIDENCE);
    assertThat(calibration().foreignShare()).isEqualTo(0.5);
    assertThat(memory.horizon(0)).isEqualTo(FleetMemory.INITIAL_HORIZON);
  }

  @Test
  void aStreamWithNothingAheadSamplesThePrefillRatePerUnitOfWeight() {
    streamOneSecondToFirstToken(attempt().weight(2), 25_000, 5_000);
    assertThat(calibration().prefillRate()).isEqualTo(rateAfterOnePrefill(20_000, 1.0, 2));
  }

  @Test
  void aWaitOfUpToATenthOfItsOwnPrefillStillCountsAsNothingAhead() {
    streamOneSecondToFirstToken(attempt().waited(0.01), 20_000, 0);
    assertThat(calibration().prefillRate()).isEqualTo(rateAfterOnePrefill(20_000, 1.0, 1));
  }

  @Test
  void aStreamThatWaitedBehindOtherWorkIsNoPrefillSample() {
    streamOneSecondToFirstToken(attempt().waited(0.02), 20_000, 0);
    assertThat(calibration().prefillRate())
        .isEqualTo(Calibration.INITIAL_PREFILL_TOKENS_PER_SECOND);
  }

  /** Sends {@code s}, its first token 1 s later, its answer with these token counts 2 s after. */
  private static void streamOneSecondToFirstToken(Send s, long promptTokens, long cachedTokens) {
    SentAttempt a = s.send();
    a.firstToken(s.sentNanos + 1_000_000_000L);
    a.completed(promptTokens, cachedTokens, s.sentNanos + 3_000_000_000L);
  }

  /** The rate a fresh calibration learns from one prefill sample. */
  private static double rateAfterOnePrefill(double tokens, double seconds, double weight) {
    Calibration c = new Calibration();
    c.prefill(tokens, seconds, weight);
    return c.prefillRate();
  }

  @Test
  void anAnswerWithoutAFirstTokenIsNoPrefillSample() {
    attempt().whole().send().completed(20_000, 0, SENT + 3_000_000_000L);
    assertThat(calibration().prefillRate())
        .isEqualTo(Calibration.INITIAL_PREFILL_TOKENS_PER_SECOND);
  }

  @Test
  void moreThanTheSharedPrefixCachedIsAContinuedConversationKnownOrNot() {
    attempt().shared(1000).send().completed(3000, 1001, SENT + 1);
    assertThat(calibration().foreignShare()).as("the shared prefix and a token").isEqualTo(0.5);

    attempt().shared(1000).conversation(0, 1000, false).send().completed(3000, 1002, SENT + 2);
    assertThat(calibration().foreignShare()).isCloseTo(0.525, within(1e-12));

    attempt().shared(1000).conversation(0, 1000, true).send().completed(3000, 1002, SENT + 3);
    assertThat(calibration().foreignShare()).isCloseTo(0.525 - 0.05 * 0.525, within(1e-12));
  }

  @Test
  void theConversationConfidenceLearnsTheShareOfTheConversationPastItsSharedPrefixCached() {
    // Of 2,000 tokens past a 1,000-token shared prefix, 500 were cached: a sample of 0.25.
    attempt().conversation(3000, 1000, false).send().completed(3000, 1500, SENT + 1);
    assertThat(state.conversationConfidence).isCloseTo(0.5 + 0.1 * (0.25 - 0.5), within(1e-12));
  }

  @Test
  void theConversationSampleIsBetweenNothingAndAll() {
    ReplicaState[] s = memory.statesFor(fleet(4));
    attempt().on(s[2]).conversation(3000, 1000, false).send().completed(6000, 5000, SENT + 1);
    assertThat(s[2].conversationConfidence).isCloseTo(0.5 + 0.1 * 0.5, within(1e-12));
    attempt().on(s[3]).conversation(3000, 1000, false).send().completed(3000, 500, SENT + 1);
    assertThat(s[3].conversationConfidence).isCloseTo(0.5 - 0.1 * 0.5, within(1e-12));
  }

  @Test
  void noConversationPastTheSharedPrefixTeachesNoConversationConfidence() {
    attempt().conversation(1000, 1000, false).send().completed(3000, 1000, SENT + 1);
    attempt().conversation(1000, 1000, false).send().completed(3000, 3000, SENT + 1);
    assertThat(state.conversationConfidence).isEqualTo(ReplicaState.INITIAL_CONFIDENCE);
  }

  @Test
  void theSystemConfidenceLearnsTheShareOfTheSystemPromptCached() {
    ReplicaState[] s = memory.statesFor(fleet(4));
    attempt().on(s[0]).system(2000).send().completed(3000, 500, SENT + 1);
    assertThat(s[0].systemConfidence).isCloseTo(0.5 + 0.1 * (0.25 - 0.5), within(1e-12));
    attempt().on(s[1]).system(2000).send().completed(3000, 3000, SENT + 1);
    assertThat(s[1].systemConfidence).as("at most all of it").isCloseTo(0.55, within(1e-12));
  }

  @Test
  void noSystemPromptPredictedTeachesNoSystemConfidence() {
    attempt().send().completed(3000, 0, SENT + 1);
    attempt().send().completed(3000, 1000, SENT + 1);
    assertThat(state.systemConfidence).isEqualTo(ReplicaState.INITIAL_CONFIDENCE);
  }

  @Test
  void aHitOnBlocksNearTheHorizonPushesItOut() {
    // 80% of the predicted tokens cached is a hit; blocks older than half the horizon.
    attempt().index(1000, 400_000).send().completed(3000, 800, SENT + 1);
    assertThat(memory.horizon(0)).isEqualTo((int) (FleetMemory.INITIAL_HORIZON * 1.25));
  }

  @Test
  void aMissOnSettledBlocksPullsTheHorizonInAndResetsTheSlot() {
    // Less than 80% cached is a miss; blocks sent 5 s ago, well within the horizon, with nothing
    // cached: the replica lost its cache.
    attempt().index(1000, FleetMemory.SETTLED).send().completed(3000, 0, SENT);
    int h = FleetMemory.INITIAL_HORIZON;
    assertThat(memory.horizon(0)).isEqualTo((int) (h - 0.25 * (h - FleetMemory.SETTLED)));
    int now = PrefixIndex.tick(SENT);
    assertThat(memory.validAt(now, 0) & 1L).as("blocks recorded up to now").isZero();
    assertThat(memory.validAt(now + 1, 0)).as("blocks recorded since").isEqualTo(0b11L);
  }

  @Test
  void aPartialHitIsAMissButNoRestart() {
    attempt().index(1000, FleetMemory.SETTLED).send().completed(3000, 799, SENT);
    int h = FleetMemory.INITIAL_HORIZON;
    assertThat(memory.horizon(0)).isEqualTo((int) (h - 0.25 * (h - FleetMemory.SETTLED)));
    assertThat(memory.validAt(PrefixIndex.tick(SENT), 0)).isEqualTo(0b11L);
  }

  @Test
  void nothingCachedOfBlocksHalfTheHorizonOldIsEvictionNotARestart() {
    // The miss lowers the horizon to 490,460 ticks, twice the age of these blocks.
    attempt().index(1000, 245_230).send().completed(3000, 0, SENT);
    assertThat(memory.horizon(0)).isEqualTo(490_460);
    assertThat(memory.validAt(PrefixIndex.tick(SENT), 0)).isEqualTo(0b11L);

    // A tick younger (on replica 1, whose horizon is still the initial one): a restart.
    ReplicaState other = memory.statesFor(fleet(2))[1];
    attempt().on(other).index(1000, 245_229).send().completed(3000, 0, SENT);
    assertThat(memory.horizon(1)).isEqualTo(490_460);
    assertThat(memory.validAt(PrefixIndex.tick(SENT), 0)).isEqualTo(0b01L);
  }

  @Test
  void blocksSentMomentsAgoTeachNothingOfTheHorizon() {
    attempt().index(1000, FleetMemory.SETTLED - 1).send().completed(3000, 0, SENT);
    assertThat(memory.horizon(0)).isEqualTo(FleetMemory.INITIAL_HORIZON);
    assertThat(memory.validAt(PrefixIndex.tick(SENT), 0)).isEqualTo(0b11L);
  }

  @Test
  void noIndexPredictionTeachesNothingOfTheHorizon() {
    attempt().index(0, FleetMemory.SETTLED).send().completed(3000, 0, SENT);
    assertThat(memory.horizon(0)).isEqualTo(FleetMemory.INITIAL_HORIZON);
    assertThat(memory.validAt(PrefixIndex.tick(SENT), 0)).as("no restart").isEqualTo(0b11L);
  }

  @Test
  void aReplicaWithoutASlotLearnsItsConfidencesAndNoHorizon() {
    ReplicaState slotless = new ReplicaState(-1);
    attempt().on(slotless).system(2000).index(1000, FleetMemory.SETTLED).send()
        .completed(3000, 0, SENT);
    assertThat(slotless.systemConfidence).isCloseTo(0.45, within(1e-12));
    assertThat(memory.horizon(0)).isEqualTo(FleetMemory.INITIAL_HORIZON);
    assertThat(memory.validAt(PrefixIndex.tick(SENT), 0)).isEqualTo(0b11L);
  }
}
