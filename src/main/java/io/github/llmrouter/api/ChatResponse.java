package io.github.llmrouter.api;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * An OpenAI-compatible {@code chat.completion} response. Fields the server sent that this type does
 * not model are kept in {@link #extra()}.
 *
 * @since 0.2.0
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public final class ChatResponse extends ApiObject implements ReportsUsage {
  @JsonProperty("id")
  private @Nullable String id;

  @JsonProperty("object")
  private @Nullable String object;

  @JsonProperty("created")
  private long created;

  @JsonProperty("model")
  private @Nullable String model;

  @JsonProperty("choices")
  private List<Choice> choices = List.of();

  @JsonProperty("usage")
  private @Nullable Usage usage;

  private ChatResponse() {}

  /** {@return the response id as the server sent it, or null} */
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

  /** {@return the generated alternatives in index order; immutable, never null} */
  public List<Choice> choices() {
    return choices;
  }

  /** {@return the token counts, or null if the server sent none} */
  @Override
  public @Nullable Usage usage() {
    return usage;
  }

  /** {@return the text of the first choice's message, or null if there is none} */
  public @Nullable String text() {
    return choices.isEmpty() || choices.get(0).message() == null ? null
        : choices.get(0).message().text();
  }

  @Override
  public String toString() {
    return "ChatResponse{id=" + id + ", model=" + model + ", choices=" + choices.size()
        + ", usage=" + usage + '}';
  }

  /** One generated alternative. */
  @JsonInclude(JsonInclude.Include.NON_NULL)
  public static final class Choice extends ApiObject {
    @JsonProperty("index")
    private int index;

    @JsonProperty("message")
    private @Nullable ChatMessage message;

    @JsonProperty("finish_reason")
    private @Nullable String finishReason;

    private Choice() {}

    /** {@return this choice's position among the response's choices} */
    public int index() {
      return index;
    }

    /** {@return the generated message, or null if the server sent none} */
    public @Nullable ChatMessage message() {
      return message;
    }

    /**
     * {@return why generation stopped: {@code stop}, {@code length}, {@code tool_calls}, ..., or
     * null}
     */
    public @Nullable String finishReason() {
      return finishReason;
    }

    @Override
    public String toString() {
      return "Choice{index=" + index + ", finishReason=" + finishReason + '}';
    }
  }
}
