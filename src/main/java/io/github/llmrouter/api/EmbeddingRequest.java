package io.github.llmrouter.api;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.annotation.JsonAnyGetter;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/** An OpenAI-compatible embeddings request for one or more inputs. Immutable. */
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

  /** A builder for embeddings of {@code inputs} by {@code model}. */
  public static Builder builder(String model, List<String> inputs) {
    return new Builder(model, inputs);
  }

  /** A request for the embedding of one text. */
  public static EmbeddingRequest of(String model, String input) {
    return builder(model, List.of(input)).build();
  }

  public String model() {
    return model;
  }

  public List<String> input() {
    return input;
  }

  /** Extra top-level fields sent as they are. */
  @JsonAnyGetter
  public Map<String, Object> extra() {
    return extra;
  }

  /** The explicit affinity key, if set; never sent to the server. */
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

    public Builder dimensions(int dimensions) {
      this.dimensions = dimensions;
      return this;
    }

    /** Adds a top-level field sent untouched. */
    public Builder extra(String field, Object value) {
      Requests.checkExtra(field, value);
      extra.put(field, value);
      return this;
    }

    /** An explicit affinity key used by prefix routing; never sent. */
    public Builder routingKey(String routingKey) {
      this.routingKey = requireNonNull(routingKey, "routingKey");
      return this;
    }

    public EmbeddingRequest build() {
      return new EmbeddingRequest(this);
    }
  }
}
