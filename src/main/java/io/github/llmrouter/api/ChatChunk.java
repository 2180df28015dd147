package io.github.llmrouter.api;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * One {@code chat.completion.chunk} of a streamed chat completion. The last chunk of a stream may
 * carry only {@link #usage()} (when the server honours {@code stream_options.include_usage}).
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public final class ChatChunk extends ApiObject {
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

  public @Nullable String id() {
    return id;
  }

  public @Nullable String model() {
    return model;
  }

  public long created() {
    return created;
  }

  public List<Delta> choices() {
    return choices;
  }

  public @Nullable Usage usage() {
    return usage;
  }

  /** The text this chunk adds to the first choice; empty if none. */
  public String text() {
    if (choices.isEmpty() || choices.get(0).delta() == null) return "";
    String t = choices.get(0).delta().text();
    return t == null ? "" : t;
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

    public int index() {
      return index;
    }

    /** The increment: a role on the first chunk, then pieces of content. */
    public @Nullable ChatMessage delta() {
      return delta;
    }

    public @Nullable String finishReason() {
      return finishReason;
    }

    @Override
    public String toString() {
      return "Delta{index=" + index + ", finishReason=" + finishReason + '}';
    }
  }
}
