package io.github.llmrouter.routing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import org.junit.jupiter.api.Test;

/** ReplicaState's prefill clock: what this client's own requests still have to prefill there. */
class ReplicaStateTest {
  private static final long MS = 1_000_000L;

  private final ReplicaState state = new ReplicaState(0);

  @Test
  void wholeAnswersQueueTheirPrefillsAndDrainWithTime() {
    state.add(0, 10 * MS, false);
    state.add(0, 20 * MS, false);
    assertThat(state.ownWait(0)).isCloseTo(0.030, within(1e-12));
    assertThat(state.ownWait(25 * MS)).isCloseTo(0.005, within(1e-12));
    assertThat(state.ownWait(40 * MS)).isZero();
    assertThat(state.awaiting.get()).isEqualTo(2);
  }

  @Test
  void aWholeAnswerThatArrivedTakesItsPrefillOutAndTheRestMovesUp() {
    state.add(0, 10 * MS, false);
    state.add(0, 20 * MS, false);
    state.started(5 * MS, 10 * MS, false); // the first answer arrived after 5 ms
    assertThat(state.ownWait(5 * MS)).as("the second's 20 ms, 5 ms of it gone")
        .isCloseTo(0.015, within(1e-12));
    state.started(6 * MS, 20 * MS, false); // the second too: nothing is left to prefill
    assertThat(state.ownWait(6 * MS)).isZero();
    assertThat(state.awaiting.get()).isZero();
  }

  @Test
  void anAnswerAfterTheClockDrainedLeavesItAlone() {
    state.add(0, 10 * MS, false);
    state.started(50 * MS, 10 * MS, false);
    assertThat(state.ownWait(50 * MS)).isZero();
    state.add(60 * MS, 10 * MS, false);
    assertThat(state.ownWait(60 * MS)).as("a new request starts from now").isCloseTo(0.010,
        within(1e-12));
  }

  @Test
  void aStreamsPrefillStaysUntilItsFirstTokenWhateverTheTime() {
    state.add(0, 10 * MS, true);
    assertThat(state.ownWait(1_000 * MS)).isCloseTo(0.010, within(1e-12));
    state.started(1_000 * MS, 10 * MS, true);
    assertThat(state.ownWait(1_000 * MS)).isZero();
  }
}
