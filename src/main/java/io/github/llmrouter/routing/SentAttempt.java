package io.github.llmrouter.routing;

/**
 * What one attempt {@link CacheAware} sent expected (its prefill, wait and cached tokens) and the
 * KV memory it holds on its replica until it ends, to learn from what the answer reports.
 * Confined to the call that made the attempt; its outcome is taken once (a second outcome is
 * ignored).
 */
final class SentAttempt implements RoutedAttempt {
  private final FleetMemory memory;
  private final ReplicaState state;
  private final boolean streamed;
  private final int estimatedTokens;
  private final long sentNanos;
  private final long prefillNanos;
  private final double uncached;
  private final double waited;
  private final double weight;
  private final double indexTokens;
  private final int indexAge;
  private final double conversationTokens;
  private final double sharedTokens;
  private final double systemTokens;
  private final boolean conversationKnown;
  /** Tokens this attempt added to its replica's {@link ReplicaState#activeTokens}. */
  private final long activeTokens;
  /** Meaningful once {@link #firstTokenSeen}: a ticker reading may be any long, even negative. */
  private long firstTokenNanos;
  private boolean firstTokenSeen;
  private boolean done;

  SentAttempt(FleetMemory memory, ReplicaState state, boolean streamed, int estimatedTokens,
      long sentNanos, long prefillNanos, double uncached, double waited, double weight,
      double indexTokens, int indexAge, double conversationTokens, double sharedTokens,
      double systemTokens, boolean conversationKnown, long activeTokens) {
    this.memory = memory;
    this.activeTokens = activeTokens;
    this.conversationKnown = conversationKnown;
    this.state = state;
    this.streamed = streamed;
    this.estimatedTokens = estimatedTokens;
    this.sentNanos = sentNanos;
    this.prefillNanos = prefillNanos;
    this.uncached = uncached;
    this.waited = waited;
    this.weight = weight;
    this.indexTokens = indexTokens;
    this.indexAge = indexAge;
    this.conversationTokens = conversationTokens;
    this.sharedTokens = sharedTokens;
    this.systemTokens = systemTokens;
  }

  @Override
  public void firstToken(long nanos) {
    if (firstTokenSeen || done) return;
    firstTokenSeen = true;
    firstTokenNanos = nanos;
    state.started(nanos, prefillNanos, streamed);
  }

  @Override
  public void completed(long promptTokens, long cachedTokens, long nanos) {
    if (done) return;
    done = true;
    state.activeTokens.addAndGet(-activeTokens);
    if (!firstTokenSeen) state.started(nanos, prefillNanos, streamed);
    Calibration cal = memory.calibration;
    // The run after the first token: exact on a stream; for a whole answer, its time less the
    // wait and prefill it was expected to take.
    cal.ran(firstTokenSeen ? (nanos - firstTokenNanos) * 1e-9
        : Math.max(0, (nanos - sentNanos - prefillNanos) * 1e-9 - waited));
    cal.promptTokens(promptTokens, estimatedTokens);
    if (cachedTokens < 0 || promptTokens <= 0) {
      cal.uncached(uncached);
      return;
    }
    double actual = Math.max(0, promptTokens - cachedTokens);
    cal.uncached(actual);
    if (firstTokenSeen && waited <= 0.1e-9 * prefillNanos) {
      cal.prefill(actual, (firstTokenNanos - sentNanos) * 1e-9, weight);
    }
    // The replica held the conversation past its shared prefix: a continued conversation. Was
    // it one this client had sent before?
    if (cachedTokens > sharedTokens + 1) cal.continued(conversationKnown);
    if (conversationTokens > sharedTokens) {
      // How much of the conversation past its shared prefix the home held, for a conversation
      // this client had not seen: what the ring alone predicts.
      state.conversationConfidence = ReplicaState.learn(state.conversationConfidence,
          Math.max(0, Math.min(1, (cachedTokens - sharedTokens)
              / (conversationTokens - sharedTokens))));
    }
    if (systemTokens > 0) {
      state.systemConfidence = ReplicaState.learn(state.systemConfidence,
          Math.min(1, cachedTokens / systemTokens));
    }
    int slot = state.slot;
    // Blocks sent moments ago may not be computed yet (an engine caches a block once the chunk
    // computing it is scheduled): only older ones say whether the replica kept them.
    if (indexTokens > 0 && indexAge >= FleetMemory.SETTLED && slot >= 0) {
      memory.learnHorizon(slot, indexAge, cachedTokens >= 0.8 * indexTokens);
      // Nothing cached, though this client sent these blocks there recently: the replica lost
      // its cache (a restart); what the index says of it no longer holds.
      if (cachedTokens == 0 && 2 * indexAge < memory.horizon(slot)) {
        memory.reset(slot, PrefixIndex.tick(nanos));
      }
    }
  }

  @Override
  public void failed(long nanos) {
    if (done) return;
    done = true;
    state.activeTokens.addAndGet(-activeTokens);
    // Its prefill will not happen: take it out of the work ahead.
    if (!firstTokenSeen) state.started(nanos, prefillNanos, streamed);
  }
}
