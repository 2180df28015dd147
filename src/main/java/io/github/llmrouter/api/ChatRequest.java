package io.github.llmrouter.api;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.annotation.JsonAnyGetter;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * An OpenAI-compatible chat completion request. Immutable; build one with {@link #builder(String)}.
 *
 * <pre>{@code
 * ChatRequest request = ChatRequest.builder("llama-3.1-8b")
 *     .message(ChatMessage.system("You are terse."))
 *     .message(ChatMessage.user("Name three primes."))
 *     .maxTokens(64)
 *     .extra("top_k", 40)              // any field the server understands, sent as is
 *     .build();
 * }</pre>
 *
 * <p>The client decides whether a call streams: do not set {@code stream} yourself. The
 * {@link Builder#routingKey(String) routing key} is used for routing only and never sent.
 *
 * @since 0.2.0
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public final class ChatRequest {
  @JsonProperty("model")
  private final String model;

  @JsonProperty("messages")
  private final List<ChatMessage> messages;

  @JsonProperty("max_tokens")
  private final @Nullable Integer maxTokens;

  @JsonProperty("temperature")
  private final @Nullable Double temperature;

  @JsonProperty("top_p")
  private final @Nullable Double topP;

  @JsonProperty("n")
  private final @Nullable Integer n;

  @JsonProperty("stop")
  private final @Nullable List<String> stop;

  @JsonProperty("seed")
  private final @Nullable Long seed;

  @JsonProperty("user")
  private final @Nullable String user;

  private final Map<String, Object> extra;
  private final transient @Nullable String routingKey;
  private final transient boolean hedgeable;
  private final transient boolean resumable;

  private ChatRequest(Builder b) {
    this.model = b.model;
    this.messages = List.copyOf(b.messages);
    this.maxTokens = b.maxTokens;
    this.temperature = b.temperature;
    this.topP = b.topP;
    this.n = b.n;
    this.stop = b.stop == null ? null : List.copyOf(b.stop);
    this.seed = b.seed;
    this.user = b.user;
    this.extra = JsonExtras.copy(b.extra);
    this.routingKey = b.routingKey;
    this.hedgeable = b.hedgeable;
    this.resumable = b.resumable;
  }

  /**
   * Starts a request to {@code model}, the name the replicas serve it under.
   *
   * @param model the model name; not blank
   * @return a new builder (not thread-safe)
   * @throws IllegalArgumentException if {@code model} is blank
   */
  public static Builder builder(String model) {
    return new Builder(model);
  }

  /** {@return the model name, never blank} */
  public String model() {
    return model;
  }

  /** {@return the conversation in order; immutable, never empty} */
  public List<ChatMessage> messages() {
    return messages;
  }

  /** {@return the {@code max_tokens} limit, or null to leave it to the server} */
  public @Nullable Integer maxTokens() {
    return maxTokens;
  }

  /** {@return the sampling temperature, or null to leave it to the server} */
  public @Nullable Double temperature() {
    return temperature;
  }

  /**
   * {@return the extra top-level fields sent as they are (vLLM's {@code top_k}, {@code min_p},
   * ...); immutable, in insertion order}
   */
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
   * {@return the text of the first {@code user} message, what prefix routing keys on; null if there
   * is none}
   */
  public @Nullable String firstUserText() {
    for (ChatMessage m : messages) {
      if ("user".equals(m.role())) return m.text();
    }
    return null;
  }

  /** {@return a new builder holding every field of this request, to derive a variant from it} */
  public Builder toBuilder() {
    Builder b = new Builder(model);
    b.messages.addAll(messages);
    b.maxTokens = maxTokens;
    b.temperature = temperature;
    b.topP = topP;
    b.n = n;
    b.stop = stop;
    b.seed = seed;
    b.user = user;
    b.extra.putAll(extra);
    b.routingKey = routingKey;
    b.hedgeable = hedgeable;
    b.resumable = resumable;
    return b;
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
    return "ChatRequest{model=" + model + ", messages=" + messages.size()
        + (extra.isEmpty() ? "" : ", extra=" + extra.keySet()) + '}';
  }

  /** Builds a {@link ChatRequest}. Not thread-safe. */
  public static final class Builder {
    private final String model;
    private final List<ChatMessage> messages = new ArrayList<>();
    private @Nullable Integer maxTokens;
    private @Nullable Double temperature;
    private @Nullable Double topP;
    private @Nullable Integer n;
    private @Nullable List<String> stop;
    private @Nullable Long seed;
    private @Nullable String user;
    private final Map<String, Object> extra = new LinkedHashMap<>();
    private @Nullable String routingKey;
    private boolean hedgeable = true;
    private boolean resumable = true;

    private Builder(String model) {
      this.model = requireNonNull(model, "model");
      if (model.isBlank()) throw new IllegalArgumentException("model must not be blank");
    }

    /**
     * Appends a message to the conversation.
     *
     * @param message the message; not null
     * @return this builder
     */
    public Builder message(ChatMessage message) {
      messages.add(requireNonNull(message, "message"));
      return this;
    }

    /**
     * Appends messages to the conversation, in order.
     *
     * @param messages the messages; neither the list nor an element may be null
     * @return this builder
     */
    public Builder messages(List<ChatMessage> messages) {
      for (ChatMessage m : requireNonNull(messages, "messages")) message(m);
      return this;
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
     * Sets the sampling temperature ({@code temperature}); unset, the server's default applies.
     *
     * @param temperature the temperature, passed on as it is (servers accept [0, 2])
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
     * @param topP the mass, passed on as it is (servers accept (0, 1])
     * @return this builder
     */
    public Builder topP(double topP) {
      this.topP = topP;
      return this;
    }

    /**
     * Asks for {@code n} alternative completions; unset, one.
     *
     * @param n the number of choices, passed on as it is
     * @return this builder
     */
    public Builder n(int n) {
      this.n = n;
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
     * Sets the sampling seed ({@code seed}) for servers that honour it.
     *
     * @param seed the seed
     * @return this builder
     */
    public Builder seed(long seed) {
      this.seed = seed;
      return this;
    }

    /**
     * Sets the end-user id ({@code user}) the server may log.
     *
     * @param user the id; not null
     * @return this builder
     */
    public Builder user(String user) {
      this.user = requireNonNull(user, "user");
      return this;
    }

    /**
     * Adds a top-level field the typed API does not model; sent untouched. Values may be strings,
     * numbers, booleans, lists and maps (or anything Jackson can write).
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
     * An explicit affinity key (a session or conversation id) used by prefix routing instead of
     * the prompt prefix. Never sent to the server.
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
     * @throws IllegalStateException if no message was added
     */
    public ChatRequest build() {
      if (messages.isEmpty()) throw new IllegalStateException("a chat request needs at least one message");
      return new ChatRequest(this);
    }
  }
}
