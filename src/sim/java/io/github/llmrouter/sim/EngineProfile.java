package io.github.llmrouter.sim;

/**
 * The performance model of one inference replica: continuous batching with chunked prefill, a
 * prefix cache of KV blocks, and step times from a two-term cost model.
 *
 * <p>One engine step serves every running sequence once: each decoding sequence emits one token,
 * and prefilling sequences take chunks of their uncached prompt from what is left of the {@link
 * #tokenBudget() token budget}, in FIFO order (vLLM V1's scheduler with chunked prefill). A step
 * lasts {@code decodeStepSeconds + perSequenceSeconds × sequencesInStep + prefillTokens /
 * prefillTokensPerSecond}.
 *
 * <p><b>Defaults: Llama-3.1-8B (BF16) on one H100 80 GB</b> ({@link #llama31_8bH100()}), as the
 * issue fixes them, with their derivation:
 * <ul>
 *   <li>prefill {@value #DEFAULT_PREFILL_TOKENS_PER_SECOND} tokens/s: 2 × 8 B = 16 GFLOP per token;
 *       989 TFLOP/s dense BF16 at about 25% model FLOPs utilisation is ≈ 250 TFLOP/s, ≈ 15,000
 *       tokens/s (long prompts are slower because of attention; this ignores that);
 *   <li>decode step {@value #DEFAULT_DECODE_STEP_MILLIS} ms: reading 16 GB of weights at 3.35 TB/s
 *       takes 4.8 ms, plus kernel-launch and scheduler overhead;
 *   <li>{@value #DEFAULT_PER_SEQUENCE_MILLIS} ms per running sequence: the per-sequence share of
 *       attention KV reads and sampling for contexts of about 1.5 K tokens (at 128 KiB per token);
 *       for the Mooncake trace's 12 K-token contexts it is optimistic;
 *   <li>KV cache {@value #DEFAULT_CACHE_TOKENS} tokens: 32 layers × 8 KV heads × 128 dims × 2
 *       (K, V) × 2 bytes = 128 KiB per token; 80 GB − 16 GB weights − activations ≈ 60 GB;
 *   <li>{@value #DEFAULT_MAX_NUM_SEQS} sequences and {@value #DEFAULT_TOKEN_BUDGET} tokens per step:
 *       vLLM's {@code max_num_seqs} and {@code max_num_batched_tokens} defaults on large GPUs.
 * </ul>
 *
 * <p>Immutable; {@link #toBuilder()} derives variants.
 */
public final class EngineProfile {
  /** Default prefill throughput, tokens per second: {@value}. */
  public static final double DEFAULT_PREFILL_TOKENS_PER_SECOND = 15_000;
  /** Default fixed cost of one engine step, milliseconds: {@value}. */
  public static final double DEFAULT_DECODE_STEP_MILLIS = 6.0;
  /** Default cost of one more sequence in a step, milliseconds: {@value}. */
  public static final double DEFAULT_PER_SEQUENCE_MILLIS = 0.06;
  /** Default KV cache capacity, tokens: {@value}. */
  public static final int DEFAULT_CACHE_TOKENS = 480_000;
  /** Default maximum number of running sequences: {@value}. */
  public static final int DEFAULT_MAX_NUM_SEQS = 256;
  /** Default tokens per step (decode tokens plus prefill chunks): {@value}. */
  public static final int DEFAULT_TOKEN_BUDGET = 8192;
  /** Default cap on one prompt's chunk per step, tokens, 0 for none: {@value}. */
  public static final int DEFAULT_LONG_PREFILL_TOKEN_THRESHOLD = 0;
  /** Default LoRA adapters loaded at once ({@code max_loras}): {@value}. */
  public static final int DEFAULT_MAX_LORAS = 8;
  /**
   * Default time to load a LoRA adapter into a free or evicted slot, ms: {@value} (a rank-16
   * adapter of an 8B model is ~50–100 MB, copied from host memory; from disk it takes longer).
   */
  public static final double DEFAULT_LORA_LOAD_MILLIS = 100;

  private final String name;
  private final double prefillTokensPerSecond;
  private final double decodeStepSeconds;
  private final double perSequenceSeconds;
  private final int cacheTokens;
  private final int maxNumSeqs;
  private final int tokenBudget;
  private final int longPrefillTokenThreshold;
  private final int maxLoras;
  private final double loraLoadSeconds;

  private EngineProfile(Builder b) {
    this.name = b.name;
    this.prefillTokensPerSecond = b.prefillTokensPerSecond;
    this.decodeStepSeconds = b.decodeStepMillis / 1000.0;
    this.perSequenceSeconds = b.perSequenceMillis / 1000.0;
    this.cacheTokens = b.cacheTokens;
    this.maxNumSeqs = b.maxNumSeqs;
    this.tokenBudget = b.tokenBudget;
    this.longPrefillTokenThreshold = b.longPrefillTokenThreshold;
    this.maxLoras = b.maxLoras;
    this.loraLoadSeconds = b.loraLoadMillis / 1000.0;
  }

  /** The defaults: Llama-3.1-8B on one H100 (see the class documentation). */
  public static EngineProfile llama31_8bH100() {
    return builder().build();
  }

  /**
   * Llama-3.1-70B (BF16) on four H100s with tensor parallelism 4: 140 GFLOP per token over 4 × 250
   * TFLOP/s effective ≈ 7,000 prefill tokens/s; 35 GB of weights per GPU at 3.35 TB/s plus
   * all-reduce ≈ 14 ms per step, 0.12 ms per sequence; 320 KiB of KV per token (80 layers) in
   * ≈ 150 GB left of 320 GB ≈ 480,000 tokens.
   */
  public static EngineProfile llama31_70bH100x4() {
    return builder().name("llama-3.1-70b/4xH100").prefillTokensPerSecond(7_000)
        .decodeStepMillis(14).perSequenceMillis(0.12).build();
  }

  /**
   * Llama-3.1-8B (BF16) on one NVIDIA L4 24 GB, the GPU of KubeAI's published benchmark: 121 TFLOP/s
   * dense at ≈ 30% ≈ 2,300 prefill tokens/s; 16 GB of weights at 300 GB/s ≈ 53 ms per step,
   * 0.3 ms per sequence; ≈ 6 GB left for KV ≈ 48,000 tokens; vLLM's smaller-GPU step budget 2048.
   */
  public static EngineProfile llama31_8bL4() {
    return builder().name("llama-3.1-8b/L4").prefillTokensPerSecond(2_300).decodeStepMillis(53)
        .perSequenceMillis(0.3).cacheTokens(48_000).tokenBudget(2048).build();
  }

  /** A profile by its short name: {@code h100-8b} (default), {@code h100x4-70b} or {@code l4-8b}. */
  public static EngineProfile named(String shortName) {
    switch (shortName) {
      case "h100-8b": return llama31_8bH100();
      case "h100x4-70b": return llama31_70bH100x4();
      case "l4-8b": return llama31_8bL4();
      default:
        throw new IllegalArgumentException("unknown engine profile '" + shortName
            + "', expected h100-8b, h100x4-70b or l4-8b");
    }
  }

  public static Builder builder() {
    return new Builder();
  }

  public Builder toBuilder() {
    Builder b = new Builder();
    b.name = name;
    b.prefillTokensPerSecond = prefillTokensPerSecond;
    b.decodeStepMillis = decodeStepSeconds * 1000;
    b.perSequenceMillis = perSequenceSeconds * 1000;
    b.cacheTokens = cacheTokens;
    b.maxNumSeqs = maxNumSeqs;
    b.tokenBudget = tokenBudget;
    b.longPrefillTokenThreshold = longPrefillTokenThreshold;
    b.maxLoras = maxLoras;
    b.loraLoadMillis = loraLoadSeconds * 1000;
    return b;
  }

  public String name() {
    return name;
  }

  public double prefillTokensPerSecond() {
    return prefillTokensPerSecond;
  }

  public double decodeStepSeconds() {
    return decodeStepSeconds;
  }

  public double perSequenceSeconds() {
    return perSequenceSeconds;
  }

  public int cacheTokens() {
    return cacheTokens;
  }

  public int maxNumSeqs() {
    return maxNumSeqs;
  }

  public int tokenBudget() {
    return tokenBudget;
  }

  /**
   * The most tokens of one prompt a step computes, 0 for no cap beyond the token budget: vLLM's
   * {@code long_prefill_token_threshold}. With a cap, a long prompt leaves budget to the requests
   * behind it, which then start while it is still being computed.
   */
  public int longPrefillTokenThreshold() {
    return longPrefillTokenThreshold;
  }

  /**
   * LoRA adapters loaded at once, vLLM's {@code max_loras}: a request of another adapter waits
   * until one of them has no request running, which is then evicted (least recently used first).
   */
  public int maxLoras() {
    return maxLoras;
  }

  /** Seconds an adapter takes to load; the step that loads it takes that much longer. */
  public double loraLoadSeconds() {
    return loraLoadSeconds;
  }

  @Override
  public String toString() {
    return name + "{prefill=" + prefillTokensPerSecond + " tok/s, step=" + decodeStepSeconds * 1000
        + " ms + " + perSequenceSeconds * 1000 + " ms/seq, cache=" + cacheTokens + " tokens, maxNumSeqs="
        + maxNumSeqs + ", tokenBudget=" + tokenBudget
        + (longPrefillTokenThreshold > 0 ? ", longPrefillTokenThreshold=" + longPrefillTokenThreshold
        : "") + ", maxLoras=" + maxLoras + ", loraLoad=" + loraLoadSeconds * 1000 + " ms}";
  }

  /** Builds an {@link EngineProfile}; starts from the H100 / Llama-3.1-8B defaults. */
  public static final class Builder {
    private String name = "llama-3.1-8b/H100";
    private double prefillTokensPerSecond = DEFAULT_PREFILL_TOKENS_PER_SECOND;
    private double decodeStepMillis = DEFAULT_DECODE_STEP_MILLIS;
    private double perSequenceMillis = DEFAULT_PER_SEQUENCE_MILLIS;
    private int cacheTokens = DEFAULT_CACHE_TOKENS;
    private int maxNumSeqs = DEFAULT_MAX_NUM_SEQS;
    private int tokenBudget = DEFAULT_TOKEN_BUDGET;
    private int longPrefillTokenThreshold = DEFAULT_LONG_PREFILL_TOKEN_THRESHOLD;
    private int maxLoras = DEFAULT_MAX_LORAS;
    private double loraLoadMillis = DEFAULT_LORA_LOAD_MILLIS;

    private Builder() {}

    /** LoRA adapters loaded at once, at least 1; default {@value #DEFAULT_MAX_LORAS}. */
    public Builder maxLoras(int v) {
      this.maxLoras = v;
      return this;
    }

    /** Time to load a LoRA adapter, ms, in [0, 60000]; default {@value #DEFAULT_LORA_LOAD_MILLIS}. */
    public Builder loraLoadMillis(double v) {
      this.loraLoadMillis = v;
      return this;
    }

    /** A label for reports. */
    public Builder name(String name) {
      this.name = java.util.Objects.requireNonNull(name, "name");
      return this;
    }

    /** Prompt tokens computed per second, in (0, 1e9]; default {@value #DEFAULT_PREFILL_TOKENS_PER_SECOND}. */
    public Builder prefillTokensPerSecond(double v) {
      this.prefillTokensPerSecond = v;
      return this;
    }

    /** Fixed cost of a step, ms, in [0, 10000]; default {@value #DEFAULT_DECODE_STEP_MILLIS}. */
    public Builder decodeStepMillis(double v) {
      this.decodeStepMillis = v;
      return this;
    }

    /** Cost per sequence in a step, ms, in [0, 1000]; default {@value #DEFAULT_PER_SEQUENCE_MILLIS}. */
    public Builder perSequenceMillis(double v) {
      this.perSequenceMillis = v;
      return this;
    }

    /** KV cache capacity in tokens, at least 1; default {@value #DEFAULT_CACHE_TOKENS}. */
    public Builder cacheTokens(int v) {
      this.cacheTokens = v;
      return this;
    }

    /** Running sequences at most, at least 1; default {@value #DEFAULT_MAX_NUM_SEQS}. */
    public Builder maxNumSeqs(int v) {
      this.maxNumSeqs = v;
      return this;
    }

    /** Tokens per step, at least 1; default {@value #DEFAULT_TOKEN_BUDGET}. */
    public Builder tokenBudget(int v) {
      this.tokenBudget = v;
      return this;
    }

    /**
     * The most tokens of one prompt computed per step, at least 0 (no cap); default {@value
     * #DEFAULT_LONG_PREFILL_TOKEN_THRESHOLD}, as vLLM.
     */
    public Builder longPrefillTokenThreshold(int v) {
      this.longPrefillTokenThreshold = v;
      return this;
    }

    /** @throws IllegalArgumentException naming the first knob out of range */
    public EngineProfile build() {
      if (!(prefillTokensPerSecond > 0 && prefillTokensPerSecond <= 1e9)) {
        throw new IllegalArgumentException("EngineProfile.prefillTokensPerSecond must be in (0, 1e9], got "
            + prefillTokensPerSecond);
      }
      if (!(decodeStepMillis >= 0 && decodeStepMillis <= 10_000)) {
        throw new IllegalArgumentException("EngineProfile.decodeStepMillis must be in [0, 10000], got "
            + decodeStepMillis);
      }
      if (!(perSequenceMillis >= 0 && perSequenceMillis <= 1000)) {
        throw new IllegalArgumentException("EngineProfile.perSequenceMillis must be in [0, 1000], got "
            + perSequenceMillis);
      }
      if (cacheTokens < 1) throw new IllegalArgumentException("EngineProfile.cacheTokens must be >= 1, got " + cacheTokens);
      if (maxNumSeqs < 1) throw new IllegalArgumentException("EngineProfile.maxNumSeqs must be >= 1, got " + maxNumSeqs);
      if (tokenBudget < 1) throw new IllegalArgumentException("EngineProfile.tokenBudget must be >= 1, got " + tokenBudget);
      if (longPrefillTokenThreshold < 0) {
        throw new IllegalArgumentException("EngineProfile.longPrefillTokenThreshold must be >= 0, got "
            + longPrefillTokenThreshold);
      }
      if (maxLoras < 1) throw new IllegalArgumentException("EngineProfile.maxLoras must be >= 1, got " + maxLoras);
      if (!(loraLoadMillis >= 0 && loraLoadMillis <= 60_000)) {
        throw new IllegalArgumentException("EngineProfile.loraLoadMillis must be in [0, 60000], got "
            + loraLoadMillis);
      }
      if (decodeStepMillis == 0 && perSequenceMillis == 0) {
        throw new IllegalArgumentException("EngineProfile: decodeStepMillis and perSequenceMillis must not both be 0");
      }
      return new EngineProfile(this);
    }
  }
}
