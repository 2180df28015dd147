package io.github.llmrouter.routing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import org.junit.jupiter.api.Test;

/**
 * Calibration: each report moves an average one step (5%) towards it, and the prefill rate is a
 * decayed least-squares fit of time to first token against uncached tokens per unit of weight,
 * started by two pseudo-samples on the line {@code seconds = 0.01 + tokens / 10,000}.
 */
class CalibrationTest {
  private static final int[] SIZES = {500, 2_000, 4_000, 8_000, 16_000};

  private final Calibration calibration = new Calibration();

  @Test
  void startsFromTheInitialAssumptions() {
    assertThat(calibration.tokenRatio()).isEqualTo(1.0);
    assertThat(calibration.prefillRate()).isEqualTo(Calibration.INITIAL_PREFILL_TOKENS_PER_SECOND);
    assertThat(calibration.typicalUncached()).isEqualTo(Calibration.INITIAL_UNCACHED_TOKENS);
    assertThat(calibration.foreignShare()).isEqualTo(0.5);
  }

  @Test
  void promptsAreTakenAsConversationsUntilTheyComeBackUnchanged() {
    assertThat(calibration.growingShare()).isEqualTo(1.0);
    calibration.seenAgain(false);
    assertThat(calibration.growingShare()).isCloseTo(0.95, within(1e-12));
    calibration.seenAgain(true);
    assertThat(calibration.growingShare()).isCloseTo(0.95 + 0.05 * 0.05, within(1e-12));
  }

  @Test
  void eachReportedPromptMovesTheTokenRatioOneStepTowardsItsRatio() {
    calibration.promptTokens(300, 100);
    assertThat(calibration.tokenRatio()).isCloseTo(1 + 0.05 * (3 - 1), within(1e-12));
    calibration.promptTokens(300, 100);
    assertThat(calibration.tokenRatio()).isCloseTo(1.1 + 0.05 * (3 - 1.1), within(1e-12));
  }

  @Test
  void aRatioBeyondSixtyFourfoldEitherWayCountsAsSixtyFourfold() {
    calibration.promptTokens(1_000_000, 1);
    assertThat(calibration.tokenRatio()).isCloseTo(1 + 0.05 * (64 - 1), within(1e-12));

    Calibration other = new Calibration();
    other.promptTokens(1, 1_000_000);
    assertThat(other.tokenRatio()).isCloseTo(1 + 0.05 * (1.0 / 64 - 1), within(1e-12));
  }

  @Test
  void aReportWithoutPromptTokensOrWithoutAnEstimateLeavesTheTokenRatio() {
    calibration.promptTokens(0, 100);
    calibration.promptTokens(-1, 100);
    calibration.promptTokens(100, 0);
    calibration.promptTokens(100, -1);
    assertThat(calibration.tokenRatio()).isEqualTo(1.0);
  }

  @Test
  void eachUncachedReportMovesTheTypicalUncachedOneStepTowardsIt() {
    calibration.uncached(0);
    assertThat(calibration.typicalUncached()).isCloseTo(950, within(1e-9));
    calibration.uncached(3_000);
    assertThat(calibration.typicalUncached()).isCloseTo(950 + 0.05 * 2_050, within(1e-9));
  }

  @Test
  void eachRunMovesTheTypicalRunOneStepTowardsItAndAbsurdRunsAreIgnored() {
    assertThat(calibration.runSeconds()).isEqualTo(Calibration.INITIAL_RUN_SECONDS);
    calibration.ran(12);
    assertThat(calibration.runSeconds()).isCloseTo(2 + 0.05 * 10, within(1e-12));
    calibration.ran(-1);
    calibration.ran(Double.NaN);
    calibration.ran(Double.POSITIVE_INFINITY);
    calibration.ran(Calibration.MAX_RUN_SECONDS + 1);
    assertThat(calibration.runSeconds()).isCloseTo(2.5, within(1e-12));
    for (int i = 0; i < 10_000; i++) calibration.ran(Calibration.MAX_RUN_SECONDS);
    assertThat(calibration.runSeconds()).as("the longest run is a sample")
        .isCloseTo(Calibration.MAX_RUN_SECONDS, within(1e-6));
    // Answers that all end at their first token: the run never reaches 0.
    for (int i = 0; i < 20_000; i++) calibration.ran(0);
    assertThat(calibration.runSeconds()).isEqualTo(Calibration.MIN_RUN_SECONDS);
  }

  @Test
  void aNegativeUncachedReportIsIgnored() {
    calibration.uncached(-1);
    assertThat(calibration.typicalUncached()).isEqualTo(Calibration.INITIAL_UNCACHED_TOKENS);
  }

  @Test
  void theForeignShareMovesOneStepTowardsWhetherEachContinuedConversationWasUnknown() {
    calibration.continued(false);
    assertThat(calibration.foreignShare()).isCloseTo(0.525, within(1e-12));
    calibration.continued(true);
    assertThat(calibration.foreignShare()).isCloseTo(0.525 - 0.05 * 0.525, within(1e-12));
  }

  @Test
  void aClientThatSendsEveryTurnItselfHasAForeignShareNearZero() {
    for (int i = 0; i < 200; i++) calibration.continued(true);
    assertThat(calibration.foreignShare()).isCloseTo(0.5 * Math.pow(0.95, 200), within(1e-12));
  }

  /**
   * Prefills of {@link #SIZES} tokens per unit of weight on a replica of {@code weight}, each
   * taking {@code overhead} seconds plus its tokens at {@code rate} per unit of weight.
   */
  private void prefillsOnALine(int samples, double overhead, double rate, double weight) {
    for (int i = 0; i < samples; i++) {
      double tokens = weight * SIZES[i % SIZES.length];
      calibration.prefill(tokens, overhead + tokens / (rate * weight), weight);
    }
  }

  @Test
  void prefillsOnTheInitialLineKeepTheInitialRate() {
    prefillsOnALine(100, 0.01, 10_000, 1);
    assertThat(calibration.prefillRate()).isCloseTo(10_000, within(1e-6));
  }

  @Test
  void prefillsLearnTheRateOfAReplicaWhateverItsStepOverhead() {
    // A 50 ms overhead where the pseudo-samples say 10 ms: a fit that miscounted the samples
    // would mistake part of the overhead for per-token time.
    prefillsOnALine(1_500, 0.05, 40_000, 1);
    assertThat(calibration.prefillRate()).isCloseTo(40_000, within(1e-6));
  }

  @Test
  void theRateIsPerUnitOfReplicaWeight() {
    // A replica of weight 4 prefills 4 x 25,000 tokens per second.
    prefillsOnALine(1_500, 0.02, 25_000, 4);
    assertThat(calibration.prefillRate()).isCloseTo(25_000, within(1e-6));
  }

  @Test
  void oneSampleMovesTheRateToTheFitOfItAndTheDecayedPseudoSamples() {
    // Weights 0.98 on (0 tokens, 0.01 s) and (10,000, 1.01 s), 1 on the sample: the fit through
    // (20,000, 1 s) gives a slope of 4.9331e-5 s per token.
    calibration.prefill(20_000, 1.0, 1);
    assertThat(calibration.prefillRate()).isCloseTo(20_271.186440677968, within(1e-6));

    // The same prefill on a replica of weight 2 is 10,000 tokens per unit of weight.
    Calibration weighted = new Calibration();
    weighted.prefill(20_000, 4.0, 2);
    assertThat(weighted.prefillRate()).isCloseTo(3_983.9034205231405, within(1e-6));
  }

  @Test
  void aPrefillOfNoTokensIsASampleOfTheOverhead() {
    calibration.prefill(0, 0.5, 1);
    assertThat(calibration.prefillRate()).isCloseTo(13_288.590604026846, within(1e-6));
  }

  @Test
  void invalidPrefillsAreIgnoredAndDoNotSpoilLaterSamples() {
    calibration.prefill(-1, 1.0, 1);
    calibration.prefill(Double.NaN, 1.0, 1);
    calibration.prefill(20_000, 0, 1);
    calibration.prefill(20_000, -1, 1);
    calibration.prefill(20_000, 1.0, 0);
    calibration.prefill(20_000, 1.0, -1);
    assertThat(calibration.prefillRate()).isEqualTo(Calibration.INITIAL_PREFILL_TOKENS_PER_SECOND);

    Calibration fresh = new Calibration();
    calibration.prefill(20_000, 1.0, 1);
    fresh.prefill(20_000, 1.0, 1);
    assertThat(calibration.prefillRate()).isEqualTo(fresh.prefillRate());
  }

  @Test
  void prefillsAllOfOneSizeStopMovingTheRateOnceThePseudoSamplesHaveDecayed() {
    // One size cannot tell per-token time from overhead: the early samples move the rate while
    // the pseudo-samples still spread the sizes, then it stays where it was.
    calibration.prefill(3_000, 0.3, 1);
    assertThat(calibration.prefillRate()).isCloseTo(9_974.42455242967, within(1e-6));
    for (int i = 1; i < 500; i++) calibration.prefill(3_000, 0.3, 1);
    double settled = calibration.prefillRate();
    assertThat(settled).isCloseTo(9_931.693293158502, within(1e-6));
    for (int i = 0; i < 1_000; i++) calibration.prefill(3_000, 0.3, 1);
    assertThat(calibration.prefillRate()).isEqualTo(settled);
  }

  @Test
  void prefillsThatTakeLongerForFewerTokensLeaveTheRate() {
    // A negative slope (a cold cache on a short prompt, a warm one on a long one) is no rate.
    for (int i = 0; i < 10; i++) {
      calibration.prefill(0, 2.0, 1);
      calibration.prefill(20_000, 0.01, 1);
    }
    assertThat(calibration.prefillRate()).isEqualTo(Calibration.INITIAL_PREFILL_TOKENS_PER_SECOND);
  }

  @Test
  void prefillsThatTakeNoLongerForMoreTokensCapTheRate() {
    for (int i = 0; i < 1_000; i++) {
      calibration.prefill(0, 0.01, 1);
      calibration.prefill(20_000, 0.01, 1);
    }
    assertThat(calibration.prefillRate()).isEqualTo(1e9);
  }
}
