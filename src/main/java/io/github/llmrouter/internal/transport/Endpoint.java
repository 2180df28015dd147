package io.github.llmrouter.internal.transport;

import io.github.llmrouter.api.ChatChunk;
import io.github.llmrouter.api.ChatResponse;
import io.github.llmrouter.api.CompletionResponse;
import io.github.llmrouter.api.EmbeddingResponse;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;

/**
 * One OpenAI-compatible operation the client calls: its name in routing events, its path, whether
 * it streams, the type its answer (or each streamed chunk) binds to, and what a complete answer must
 * hold. An answer that binds but lacks it ({@code null}, {@code {}}, a chat completion without
 * {@code choices}) is a malformed answer, failed over like any other replica failure, never
 * returned to the caller. Immutable constants.
 *
 * @param <T> the answer type, or the chunk type of a streaming operation
 */
public final class Endpoint<T> {
  private static final String CHAT_PATH = "/v1/chat/completions";
  private static final String COMPLETIONS_PATH = "/v1/completions";

  /** A chat completion; holds at least one choice. */
  public static final Endpoint<ChatResponse> CHAT = new Endpoint<>("chat", CHAT_PATH, false,
      ChatResponse.class, r -> r.choices().isEmpty() ? "no choices" : null);
  /** A streamed chat completion. */
  public static final Endpoint<ChatChunk> CHAT_STREAM = new Endpoint<>("chat.stream", CHAT_PATH,
      true, ChatChunk.class, c -> null);
  /** A text completion; holds at least one choice. */
  public static final Endpoint<CompletionResponse> COMPLETION = new Endpoint<>("completion",
      COMPLETIONS_PATH, false, CompletionResponse.class,
      r -> r.choices().isEmpty() ? "no choices" : null);
  /** A streamed text completion. */
  public static final Endpoint<CompletionResponse> COMPLETION_STREAM = new Endpoint<>(
      "completion.stream", COMPLETIONS_PATH, true, CompletionResponse.class, c -> null);
  /** Embeddings; hold at least one vector. */
  public static final Endpoint<EmbeddingResponse> EMBEDDINGS = new Endpoint<>("embeddings",
      "/v1/embeddings", false, EmbeddingResponse.class, r -> r.data().isEmpty() ? "no data" : null);

  private final String operation;
  private final String path;
  private final boolean stream;
  private final Class<T> type;
  private final Function<T, @Nullable String> defect;

  private Endpoint(String operation, String path, boolean stream, Class<T> type,
      Function<T, @Nullable String> defect) {
    this.operation = operation;
    this.path = path;
    this.stream = stream;
    this.type = type;
    this.defect = defect;
  }

  /** {@return the operation's name in routing events: {@code chat}, {@code chat.stream}, ...} */
  public String operation() {
    return operation;
  }

  /**
   * The request body for this operation: {@code request} as JSON, with the stream flags for a
   * streaming operation.
   *
   * @param request an {@code api} request object
   * @return the body's bytes
   * @throws io.github.llmrouter.api.LlmException if the request cannot be written as JSON
   */
  public byte[] body(Object request) {
    return Json.requestBody(request, stream);
  }

  /** {@return whether the answer is an event stream, read by the caller after the call returns} */
  public boolean streaming() {
    return stream;
  }

  String path() {
    return path;
  }

  Class<T> type() {
    return type;
  }

  /** What {@code value} lacks for this operation: a phrase for an error message, or null. */
  @Nullable String defect(T value) {
    return defect.apply(value);
  }

  @Override
  public String toString() {
    return operation + " " + path;
  }
}
