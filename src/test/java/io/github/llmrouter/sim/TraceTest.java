package io.github.llmrouter.sim;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;

class TraceTest {
  private static TraceRequest at(double t) {
    return new TraceRequest(t, 10, 10, new long[] {1}, null);
  }

  private final Trace trace = Trace.of(List.of(at(0), at(10), at(20), at(30)), 16);

  @Test
  void aWindowKeepsItsRequestsAndStartsAtZero() {
    Trace w = trace.window(10, 30);
    assertThat(w.requests()).extracting(TraceRequest::arrivalSeconds).containsExactly(0.0, 10.0);
    assertThat(w.blockTokens()).isEqualTo(16);
  }

  @Test
  void aRateMultiplierCompressesTime() {
    assertThat(trace.withRateMultiplier(2).requests()).extracting(TraceRequest::arrivalSeconds)
        .containsExactly(0.0, 5.0, 10.0, 15.0);
    assertThat(trace.withRateMultiplier(0.5).durationSeconds()).isEqualTo(60.0);
  }

  @Test
  void rejectsNonsense() {
    assertThatThrownBy(() -> trace.window(5, 5)).hasMessageContaining("0 <= from < to");
    assertThatThrownBy(() -> trace.withRateMultiplier(0)).hasMessageContaining("(0, 1000]");
    assertThatThrownBy(() -> Trace.of(List.of(), 0)).hasMessageContaining("blockTokens");
  }
}
