package io.github.llmrouter.api;

import org.jspecify.annotations.Nullable;

/**
 * An answer, or a part of one, that says what it cost and who produced it: the token usage the
 * server reported and the model it names. Every answer and chunk type of this package is one, so
 * code that only needs these two facts (routing feedback, meters, logs) reads any answer the same
 * way.
 *
 * @since 0.3.0
 */
public interface ReportsUsage {
  /**
   * {@return the token usage the server reported; null if it reported none (a stream's chunks
   * carry it on one of the last, when the server honours {@code stream_options.include_usage})}
   */
  @Nullable Usage usage();

  /** {@return the model that produced the answer, as the server names it; null if absent} */
  @Nullable String model();
}
