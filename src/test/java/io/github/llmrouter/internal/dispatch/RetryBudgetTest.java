package io.github.llmrouter.internal.dispatch;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.llmrouter.dispatch.RetryPolicy;
import io.github.llmrouter.testing.ManualTicker;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** The retry budget: a share of a retry per call, a cap on savings, a per-second reserve. */
class RetryBudgetTest {
  private final ManualTicker ticker = new ManualTicker();

  private RetryBudget budget(double ratio, int minRetriesPerSecond) {
    return new RetryBudget(RetryPolicy.builder().budgetRatio(ratio)
        .minRetriesPerSecond(minRetriesPerSecond).build(), ticker);
  }

  private static int retriesAllowed(RetryBudget budget) {
    int n = 0;
    while (n < 10_000 && budget.tryRetry()) n++;
    return n;
  }

  @Test
  void eachCallEarnsItsShareOfARetryAndARefusedRetrySpendsNothing() {
    RetryBudget budget = budget(0.2, 0);
    for (int i = 0; i < 4; i++) budget.onCall();
    assertThat(budget.tryRetry()).as("0.8 of a retry").isFalse();
    budget.onCall();
    assertThat(budget.tryRetry()).as("a whole retry after five calls").isTrue();
    assertThat(budget.tryRetry()).isFalse();
  }

  @Test
  void atMostAHundredRetriesAreSavedUp() {
    RetryBudget budget = budget(1.0, 0);
    for (int i = 0; i < 1_000; i++) budget.onCall();
    assertThat(retriesAllowed(budget)).isEqualTo(RetryPolicy.MAX_SAVED_TOKENS);
  }

  @Test
  void aQuietClientStillGetsItsRetriesPerSecondRefilledWithTime() {
    RetryBudget budget = budget(0, 10);
    assertThat(retriesAllowed(budget)).isEqualTo(10);
    ticker.advance(Duration.ofMillis(100));
    assertThat(retriesAllowed(budget)).as("one retry per 100 ms").isEqualTo(1);
    ticker.advance(Duration.ofMillis(99));
    assertThat(budget.tryRetry()).isFalse();
    ticker.advance(Duration.ofSeconds(5));
    assertThat(retriesAllowed(budget)).as("the reserve never exceeds a second's worth")
        .isEqualTo(10);
  }

  @Test
  void earnedRetriesAreSpentBeforeTheReserve() {
    RetryBudget budget = budget(1.0, 1);
    budget.onCall();
    assertThat(retriesAllowed(budget)).as("one earned, one from the reserve").isEqualTo(2);
    budget.onCall();
    assertThat(retriesAllowed(budget)).as("the reserve refills only with time").isEqualTo(1);
  }

  @Test
  void withNoRatioAndNoReserveNothingIsRetried() {
    RetryBudget budget = budget(0, 0);
    for (int i = 0; i < 100; i++) budget.onCall();
    assertThat(budget.tryRetry()).isFalse();
  }

  @Test
  void theReserveRefillsByWholeRetriesKeepingTheTimeTowardsTheNextOne() {
    RetryBudget budget = budget(0, 10); // one retry per 100 ms
    assertThat(retriesAllowed(budget)).isEqualTo(10);
    ticker.advance(Duration.ofMillis(150));
    assertThat(retriesAllowed(budget)).isEqualTo(1);
    ticker.advance(Duration.ofMillis(50));
    assertThat(retriesAllowed(budget)).as("50 ms were kept towards this one").isEqualTo(1);

    ticker.advance(Duration.ofMillis(5_050)); // full again: time beyond a full reserve is lost
    assertThat(retriesAllowed(budget)).isEqualTo(10);
    ticker.advance(Duration.ofMillis(50));
    assertThat(budget.tryRetry()).isFalse();
    ticker.advance(Duration.ofMillis(50));
    assertThat(budget.tryRetry()).isTrue();
  }
}
