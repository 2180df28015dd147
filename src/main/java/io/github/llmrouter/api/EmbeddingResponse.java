package io.github.llmrouter.api;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * An OpenAI-compatible embeddings response: one vector per input, in input order.
 *
 * @since 0.2.0
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public final class EmbeddingResponse extends ApiObject implements ReportsUsage {
  @JsonProperty("model")
  private @Nullable String model;

  @JsonProperty("data")
  private List<Embedding> data = List.of();

  @JsonProperty("usage")
  private @Nullable Usage usage;

  private EmbeddingResponse() {}

  /** {@return the model that computed the embeddings, or null} */
  @Override
  public @Nullable String model() {
    return model;
  }

  /** {@return one vector per input, in the order of the request's inputs; immutable} */
  public List<Embedding> data() {
    return data;
  }

  /** {@return the token counts, or null if the server sent none} */
  @Override
  public @Nullable Usage usage() {
    return usage;
  }

  @Override
  public String toString() {
    return "EmbeddingResponse{model=" + model + ", vectors=" + data.size() + '}';
  }

  /** One input's vector. */
  @JsonInclude(JsonInclude.Include.NON_NULL)
  public static final class Embedding extends ApiObject {
    @JsonProperty("index")
    private int index;

    @JsonProperty("embedding")
    private float[] embedding = new float[0];

    private Embedding() {}

    /** {@return the input's position in the request} */
    public int index() {
      return index;
    }

    /** {@return the vector; a fresh copy on each call} */
    public float[] vector() {
      return embedding.clone();
    }

    @Override
    public String toString() {
      return "Embedding{index=" + index + ", dims=" + embedding.length + '}';
    }
  }
}
