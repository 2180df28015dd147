package io.github.llmrouter.api;

import com.fasterxml.jackson.annotation.JsonAlias;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * Token counts a server reports for a call: prompt, completion, total, and prompt tokens served
 * from the server's prefix cache ({@code prompt_tokens_details.cached_tokens}) when it says so.
 * The Responses API's names ({@code input_tokens}, {@code output_tokens}, {@code
 * input_tokens_details}) read the same.
 *
 * @since 0.2.0
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public final class Usage extends ApiObject {
  @JsonProperty("prompt_tokens")
  @JsonAlias("input_tokens")
  private long promptTokens;

  @JsonProperty("completion_tokens")
  @JsonAlias("output_tokens")
  private long completionTokens;

  @JsonProperty("total_tokens")
  private long totalTokens;

  @JsonProperty("prompt_tokens_details")
  @JsonAlias("input_tokens_details")
  private @Nullable Map<String, Object> promptTokensDetails;

  private Usage() {}

  /** {@return the prompt's tokens, 0 if not reported} */
  public long promptTokens() {
    return promptTokens;
  }

  /** {@return the generated tokens, 0 if not reported} */
  public long completionTokens() {
    return completionTokens;
  }

  /** {@return prompt plus generated tokens, as the server counted them; 0 if not reported} */
  public long totalTokens() {
    return totalTokens;
  }

  /**
   * {@return the prompt tokens the server took from its prefix cache, or -1 if it did not report
   * them}
   */
  public long cachedTokens() {
    if (promptTokensDetails == null) return -1;
    Object cached = promptTokensDetails.get("cached_tokens");
    return cached instanceof Number ? ((Number) cached).longValue() : -1;
  }

  @Override
  public String toString() {
    return "Usage{prompt=" + promptTokens + ", completion=" + completionTokens + ", total="
        + totalTokens + (cachedTokens() >= 0 ? ", cached=" + cachedTokens() : "") + '}';
  }
}
