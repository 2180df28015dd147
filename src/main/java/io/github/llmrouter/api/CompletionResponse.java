package io.github.llmrouter.api;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * An OpenAI-compatible {@code text_completion}: the whole response of a completion call, or one
 * chunk of a streamed one (the shapes are the same; a chunk's choices carry the new text).
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public final class CompletionResponse extends ApiObject {
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

  public @Nullable String id() {
    return id;
  }

  public @Nullable String model() {
    return model;
  }

  public long created() {
    return created;
  }

  public List<Choice> choices() {
    return choices;
  }

  public @Nullable Usage usage() {
    return usage;
  }

  /** The first choice's text, or empty. */
  public String text() {
    if (choices.isEmpty() || choices.get(0).text() == null) return "";
    return choices.get(0).text();
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

    public int index() {
      return index;
    }

    public @Nullable String text() {
      return text;
    }

    public @Nullable String finishReason() {
      return finishReason;
    }

    @Override
    public String toString() {
      return "Choice{index=" + index + ", finishReason=" + finishReason + '}';
    }
  }
}
