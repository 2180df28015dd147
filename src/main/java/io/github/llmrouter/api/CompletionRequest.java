package io.github.llmrouter.api;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.annotation.JsonAnyGetter;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * An OpenAI-compatible (legacy) text completion request. Immutable; build one with {@link
 * #builder(String, String)}. Prefix routing keys on the beginning of the prompt.
 *
 * @since 0.2.0
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public final class CompletionRequest {
  @JsonProperty("model")
  private final String model;

  @JsonProperty("prompt")
  private final String prompt;

  @JsonProperty("max_tokens")
  private final @Nullable Integer maxTokens;

  @JsonProperty("temperature")
  private final @Nullable Double temperature;

  @JsonProperty("top_p")
  private final @Nullable Double topP;

  @JsonProperty("stop")
  private final @Nullable List<String> stop;

  @JsonProperty("seed")
  private final @Nullable Long seed;

  private final Map<String, Object> extra;
  private final transient @Nullable String routingKey;
  private final transient boolean hedgeable;
  private final transient boolean resumable;

  private CompletionRequest(Builder b) {
    this.model = b.model;
    this.prompt = b.prompt;
    this.maxTokens = b.maxTokens;
    this.temperature = b.temperature;
    this.topP = b.topP;
    this.stop = b.stop;
    this.seed = b.seed;
    this.extra = JsonExtras.copy(b.extra);
    this.routingKey = b.routingKey;
    this.hedgeable = b.hedgeable;
    this.resumable = b.resumable;
  }

  /**
   * Starts a completion of {@code prompt} by {@code model}.
   *
   * @param model the model name, as the replicas serve it; not blank
   * @param prompt the prompt; not null (routing keys on its first characters)
   * @return a new builder (not thread-safe)
   * @throws IllegalArgumentException if {@code model} is blank
   */
  public static Builder builder(String model, String prompt) {
    return new Builder(model, prompt);
  }

  /** {@return the model name, never blank} */
  public String model() {
    return model;
  }

  /** {@return the prompt, never null} */
  public String prompt() {
    return prompt;
  }

  /** {@return the {@code max_tokens} limit, or null to leave it to the server} */
  public @Nullable Integer maxTokens() {
    return maxTokens;
  }

  /** {@return the extra top-level fields sent as they are; immutable, in insertion order} */
  @JsonAnyGetter
  public Map<String, Object> extra() {
    return extra;
  }

  /**
   * {@return the explicit affinity key, or null to route on the prompt; never sent to the server}
   */
  public @Nullable String routingKey() {
    return routingKey;
  }

  /**
   * {@return whether the client may hedge this request (send it to a second replica while the
   * first is slow); true unless the builder said otherwise; never sent}
   */
  public boolean hedgeable() {
    return hedgeable;
  }

  /**
   * {@return whether the client may continue this request's stream on another replica when it
   * breaks after its first chunk; true unless the builder said otherwise; never sent}
   *
   * @since 0.3.0
   */
  public boolean resumable() {
    return resumable;
  }

  @Override
  public String toString() {
    return "CompletionRequest{model=" + model + ", promptChars=" + prompt.length()
        + (extra.isEmpty() ? "" : ", extra=" + extra.keySet()) + '}';
  }

  /** Builds a {@link CompletionRequest}. Not thread-safe. */
  public static final class Builder {
    private final String model;
    private final String prompt;
    private @Nullable Integer maxTokens;
    private @Nullable Double temperature;
    private @Nullable Double topP;
    private @Nullable List<String> stop;
    private @Nullable Long seed;
    private final Map<String, Object> extra = new LinkedHashMap<>();
    private @Nullable String routingKey;
    private boolean hedgeable = true;
    private boolean resumable = true;

    private Builder(String model, String prompt) {
      this.model = requireNonNull(model, "model");
      this.prompt = requireNonNull(prompt, "prompt");
      if (model.isBlank()) throw new IllegalArgumentException("model must not be blank");
    }

    /**
     * Limits the tokens generated ({@code max_tokens}); unset, the server's default applies.
     *
     * @param maxTokens at least 1
     * @return this builder
     * @throws IllegalArgumentException if {@code maxTokens} is below 1
     */
    public Builder maxTokens(int maxTokens) {
      if (maxTokens < 1) throw new IllegalArgumentException("maxTokens must be >= 1, got " + maxTokens);
      this.maxTokens = maxTokens;
      return this;
    }

    /**
     * Sets the sampling temperature; unset, the server's default applies.
     *
     * @param temperature the temperature, passed on as it is
     * @return this builder
     */
    public Builder temperature(double temperature) {
      this.temperature = temperature;
      return this;
    }

    /**
     * Sets nucleus sampling's probability mass ({@code top_p}); unset, the server's default
     * applies.
     *
     * @param topP the mass, passed on as it is
     * @return this builder
     */
    public Builder topP(double topP) {
      this.topP = topP;
      return this;
    }

    /**
     * Sets sequences at which generation stops ({@code stop}).
     *
     * @param stop the stop sequences; copied, not null
     * @return this builder
     */
    public Builder stop(List<String> stop) {
      this.stop = List.copyOf(stop);
      return this;
    }

    /**
     * Sets the sampling seed for servers that honour it.
     *
     * @param seed the seed
     * @return this builder
     */
    public Builder seed(long seed) {
      this.seed = seed;
      return this;
    }

    /**
     * Adds a top-level field sent untouched; see {@link ChatRequest.Builder#extra}.
     *
     * @param field the top-level JSON field name; not null, not {@code stream}
     * @param value the value; not null
     * @return this builder
     * @throws IllegalArgumentException for {@code stream}, which the client controls
     */
    public Builder extra(String field, Object value) {
      Requests.checkExtra(field, value);
      extra.put(field, value);
      return this;
    }

    /**
     * An explicit affinity key used by prefix routing instead of the prompt; never sent.
     *
     * @param routingKey the routing key; not null
     * @return this builder
     */
    public Builder routingKey(String routingKey) {
      this.routingKey = requireNonNull(routingKey, "routingKey");
      return this;
    }

    /**
     * Whether the client may send this request to two replicas at once, when its {@code
     * HedgePolicy} hedges a slow attempt; default true. Set false when the request must not be
     * run twice (one whose tools or server-side effects must happen once); retries after a
     * failure are not affected. Never sent.
     *
     * @param hedgeable whether the request may be hedged
     * @return this builder
     */
    public Builder hedgeable(boolean hedgeable) {
      this.hedgeable = hedgeable;
      return this;
    }

    /**
     * Whether the client may continue this request's stream on another replica if it breaks
     * after its first chunk (see {@code LlmClientBuilder.maxStreamResumptions}); default true.
     * Set false when a continuation would not do: the caller then gets the break as a {@link
     * StreamInterruptedException}, as with resumption off. Never sent.
     *
     * @param resumable whether the stream may be resumed
     * @return this builder
     * @since 0.3.0
     */
    public Builder resumable(boolean resumable) {
      this.resumable = resumable;
      return this;
    }

    /**
     * Builds the request; the builder can be reused.
     *
     * @return an immutable, thread-safe request
     */
    public CompletionRequest build() {
      return new CompletionRequest(this);
    }
  }
}
