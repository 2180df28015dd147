package io.github.llmrouter.sim;

/** One request's life in a simulation run: where it went and when each phase ended. Mutable. */
final class Job {
  final int index;
  final TraceRequest request;
  /** Chained block keys of the prompt. */
  final long[] chain;
  final int outputBlocks;
  final int client;
  int replica = -1;
  /** What the policy wants told of this request's answer. */
  io.github.llmrouter.routing.RoutedAttempt attempt =
      io.github.llmrouter.routing.RoutedAttempt.IGNORED;

  double arrival;
  double admitted = Double.NaN;
  double firstToken = Double.NaN;
  double finished = Double.NaN;
  int cachedTokens;
  int remainingPrefill;
  /** Leading prompt blocks pinned in the replica's cache: matched at admission or registered since. */
  int registered;
  /** Prompt tokens the coming engine step computes for this job. */
  int chunk;
  /** Uncached tokens as estimated when the job joined the waiting queue (for the oracle). */
  int estimatedUncached;
  /** The engine step at the end of which the last output token is emitted. */
  long finishStep;
  /** Cancelled by its engine (a hedged request's loser): no event of it counts any more. */
  boolean cancelled;
  /** The other job of a hedged request's race (the first attempt or its hedge), or null. */
  @org.jspecify.annotations.Nullable Job raced;
  /** Whether the request this job answered sent a hedge. */
  boolean hedged;

  Job(int index, TraceRequest request, long[] chain, int outputBlocks, int client) {
    this.index = index;
    this.request = request;
    this.chain = chain;
    this.outputBlocks = outputBlocks;
    this.client = client;
    this.arrival = request.arrivalSeconds();
  }
}
