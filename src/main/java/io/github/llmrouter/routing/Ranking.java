package io.github.llmrouter.routing;

/**
 * The order in which to try replicas for one request, produced lazily: {@link #next()} is called
 * once for the first attempt and again only when an attempt fails, so a request that succeeds at
 * once pays for one pick, not for a full sort. Not thread-safe: one request owns it.
 *
 * @since 0.2.0
 */
public interface Ranking {
  /**
   * The snapshot index of the next replica to try, never one returned before by this ranking, or
   * -1 when every replica has been returned. Load is read at the time of the call, so a failover
   * pick sees the load as it is then.
   *
   * @return a snapshot index, or -1 when none is left
   */
  int next();

  /**
   * Why the last index returned by {@link #next()} was chosen, in a few words (for decision events
   * and logs); constant strings, so explaining costs nothing.
   *
   * @return the reason, never null
   */
  String reason();

  /**
   * The attempt on {@code index}, the last index returned by {@link #next()}, was sent at {@code
   * nanos} (the client's ticker); what becomes of it is told to the returned object. The client
   * calls it once per attempt it sends (an index passed over as ineligible is never sent). {@code
   * streamed}: the answer is a stream, whose first event will be reported through {@link
   * RoutedAttempt#firstToken}; otherwise it arrives whole and its first token goes unseen. Policies
   * that learn nothing from outcomes keep the default, {@link RoutedAttempt#IGNORED}.
   *
   * @param index the snapshot index of the replica the attempt goes to
   * @param nanos when it was sent, on the client's ticker
   * @param streamed whether the answer is a stream whose first token will be reported
   * @return what to tell the outcome to, never null
   */
  default RoutedAttempt sent(int index, long nanos, boolean streamed) {
    return RoutedAttempt.IGNORED;
  }

  /**
   * The prompt tokens the policy expected the replica last returned by {@link #next()} to serve
   * from its prefix cache, or -1 if it made no such prediction.
   *
   * @return the predicted cached prompt tokens, or -1
   */
  default long predictedCachedTokens() {
    return -1;
  }

  /**
   * The seconds the policy expected the request to wait on that replica before its prefill starts,
   * or NaN if it made no such estimate.
   *
   * @return the estimated wait in seconds, or NaN
   */
  default double estimatedWaitSeconds() {
    return Double.NaN;
  }

  /**
   * Why that replica beat the runner-up, in a sentence with the figures compared; "" if the policy
   * does not compare. Built on demand: call it only to explain a decision.
   *
   * @return the comparison, or ""
   */
  default String versusRunnerUp() {
    return "";
  }
}
