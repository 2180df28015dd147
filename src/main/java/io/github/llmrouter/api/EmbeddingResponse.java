package io.github.llmrouter.api;

import com.fasterxml.jackson.annotation.JsonAnyGetter;
import com.fasterxml.jackson.annotation.JsonAnySetter;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/** An OpenAI-compatible embeddings response: one vector per input, in input order. */
@JsonInclude(JsonInclude.Include.NON_NULL)
public final class EmbeddingResponse {
  @JsonProperty("model")
  private @Nullable String model;

  @JsonProperty("data")
  private List<Embedding> data = List.of();

  @JsonProperty("usage")
  private @Nullable Usage usage;

  private Map<String, Object> extra = JsonExtras.none();

  private EmbeddingResponse() {}

  public @Nullable String model() {
    return model;
  }

  public List<Embedding> data() {
    return data;
  }

  public @Nullable Usage usage() {
    return usage;
  }

  /** Fields this type does not model. */
  @JsonAnyGetter
  public Map<String, Object> extra() {
    return JsonExtras.view(extra);
  }

  @JsonAnySetter
  private void putExtra(String field, Object value) {
    extra = JsonExtras.put(extra, field, value);
  }

  @Override
  public String toString() {
    return "EmbeddingResponse{model=" + model + ", vectors=" + data.size() + '}';
  }

  /** One input's vector. */
  @JsonInclude(JsonInclude.Include.NON_NULL)
  public static final class Embedding {
    @JsonProperty("index")
    private int index;

    @JsonProperty("embedding")
    private float[] embedding = new float[0];

    private Map<String, Object> extra = JsonExtras.none();

    private Embedding() {}

    /** The input's position in the request. */
    public int index() {
      return index;
    }

    /** The vector (a copy). */
    public float[] vector() {
      return embedding.clone();
    }

    /** Fields this type does not model. */
    @JsonAnyGetter
    public Map<String, Object> extra() {
      return JsonExtras.view(extra);
    }

    @JsonAnySetter
    private void putExtra(String field, Object value) {
      extra = JsonExtras.put(extra, field, value);
    }

    @Override
    public String toString() {
      return "Embedding{index=" + index + ", dims=" + embedding.length + '}';
    }
  }
}
