package io.github.llmrouter.api;

import org.jspecify.annotations.Nullable;

/**
 * One event of a streamed response, as far as reading the stream needs: the text it adds and
 * whether it ends the first choice. Implemented by this package's chunk types only ({@link
 * ChatChunk} for chat streams, {@link CompletionResponse} for completion streams), so a stream
 * reader needs no adapter per endpoint.
 *
 * @since 0.2.0
 */
public sealed interface StreamChunk extends ReportsUsage permits ChatChunk, CompletionResponse {
  /** {@return the text this chunk adds to the first choice; empty, never null, if it adds none} */
  String text();

  /**
   * {@return why the first choice stopped ({@code stop}, {@code length}, ...), on that choice's last
   * chunk; null on the chunks before it and on a chunk without choices}
   */
  @Nullable String finishReason();
}
