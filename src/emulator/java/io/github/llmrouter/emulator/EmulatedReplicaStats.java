package io.github.llmrouter.emulator;

import static java.util.Objects.requireNonNull;

/**
 * A snapshot of what one {@link EmulatedReplica} has seen: traffic per endpoint, prefix-cache
 * effectiveness and the current queue. Counters are read one by one without a global lock, so a
 * snapshot taken while requests are in flight may be off by the requests in between; snapshots
 * taken when the replica is idle are exact.
 *
 * @param id the replica's id
 * @param chatRequests requests that reached {@code POST /v1/chat/completions}, faults included
 * @param completionRequests requests that reached {@code POST /v1/completions}, faults included
 * @param embeddingRequests requests that reached {@code POST /v1/embeddings}, faults included
 * @param modelsRequests requests that reached {@code GET /v1/models}
 * @param healthRequests requests that reached {@code GET /health}
 * @param metricsRequests requests that reached {@code GET /metrics}
 * @param completed inference requests answered in full; counted just before the last bytes
 *     (the JSON body, or a stream's {@code [DONE]}) are written, so a client that has read a whole
 *     response always finds it counted
 * @param faultsInjected scripted faults applied so far, see {@link EmulatedFaults}
 * @param promptChars prompt characters prefilled (chat and completions), cached or not
 * @param cachedChars of those, characters served from the prefix cache
 * @param waiting requests waiting for a batch slot now
 * @param running requests holding a batch slot now
 * @param cacheBlocksUsed prefix-cache blocks held now
 * @param cacheBlocksCapacity the prefix-cache capacity in blocks
 */
public record EmulatedReplicaStats(
    String id,
    long chatRequests,
    long completionRequests,
    long embeddingRequests,
    long modelsRequests,
    long healthRequests,
    long metricsRequests,
    long completed,
    long faultsInjected,
    long promptChars,
    long cachedChars,
    int waiting,
    int running,
    int cacheBlocksUsed,
    int cacheBlocksCapacity) {

  /** Validates the snapshot. */
  public EmulatedReplicaStats {
    requireNonNull(id, "id");
  }

  /** Requests to the inference endpoints (chat, completions, embeddings), faults included. */
  public long requests() {
    return chatRequests + completionRequests + embeddingRequests;
  }

  /** The share of prefilled prompt characters that came from the cache, in [0, 1]. */
  public double hitRate() {
    return promptChars == 0 ? 0.0 : (double) cachedChars / promptChars;
  }

  /** Cache blocks used over capacity, in [0, 1]: what {@code vllm:kv_cache_usage_perc} reports. */
  public double cacheUsage() {
    return cacheBlocksCapacity == 0 ? 0.0 : (double) cacheBlocksUsed / cacheBlocksCapacity;
  }
}
