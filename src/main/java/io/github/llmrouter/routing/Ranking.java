package io.github.llmrouter.routing;

/**
 * The order in which to try replicas for one request, produced lazily: {@link #next()} is called
 * once for the first attempt and again only when an attempt fails, so a request that succeeds at
 * once pays for one pick, not for a full sort. Not thread-safe: one request owns it.
 *
 * <p><b>Feedback.</b> Whoever dispatches the request may tell the ranking how it went on the
 * replica that served it: {@link #onFirstToken} when the first token arrives and {@link
 * #onCompleted} with the prompt usage the replica reported. A policy that learns from responses
 * (what a replica really had cached, when its prefill ended) keeps what it needs for that in its
 * ranking; the defaults do nothing. The simulator reports every request; {@code LlmClient} does not
 * report yet. Neither is called for an attempt that failed, so per-request state kept for them
 * must be bounded by other means.
 */
public interface Ranking {
  /**
   * The snapshot index of the next replica to try, never one returned before by this ranking, or
   * -1 when every replica has been returned. Load is read at the time of the call, so a failover
   * pick sees the load as it is then.
   *
   * @return a snapshot index, or -1 when the ranking is exhausted
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
   * The replica at {@code index}, returned by {@link #next()}, sent the request's first token: its
   * prefill is over. Called at most once, on the thread that received the token; must not block.
   *
   * @param index the replica's snapshot index
   */
  default void onFirstToken(int index) {}

  /**
   * The replica at {@code index}, returned by {@link #next()}, served the whole response and
   * reported {@code usage} (for vLLM, {@code usage.prompt_tokens} and {@code
   * usage.prompt_tokens_details.cached_tokens}). Called at most once, after {@link #onFirstToken}
   * if that was called; must not block.
   *
   * @param index the replica's snapshot index
   * @param usage what the replica reported about the prompt
   */
  default void onCompleted(int index, PromptUsage usage) {}
}
