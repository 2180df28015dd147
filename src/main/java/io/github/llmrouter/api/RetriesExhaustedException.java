package io.github.llmrouter.api;

import java.util.List;

/**
 * Every attempt of a call failed. {@link #attempts()} holds each attempt's failure in order (also
 * attached as suppressed exceptions); the cause is the last one.
 */
public final class RetriesExhaustedException extends LlmException {
  private final transient List<LlmException> attempts;

  /**
   * Creates the exception; the client throws it, applications construct it in tests of their own
   * error handling.
   *
   * @param why what ran out (attempts, budget, deadline), for the message
   * @param attempts each attempt's failure in order; copied, the last becomes the cause
   */
  public RetriesExhaustedException(String why, List<LlmException> attempts) {
    super(why + " after " + attempts.size() + " attempt" + (attempts.size() == 1 ? "" : "s")
        + ": " + summary(attempts), null, attempts.isEmpty() ? null : attempts.get(attempts.size() - 1));
    this.attempts = List.copyOf(attempts);
    for (LlmException e : this.attempts) addSuppressed(e);
  }

  /**
   * {@return each attempt's failure in the order the attempts were made; immutable, empty after
   * deserialization}
   */
  public List<LlmException> attempts() {
    return attempts;
  }

  private static String summary(List<LlmException> attempts) {
    StringBuilder s = new StringBuilder();
    for (LlmException e : attempts) {
      if (s.length() > 0) s.append("; ");
      s.append(e.getMessage());
    }
    return s.toString();
  }
}
