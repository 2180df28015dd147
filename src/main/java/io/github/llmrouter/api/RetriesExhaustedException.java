package io.github.llmrouter.api;

import java.util.List;

/**
 * The router gave up: every attempt of the call failed in a way that another attempt might have
 * fixed (a 5xx or another retryable status, a connection failure, a replica that timed out before
 * answering, a malformed answer), and no further attempt was allowed: the attempt limit, the retry
 * budget, no replica left to try, or the next attempt could not have started before the call's
 * deadline. Thrown whatever stopped the retries, even after a single attempt, so that one {@code
 * catch} tells that the fleet, not the request, failed the call.
 *
 * <p>{@link #attempts()} lists every attempt (replica, duration, failure). The cause is the last
 * attempt's failure; the earlier ones are attached as suppressed exceptions, so a logged stack
 * trace shows them all.
 *
 * @since 0.2.0
 */
public final class RetriesExhaustedException extends LlmException {
  private final transient List<FailedAttempt> attempts;

  /**
   * The failure of a call whose attempts all failed or that may not try again.
   *
   * @param why what stopped the retries, e.g. {@code "retry budget exhausted"}
   * @param attempts every failed attempt in order; not empty
   */
  public RetriesExhaustedException(String why, List<FailedAttempt> attempts) {
    super(message(why, attempts), null,
        attempts.isEmpty() ? null : attempts.get(attempts.size() - 1).failure());
    this.attempts = List.copyOf(attempts);
    for (FailedAttempt a : this.attempts) {
      if (a.failure() != getCause()) addSuppressed(a.failure());
    }
  }

  /**
   * Each failed attempt.
   *
   * @return the attempts in the order they were made; never empty
   */
  public List<FailedAttempt> attempts() {
    return attempts;
  }

  private static String message(String why, List<FailedAttempt> attempts) {
    StringBuilder s = new StringBuilder("gave up after ").append(attempts.size())
        .append(attempts.size() == 1 ? " attempt (" : " attempts (").append(why).append(')');
    for (FailedAttempt a : attempts) s.append("; ").append(a);
    return s.toString();
  }
}
