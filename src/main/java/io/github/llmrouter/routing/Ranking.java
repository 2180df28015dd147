package io.github.llmrouter.routing;

/**
 * The order in which to try replicas for one request, produced lazily: {@link #next()} is called
 * once for the first attempt and again only when an attempt fails, so a request that succeeds at
 * once pays for one pick, not for a full sort. Not thread-safe: one request owns it.
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
}
