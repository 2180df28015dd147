package io.github.llmrouter.routing;

/**
 * What one client learns about the fleet as a whole from the answers it gets: how many real tokens
 * its block estimates stand for, how fast a replica prefills (per unit of weight), and how many
 * prompt tokens a request typically leaves to prefill. Thread-safe: single volatile fields updated
 * without locks, where a lost update between two concurrent samples costs one sample.
 */
final class Calibration {
  /** The prefill rate assumed until streams have measured one, tokens per second: {@value}. */
  static final double INITIAL_PREFILL_TOKENS_PER_SECOND = 10_000;
  /** The uncached prompt assumed until answers have reported some, tokens: {@value}. */
  static final double INITIAL_UNCACHED_TOKENS = 1_000;
  /** Weight of one sample in the averages: {@value}. */
  private static final double STEP = 0.05;
  /** How much of the rate's sums each sample keeps: {@value}. */
  private static final double KEEP = 0.98;

  /** Real prompt tokens per estimated token. */
  private volatile double tokenRatio = 1;
  /**
   * Decayed sums of a least-squares fit of time to first token against uncached tokens (per unit
   * of weight), over requests sent to a replica with nothing ahead: {@code seconds = overhead +
   * tokens / rate}, the overhead being an engine step's. Two pseudo-samples start it at the
   * initial rate and a 10 ms overhead.
   */
  private double n = 2;
  private double sumTokens = INITIAL_PREFILL_TOKENS_PER_SECOND;
  private double sumSeconds = 1.02;
  private double sumTokensSquared = INITIAL_PREFILL_TOKENS_PER_SECOND
      * INITIAL_PREFILL_TOKENS_PER_SECOND;
  private double sumProducts = INITIAL_PREFILL_TOKENS_PER_SECOND * 1.01;
  private volatile double rate = INITIAL_PREFILL_TOKENS_PER_SECOND;
  private volatile double uncached = INITIAL_UNCACHED_TOKENS;
  /** Of the continued conversations that reached a replica holding them, the share unknown here. */
  private volatile double foreign = 0.5;

  /** Real tokens per estimated token of {@link PromptBlocks#promptTokens()}. */
  double tokenRatio() {
    return tokenRatio;
  }

  /** Prompt tokens one unit of replica weight prefills per second. */
  double prefillRate() {
    return rate;
  }

  /** The prompt tokens a request typically leaves to prefill. */
  double typicalUncached() {
    return uncached;
  }

  /**
   * The share of continued conversations this client had not seen before: 0 for a client that
   * sends all of its conversations' turns, near {@code 1 - 1/K} for one of K clients that each
   * send a random share of them.
   */
  double foreignShare() {
    return foreign;
  }

  /** A continued conversation was found cached; {@code known}: this client had sent it before. */
  void continued(boolean known) {
    foreign += STEP * ((known ? 0 : 1) - foreign);
  }

  /** An answer reported {@code promptTokens} for a prompt estimated at {@code estimated}. */
  void promptTokens(long promptTokens, int estimated) {
    if (promptTokens <= 0 || estimated <= 0) return;
    double sample = Math.min(64, Math.max(1.0 / 64, (double) promptTokens / estimated));
    tokenRatio += STEP * (sample - tokenRatio);
  }

  /** A request left {@code tokens} prompt tokens to prefill. */
  void uncached(double tokens) {
    if (tokens >= 0) uncached += STEP * (tokens - uncached);
  }

  /**
   * A replica of weight {@code weight} with nothing queued ahead prefilled {@code tokens} in
   * {@code seconds} (send to first token).
   */
  synchronized void prefill(double tokens, double seconds, double weight) {
    if (!(tokens >= 0 && seconds > 0 && weight > 0)) return;
    double u = tokens / weight;
    n = KEEP * n + 1;
    sumTokens = KEEP * sumTokens + u;
    sumSeconds = KEEP * sumSeconds + seconds;
    sumTokensSquared = KEEP * sumTokensSquared + u * u;
    sumProducts = KEEP * sumProducts + u * seconds;
    double spread = n * sumTokensSquared - sumTokens * sumTokens;
    // Too little spread in sizes to tell the per-token time from the overhead: keep the rate.
    if (!(spread > 0.01 * sumTokensSquared * n)) return;
    double slope = (n * sumProducts - sumTokens * sumSeconds) / spread;
    if (slope > 0) rate = Math.min(1e9, 1 / slope);
  }
}
