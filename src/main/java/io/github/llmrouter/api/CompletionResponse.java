package io.github.llmrouter.api;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * An OpenAI-compatible {@code text_completion}: the whole response of a completion call, or one
 * chunk of a streamed one (the shapes are the same; a chunk's choices carry the new text).
 *
 * @since 0.2.0
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public final class CompletionResponse extends ApiObject implements StreamChunk {
  @JsonProperty("id")
  private @Nullable String id;

  @JsonProperty("model")
  private @Nullable String model;

  @JsonProperty("created")
  private long created;

  @JsonProperty("choices")
  private List<Choice> choices = List.of();

  @JsonProperty("usage")
  private @Nullable Usage usage;

  private CompletionResponse() {}

  /** {@return the response id as the server sent it (shared by a stream's chunks), or null} */
  public @Nullable String id() {
    return id;
  }

  /** {@return the model that answered, as the server named it, or null} */
  @Override
  public @Nullable String model() {
    return model;
  }

  /** {@return the creation time in epoch seconds, as the server reported it; 0 if absent} */
  public long created() {
    return created;
  }

  /** {@return the generated alternatives (for a stream chunk, their increments); immutable} */
  public List<Choice> choices() {
    return choices;
  }

  /** {@return the token counts, or null if the server sent none} */
  @Override
  public @Nullable Usage usage() {
    return usage;
  }

  /** {@return the first choice's text (of a stream chunk: its increment); empty, never null, if there is none} */
  @Override
  public String text() {
    if (choices.isEmpty() || choices.get(0).text() == null) return "";
    return choices.get(0).text();
  }

  /** {@return why the first choice stopped ({@code stop}, {@code length}, ...), or null} */
  @Override
  public @Nullable String finishReason() {
    return choices.isEmpty() ? null : choices.get(0).finishReason();
  }

  @Override
  public String toString() {
    return "CompletionResponse{id=" + id + ", choices=" + choices.size() + ", usage=" + usage + '}';
  }

  /** One generated alternative. */
  @JsonInclude(JsonInclude.Include.NON_NULL)
  public static final class Choice extends ApiObject {
    @JsonProperty("index")
    private int index;

    @JsonProperty("text")
    private @Nullable String text;

    @JsonProperty("finish_reason")
    private @Nullable String finishReason;

    private Choice() {}

    /** {@return this choice's position among the response's choices} */
    public int index() {
      return index;
    }

    /** {@return the generated text (for a stream chunk, its increment), or null} */
    public @Nullable String text() {
      return text;
    }

    /** {@return why generation stopped: {@code stop}, {@code length}, ..., or null} */
    public @Nullable String finishReason() {
      return finishReason;
    }

    @Override
    public String toString() {
      return "Choice{index=" + index + ", finishReason=" + finishReason + '}';
    }
  }
}
