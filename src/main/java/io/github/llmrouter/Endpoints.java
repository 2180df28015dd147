package io.github.llmrouter;

import io.github.llmrouter.api.ChatChunk;
import io.github.llmrouter.api.ChatResponse;
import io.github.llmrouter.api.CompletionResponse;
import io.github.llmrouter.api.EmbeddingResponse;
import io.github.llmrouter.transport.ResponseShape;
import io.github.llmrouter.transport.SseStream;
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
  static final ResponseShape<ChatResponse> CHAT = new ResponseShape<>() {
    @Override
    public Class<ChatResponse> type() {
      return ChatResponse.class;
    }

    @Override
    public @Nullable String defect(ChatResponse value) {
      return value.choices().isEmpty() ? "no choices" : null;
    }
  };

  /** A text completion holds at least one choice. */
  static final ResponseShape<CompletionResponse> COMPLETION = new ResponseShape<>() {
    @Override
    public Class<CompletionResponse> type() {
      return CompletionResponse.class;
    }

    @Override
    public @Nullable String defect(CompletionResponse value) {
      return value.choices().isEmpty() ? "no choices" : null;
    }
  };

  /** An embeddings answer holds at least one vector. */
  static final ResponseShape<EmbeddingResponse> EMBEDDINGS = new ResponseShape<>() {
    @Override
    public Class<EmbeddingResponse> type() {
      return EmbeddingResponse.class;
    }

    @Override
    public @Nullable String defect(EmbeddingResponse value) {
      return value.data().isEmpty() ? "no data" : null;
    }
  };

  static final SseStream.ChunkAdapter<ChatChunk> CHAT_CHUNKS = new SseStream.ChunkAdapter<>() {
    @Override
    public String textOf(ChatChunk chunk) {
      return chunk.text();
    }

    @Override
    public boolean isFinal(ChatChunk chunk) {
      return !chunk.choices().isEmpty() && chunk.choices().get(0).finishReason() != null;
    }
  };

  static final SseStream.ChunkAdapter<CompletionResponse> COMPLETION_CHUNKS =
      new SseStream.ChunkAdapter<>() {
        @Override
        public String textOf(CompletionResponse chunk) {
          return chunk.text();
        }

        @Override
        public boolean isFinal(CompletionResponse chunk) {
          return !chunk.choices().isEmpty() && chunk.choices().get(0).finishReason() != null;
        }
      };

  private Endpoints() {}
}
