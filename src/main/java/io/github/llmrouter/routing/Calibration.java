package io.github.llmrouter.routing;

/**
 * What one client learns about the fleet as a whole from the answers it gets: how many real tokens
 * its block estimates stand for, how fast a replica prefills (per unit of weight), how many
 * prompt tokens a request typically leaves to prefill, and how long a request runs after its
 * first token (holding its KV memory). Thread-safe: single volatile fields updated
 * without locks, where a lost update between two concurrent samples costs one sample.
 *
 * <p>Every estimate stays finite and within its bounds ({@code MIN_*} and {@code MAX_*} below)
 * whatever the answers report: samples that are negative, NaN or absurd are ignored or clamped,
 * so that no run of answers can make a cost NaN or infinite.
 */
final class Calibration {
  /** The prefill rate assumed until streams have measured one, tokens per second: {@value}. */
  static final double INITIAL_PREFILL_TOKENS_PER_SECOND = 10_000;
  /** The uncached prompt assumed until answers have reported some, tokens: {@value}. */
  static final double INITIAL_UNCACHED_TOKENS = 1_000;
  /**
   * How long a request is taken to run after its first token until answers have shown it,
   * seconds: {@value}.
   */
  static final double INITIAL_RUN_SECONDS = 2;
  /** The shortest typical run after the first token learnt, seconds: {@value}. */
  static final double MIN_RUN_SECONDS = 1e-3;
  /** The longest run after the first token a sample may report, seconds: {@value}. */
  static final double MAX_RUN_SECONDS = 3_600;
  /** The least real prompt tokens one estimated token stands for: {@value}. */
  static final double MIN_TOKEN_RATIO = 1.0 / 64;
  /** The most real prompt tokens one estimated token stands for: {@value}. */
  static final double MAX_TOKEN_RATIO = 64;
  /** The slowest prefill rate learnt, tokens per second per unit of weight: {@value}. */
  static final double MIN_PREFILL_TOKENS_PER_SECOND = 1;
  /** The fastest prefill rate learnt, tokens per second per unit of weight: {@value}. */
  static final double MAX_PREFILL_TOKENS_PER_SECOND = 1e9;
  /** The least typical uncached prompt learnt, tokens: {@value}. */
  static final double MIN_UNCACHED_TOKENS = 1;
  /** The most typical uncached prompt learnt, tokens: {@value}. */
  static final double MAX_UNCACHED_TOKENS = 1e8;
  /** The longest time to first token a prefill sample may report, seconds: {@value}. */
  static final double MAX_SAMPLE_SECONDS = 3_600;
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
  private volatile double run = INITIAL_RUN_SECONDS;
  /** Of the continued conversations that reached a replica holding them, the share unknown here. */
  private volatile double foreign = 0.5;
  /**
   * Of the prompts this client sent before past their shared prefix, the share that came back
   * longer (a conversation's next turn) rather than the same (a question asked again). Starts at
   * 1: prompts behind a shared prefix are taken as conversations until shown otherwise.
   */
  private volatile double growing = 1;

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
   * Seconds a request typically runs from its first token to its end: how long it keeps its KV
   * memory once its prefill is done.
   */
  double runSeconds() {
    return run;
  }

  /**
   * A request ran {@code seconds} from its first token (or the expected end of its prefill) to its
   * end; a sample that is negative, NaN or over {@value #MAX_RUN_SECONDS} s is ignored.
   */
  void ran(double seconds) {
    if (!(seconds >= 0 && seconds <= MAX_RUN_SECONDS)) return;
    run = clamp(run + STEP * (seconds - run), MIN_RUN_SECONDS, MAX_RUN_SECONDS);
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

  /**
   * The share of prompts seen before that came back longer: how often a prompt behind a shared
   * prefix is a conversation that goes on, whose later turns find its history where it was sent.
   */
  double growingShare() {
    return growing;
  }

  /**
   * A prompt this client had sent before past its shared prefix came back; {@code grew}: longer
   * than what was sent (a next turn), else the same prompt again.
   */
  void seenAgain(boolean grew) {
    growing += STEP * ((grew ? 1 : 0) - growing);
  }

  /** An answer reported {@code promptTokens} for a prompt estimated at {@code estimated}. */
  void promptTokens(long promptTokens, int estimated) {
    if (promptTokens <= 0 || estimated <= 0) return;
    double sample = clamp((double) promptTokens / estimated, MIN_TOKEN_RATIO, MAX_TOKEN_RATIO);
    tokenRatio = clamp(tokenRatio + STEP * (sample - tokenRatio), MIN_TOKEN_RATIO,
        MAX_TOKEN_RATIO);
  }

  /**
   * A request left {@code tokens} prompt tokens to prefill. Answers that leave nothing (the same
   * prompt again and again) move the typical figure towards {@value #MIN_UNCACHED_TOKENS}, never
   * to 0: it divides the mean wait.
   */
  void uncached(double tokens) {
    if (!(tokens >= 0)) return;
    double sample = Math.min(tokens, MAX_UNCACHED_TOKENS);
    uncached = clamp(uncached + STEP * (sample - uncached), MIN_UNCACHED_TOKENS,
        MAX_UNCACHED_TOKENS);
  }

  /**
   * A replica of weight {@code weight} with nothing queued ahead prefilled {@code tokens} in
   * {@code seconds} (send to first token).
   */
  synchronized void prefill(double tokens, double seconds, double weight) {
    if (!(tokens >= 0 && tokens <= MAX_UNCACHED_TOKENS && seconds > 0
        && seconds <= MAX_SAMPLE_SECONDS && weight > 0)) {
      return;
    }
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
    if (slope > 0) {
      rate = clamp(1 / slope, MIN_PREFILL_TOKENS_PER_SECOND, MAX_PREFILL_TOKENS_PER_SECOND);
    }
  }

  /** {@code value} within [{@code min}, {@code max}]; NaN counts as {@code min}. */
  static double clamp(double value, double min, double max) {
    return value >= min ? Math.min(value, max) : min;
  }
}
