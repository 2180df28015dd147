package io.github.llmrouter.internal.dispatch;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.llmrouter.api.LlmException;
import io.github.llmrouter.api.LlmTimeoutException;
import io.github.llmrouter.api.ReplicaHttpException;
import io.github.llmrouter.api.ReplicaUnreachableException;
import io.github.llmrouter.dispatch.RetryPolicy;
import io.github.llmrouter.internal.dispatch.RetryDecision.Kind;
import io.github.llmrouter.testing.ManualTicker;
import java.io.IOException;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** The one rule that decides what follows a failed attempt, checked in its documented order. */
class RetryDecisionTest {
  private static final LlmException UNREACHABLE =
      new ReplicaUnreachableException("r0", new IOException("connection refused"));
  private static final LlmException BAD_REQUEST =
      new ReplicaHttpException("r0", 400, "{}", false, null);
  private static final LlmException REPLICA_TIMED_OUT =
      new LlmTimeoutException("replica r0 timed out", "r0", null, true);
  private static final LlmException DEADLINE_PASSED =
      new LlmTimeoutException("call deadline expired on replica r0", "r0", null, false);

  private final ManualTicker ticker = new ManualTicker();
  private final RetryPolicy policy = RetryPolicy.builder().maxAttempts(3)
      .initialBackoff(Duration.ofMillis(100)).maxBackoff(Duration.ofSeconds(1)).multiplier(2)
      .jitter(0).budgetRatio(1.0).minRetriesPerSecond(0).build();
  private final RetryBudget budget = new RetryBudget(policy, ticker);
  private final Deadline noDeadline = Deadline.after(ticker.read(), 0);

  private RetryDecision after(LlmException failure, int attempt, Deadline deadline) {
    return RetryDecision.after(failure, attempt, policy, budget, deadline, ticker.read());
  }

  private void earn(int retries) {
    for (int i = 0; i < retries; i++) budget.onCall();
  }

  @Test
  void aRetryableFailureWithinEveryLimitIsRetriedAfterTheBackoffForThatAttempt() {
    earn(2);
    RetryDecision first = after(UNREACHABLE, 1, noDeadline);
    assertThat(first.kind()).isEqualTo(Kind.RETRY);
    assertThat(first.backoffNanos()).isEqualTo(Duration.ofMillis(100).toNanos());
    assertThat(first.whyNot()).isEmpty();
    assertThat(after(REPLICA_TIMED_OUT, 2, noDeadline).backoffNanos())
        .as("a replica that timed out is retried; the backoff doubles")
        .isEqualTo(Duration.ofMillis(200).toNanos());
  }

  @Test
  void theCallsOwnDeadlineCuttingAnAttemptShortEndsTheCall() {
    earn(1);
    RetryDecision d = after(DEADLINE_PASSED, 1, noDeadline);
    assertThat(d.kind()).isEqualTo(Kind.DEADLINE);
    assertThat(d.whyNot()).isEqualTo("deadline");
    assertThat(budget.tryRetry()).as("no retry token spent").isTrue();
  }

  @Test
  void aFailureThatIsNotRetryableStands() {
    earn(1);
    RetryDecision d = after(BAD_REQUEST, 1, noDeadline);
    assertThat(d.kind()).isEqualTo(Kind.REJECTED);
    assertThat(d.whyNot()).isEqualTo("not retryable");
    assertThat(d.backoffNanos()).isZero();
  }

  @Test
  void theAttemptLimitGivesUpWithoutSpendingTheBudget() {
    earn(1);
    RetryDecision d = after(UNREACHABLE, 3, noDeadline);
    assertThat(d.kind()).isEqualTo(Kind.GIVE_UP);
    assertThat(d.whyNot()).isEqualTo("attempts exhausted");
    assertThat(d.giveUpMessage()).isEqualTo("attempts exhausted");
    assertThat(budget.tryRetry()).as("the token is still there").isTrue();
  }

  @Test
  void anEmptyRetryBudgetGivesUp() {
    RetryDecision d = after(UNREACHABLE, 1, noDeadline);
    assertThat(d.kind()).isEqualTo(Kind.GIVE_UP);
    assertThat(d.whyNot()).isEqualTo("retry budget exhausted");
  }

  @Test
  void aBackoffThatWouldEndAtOrAfterTheDeadlineGivesUpAtOnce() {
    earn(2);
    Deadline deadline = Deadline.after(ticker.read(), Duration.ofMillis(250).toNanos());
    assertThat(after(UNREACHABLE, 1, deadline).kind()).as("100 ms backoff, 250 ms left")
        .isEqualTo(Kind.RETRY);
    ticker.advance(Duration.ofMillis(150));
    RetryDecision d = after(UNREACHABLE, 1, deadline);
    assertThat(d.kind()).isEqualTo(Kind.GIVE_UP);
    assertThat(d.whyNot()).isEqualTo("deadline");
    assertThat(d.giveUpMessage())
        .isEqualTo("the next attempt could not start before the call deadline");
  }

  @Test
  void theDeadlineIsCheckedFirstThenRetryabilityThenTheLimitThenTheBudget() {
    assertThat(after(DEADLINE_PASSED, 3, noDeadline).kind()).isEqualTo(Kind.DEADLINE);
    assertThat(after(BAD_REQUEST, 3, noDeadline).kind()).isEqualTo(Kind.REJECTED);
    assertThat(after(UNREACHABLE, 3, noDeadline).whyNot()).isEqualTo("attempts exhausted");
    assertThat(after(UNREACHABLE, 2, noDeadline).whyNot()).isEqualTo("retry budget exhausted");
  }
}
