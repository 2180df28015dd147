package io.github.llmrouter;

import io.github.llmrouter.api.ChatChunk;
import io.github.llmrouter.api.ChatResponse;
import io.github.llmrouter.api.CompletionResponse;
import io.github.llmrouter.api.EmbeddingResponse;
import io.github.llmrouter.transport.ResponseShape;
import io.github.llmrouter.transport.SseStream;
import java.util.function.Function;
import java.util.function.Predicate;
import org.jspecify.annotations.Nullable;

/**
 * The OpenAI-compatible endpoints the client calls: their paths, what a complete answer of each
 * must hold, and how the stream reader sees their chunks.
 */
final class Endpoints {
  static final String CHAT_PATH = "/v1/chat/completions";
  static final String COMPLETIONS_PATH = "/v1/completions";
  static final String EMBEDDINGS_PATH = "/v1/embeddings";

  /** A chat completion holds at least one choice. */
  static final ResponseShape<ChatResponse> CHAT =
      shape(ChatResponse.class, r -> r.choices().isEmpty(), "no choices");

  /** A text completion holds at least one choice. */
  static final ResponseShape<CompletionResponse> COMPLETION =
      shape(CompletionResponse.class, r -> r.choices().isEmpty(), "no choices");

  /** An embeddings answer holds at least one vector. */
  static final ResponseShape<EmbeddingResponse> EMBEDDINGS =
      shape(EmbeddingResponse.class, r -> r.data().isEmpty(), "no data");

  private static <T> ResponseShape<T> shape(Class<T> type, Predicate<T> incomplete,
      String defect) {
    return new ResponseShape<>() {
      @Override
      public Class<T> type() {
        return type;
      }

      @Override
      public @Nullable String defect(T value) {
        return incomplete.test(value) ? defect : null;
      }
    };
  }

  static final SseStream.ChunkAdapter<ChatChunk> CHAT_CHUNKS = chunks(ChatChunk::text,
      c -> !c.choices().isEmpty() && c.choices().get(0).finishReason() != null);

  static final SseStream.ChunkAdapter<CompletionResponse> COMPLETION_CHUNKS =
      chunks(CompletionResponse::text,
          c -> !c.choices().isEmpty() && c.choices().get(0).finishReason() != null);

  private static <T> SseStream.ChunkAdapter<T> chunks(Function<T, String> text,
      Predicate<T> isFinal) {
    return new SseStream.ChunkAdapter<>() {
      @Override
      public String textOf(T chunk) {
        return text.apply(chunk);
      }

      @Override
      public boolean isFinal(T chunk) {
        return isFinal.test(chunk);
      }
    };
  }

  private Endpoints() {}
}
