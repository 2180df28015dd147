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
 * An OpenAI-compatible embeddings request for one or more inputs. Immutable.
 *
 * @since 0.2.0
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public final class EmbeddingRequest {
  @JsonProperty("model")
  private final String model;

  @JsonProperty("input")
  private final List<String> input;

  @JsonProperty("dimensions")
  private final @Nullable Integer dimensions;

  private final Map<String, Object> extra;
  private final transient @Nullable String routingKey;

  private EmbeddingRequest(Builder b) {
    this.model = b.model;
    this.input = List.copyOf(b.input);
    this.dimensions = b.dimensions;
    this.extra = JsonExtras.copy(b.extra);
    this.routingKey = b.routingKey;
  }

  /**
   * Starts a request for embeddings of {@code inputs} by {@code model}.
   *
   * @param model the model name, as the replicas serve it; not null
   * @param inputs the texts, at least one; copied (routing keys on the first)
   * @return a new builder (not thread-safe)
   * @throws IllegalArgumentException if {@code inputs} is empty
   */
  public static Builder builder(String model, List<String> inputs) {
    return new Builder(model, inputs);
  }

  /**
   * A request for the embedding of one text.
   *
   * @param model the model name; not null
   * @param input the text; not null
   * @return an immutable request
   */
  public static EmbeddingRequest of(String model, String input) {
    return builder(model, List.of(input)).build();
  }

  /** {@return the model name} */
  public String model() {
    return model;
  }

  /** {@return the texts to embed, at least one; immutable} */
  public List<String> input() {
    return input;
  }

  /** {@return the extra top-level fields sent as they are; immutable, in insertion order} */
  @JsonAnyGetter
  public Map<String, Object> extra() {
    return extra;
  }

  /**
   * {@return the explicit affinity key, or null to route on the first input; never sent to the
   * server}
   */
  public @Nullable String routingKey() {
    return routingKey;
  }

  @Override
  public String toString() {
    return "EmbeddingRequest{model=" + model + ", inputs=" + input.size() + '}';
  }

  /** Builds an {@link EmbeddingRequest}. Not thread-safe. */
  public static final class Builder {
    private final String model;
    private final List<String> input;
    private @Nullable Integer dimensions;
    private final Map<String, Object> extra = new LinkedHashMap<>();
    private @Nullable String routingKey;

    private Builder(String model, List<String> input) {
      this.model = requireNonNull(model, "model");
      this.input = List.copyOf(requireNonNull(input, "input"));
      if (this.input.isEmpty()) throw new IllegalArgumentException("input must not be empty");
    }

    /**
     * Asks for vectors of {@code dimensions} components, for models that can shorten them; unset,
     * the model's own size.
     *
     * @param dimensions the size, passed on as it is
     * @return this builder
     */
    public Builder dimensions(int dimensions) {
      this.dimensions = dimensions;
      return this;
    }

    /**
     * Adds a top-level field sent untouched.
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
     * An explicit affinity key used by prefix routing; never sent.
     *
     * @param routingKey the routing key; not null
     * @return this builder
     */
    public Builder routingKey(String routingKey) {
      this.routingKey = requireNonNull(routingKey, "routingKey");
      return this;
    }

    /**
     * Builds the request; the builder can be reused.
     *
     * @return an immutable, thread-safe request
     */
    public EmbeddingRequest build() {
      return new EmbeddingRequest(this);
    }
  }
}
