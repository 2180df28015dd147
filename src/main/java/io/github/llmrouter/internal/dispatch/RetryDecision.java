package io.github.llmrouter.internal.dispatch;

import io.github.llmrouter.api.LlmException;
import io.github.llmrouter.dispatch.RetryPolicy;
import io.github.llmrouter.internal.transport.Verdict;

/**
 * What follows a failed attempt: another attempt after a backoff, or the end of the call and how it
 * ends. Immutable; {@link #after} is the one rule that decides it.
 *
 * @param kind what the call does next
 * @param backoffNanos the wait before the next attempt; 0 unless {@link Kind#RETRY}
 * @param whyNot why no attempt follows, as routing events say it ({@code "attempts exhausted"},
 *     ...); empty for {@link Kind#RETRY}
 * @param giveUpMessage for {@link Kind#GIVE_UP}, the message of the exception the call ends with
 */
record RetryDecision(Kind kind, long backoffNanos, String whyNot, String giveUpMessage) {
  /** What the call does after a failed attempt. */
  enum Kind {
    /** Another attempt, after {@link #backoffNanos}. */
    RETRY,
    /** The call's deadline cut the attempt short: the call times out. */
    DEADLINE,
    /** The replica judged the request (a status that is not retryable): its answer stands. */
    REJECTED,
    /** Another attempt might help but is not allowed: the router gives up. */
    GIVE_UP
  }

  static final RetryDecision DEADLINE = new RetryDecision(Kind.DEADLINE, 0, "deadline", "");
  static final RetryDecision REJECTED = new RetryDecision(Kind.REJECTED, 0, "not retryable", "");
  static final RetryDecision ATTEMPTS_EXHAUSTED = giveUp("attempts exhausted",
      "attempts exhausted");
  static final RetryDecision BUDGET_EXHAUSTED = giveUp("retry budget exhausted",
      "retry budget exhausted");
  static final RetryDecision NO_TIME_LEFT = giveUp("deadline",
      "the next attempt could not start before the call deadline");

  /**
   * Not one of {@link #after}'s decisions: an attempt of a hedged call failed while the other is
   * still in flight; no attempt follows it, the call waits for the other.
   */
  static final RetryDecision RACE_GOES_ON = giveUp("the other attempt of the hedged call is "
      + "still in flight", "");

  private static RetryDecision giveUp(String whyNot, String message) {
    return new RetryDecision(Kind.GIVE_UP, 0, whyNot, message);
  }

  /**
   * The decision after attempt number {@code attempt} failed with {@code failure} at ticker time
   * {@code now}. Checks, in order: the call's deadline, whether the failure is retryable, the
   * attempt limit, the retry budget (spending a token only if everything before allows a retry),
   * and whether the backoff would end before the deadline.
   */
  static RetryDecision after(LlmException failure, int attempt, RetryPolicy policy,
      RetryBudget budget, Deadline deadline, long now) {
    Verdict verdict = Verdict.of(failure);
    if (verdict.deadline()) return DEADLINE;
    if (!verdict.retryable()) return REJECTED;
    if (attempt >= policy.maxAttempts()) return ATTEMPTS_EXHAUSTED;
    if (!budget.tryRetry()) return BUDGET_EXHAUSTED;
    long backoff = policy.backoff(attempt).toNanos();
    if (deadline.reachedBy(now + backoff)) return NO_TIME_LEFT;
    return new RetryDecision(Kind.RETRY, backoff, "", "");
  }
}
