package io.github.llmrouter.internal.dispatch;

import io.github.llmrouter.api.LlmException;
import io.github.llmrouter.internal.transport.AddedHeaders;
import io.github.llmrouter.internal.transport.HttpTransport;
import org.jspecify.annotations.Nullable;

/**
 * One attempt's exchange with one replica, as the {@link AttemptLoop} runs it: blocking, async
 * and streaming calls differ only in their exchange. The loop knows nothing of how an exchange
 * reaches its replica ({@link HttpExchange} does it over OkHttp), so a test can script one.
 *
 * @param <R> what a successful exchange yields: an answer, or a stream
 */
@FunctionalInterface
interface Exchange<R> {
  /**
   * Prepares {@code attempt}'s exchange; nothing is sent yet.
   *
   * @param attempt the attempt: its replica, and the watch told when the answer begins
   * @param timeoutNanos bounds the whole exchange (0 = none)
   * @param headers the headers the listeners added, or null
   * @return the exchange, ready to start
   * @throws LlmException if the request cannot be built
   */
  Prepared<R> prepare(Attempt attempt, long timeoutNanos, @Nullable AddedHeaders headers);

  /** An exchange ready to start. */
  interface Prepared<R> {
    /**
     * Starts the exchange and reports how it went to {@code outcome}: before returning for a
     * blocking call, from another thread for an asynchronous one.
     */
    void start(HttpTransport.Outcome<R> outcome);

    /** Cancels the exchange, wherever it is; its outcome is then a failure, if not told yet. */
    void cancel();
  }
}
