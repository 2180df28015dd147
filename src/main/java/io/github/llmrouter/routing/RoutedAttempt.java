package io.github.llmrouter.routing;

/**
 * What became of one attempt a policy ranked, told back to the policy so that it can learn from
 * what replicas report: when the first token arrived and how many prompt tokens the replica served
 * from its prefix cache ({@code usage.prompt_tokens_details.cached_tokens}).
 *
 * <p>The client obtains one from {@link Ranking#sent} when it sends an attempt and calls at most
 * one of {@link #completed} and {@link #failed}, after at most one {@link #firstToken}, possibly
 * from other threads than the one that sent it (never concurrently). Implementations must be
 * cheap and must not throw or block: they run on the client's I/O threads.
 *
 * @since 0.2.0
 */
public interface RoutedAttempt {
  /** An attempt whose outcome nobody needs. */
  RoutedAttempt IGNORED = new RoutedAttempt() {};

  /**
   * The first token arrived at {@code nanos} (the client's ticker): a stream's first event. Not
   * called for answers that arrive whole, whose first token time is unknown.
   *
   * @param nanos when the first token arrived, on the client's ticker
   */
  default void firstToken(long nanos) {}

  /**
   * The replica answered at {@code nanos}, reporting {@code promptTokens} prompt tokens of which
   * {@code cachedTokens} came from its prefix cache; either is -1 when the answer did not say.
   *
   * @param promptTokens the prompt's tokens, or -1
   * @param cachedTokens the prompt tokens served from the prefix cache, or -1
   * @param nanos when the answer completed, on the client's ticker
   */
  default void completed(long promptTokens, long cachedTokens, long nanos) {}

  /**
   * The attempt failed or was abandoned at {@code nanos}; no tokens are coming.
   *
   * @param nanos when it failed, on the client's ticker
   */
  default void failed(long nanos) {}
}
