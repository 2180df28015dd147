package io.github.llmrouter.routing;

/**
 * What a replica reported about a served request's prompt: its length and how much of it the
 * replica took from its prefix cache, as in an OpenAI-compatible response's {@code usage.
 * prompt_tokens} and {@code usage.prompt_tokens_details.cached_tokens} (vLLM reports the latter
 * with {@code --enable-prompt-tokens-details}, on streams with {@code stream_options.include_usage}).
 *
 * @param promptTokens prompt tokens, at least 0
 * @param cachedTokens prompt tokens served from the prefix cache, in [0, promptTokens], or -1 when
 *     the replica did not say
 */
public record PromptUsage(int promptTokens, int cachedTokens) {
  /**
   * Checks the counts.
   *
   * @param promptTokens prompt tokens, at least 0
   * @param cachedTokens cached prompt tokens in [0, promptTokens], or -1 when unknown
   * @throws IllegalArgumentException if a count is out of range
   */
  public PromptUsage {
    if (promptTokens < 0) {
      throw new IllegalArgumentException("promptTokens must be >= 0, got " + promptTokens);
    }
    if (cachedTokens < -1 || cachedTokens > promptTokens) {
      throw new IllegalArgumentException("cachedTokens must be -1 or in [0, " + promptTokens
          + "], got " + cachedTokens);
    }
  }

  /** {@return whether the replica reported its cached tokens} */
  public boolean cachedTokensKnown() {
    return cachedTokens >= 0;
  }
}
