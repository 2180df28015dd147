package io.github.llmrouter.api;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * One {@code chat.completion.chunk} of a streamed chat completion. The last chunk of a stream may
 * carry only {@link #usage()} (when the server honours {@code stream_options.include_usage}).
 *
 * @since 0.2.0
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public final class ChatChunk extends ApiObject implements StreamChunk {
  @JsonProperty("id")
  private @Nullable String id;

  @JsonProperty("model")
  private @Nullable String model;

  @JsonProperty("created")
  private long created;

  @JsonProperty("choices")
  private List<Delta> choices = List.of();

  @JsonProperty("usage")
  private @Nullable Usage usage;

  private ChatChunk() {}

  /** {@return the chunk's id as the server sent it (equal across one stream's chunks), or null} */
  public @Nullable String id() {
    return id;
  }

  /** {@return the model that generated the chunk, or null if the server left it out} */
  @Override
  public @Nullable String model() {
    return model;
  }

  /** {@return the creation time in epoch seconds, as the server reported it; 0 if absent} */
  public long created() {
    return created;
  }

  /** {@return this chunk's increments, one per choice; immutable, empty for a usage-only chunk} */
  public List<Delta> choices() {
    return choices;
  }

  /** {@return token counts, present only on the last chunk of a stream that asked for them} */
  @Override
  public @Nullable Usage usage() {
    return usage;
  }

  @Override
  public String text() {
    if (choices.isEmpty() || choices.get(0).delta() == null) return "";
    String t = choices.get(0).delta().text();
    return t == null ? "" : t;
  }

  @Override
  public @Nullable String finishReason() {
    return choices.isEmpty() ? null : choices.get(0).finishReason();
  }

  @Override
  public String toString() {
    return "ChatChunk{id=" + id + ", choices=" + choices.size() + ", usage=" + usage + '}';
  }

  /** One choice's increment. */
  @JsonInclude(JsonInclude.Include.NON_NULL)
  public static final class Delta extends ApiObject {
    @JsonProperty("index")
    private int index;

    @JsonProperty("delta")
    private @Nullable ChatMessage delta;

    @JsonProperty("finish_reason")
    private @Nullable String finishReason;

    private Delta() {}

    /** {@return the index of the choice this increment belongs to} */
    public int index() {
      return index;
    }

    /**
     * {@return the increment: a role on the first chunk, then pieces of content; null if absent}
     */
    public @Nullable ChatMessage delta() {
      return delta;
    }

    /**
     * {@return why generation stopped ({@code stop}, {@code length}, ...) on a choice's last chunk;
     * null before}
     */
    public @Nullable String finishReason() {
      return finishReason;
    }

    @Override
    public String toString() {
      return "Delta{index=" + index + ", finishReason=" + finishReason + '}';
    }
  }
}
