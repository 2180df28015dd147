package io.github.llmrouter.internal.dispatch;

import io.github.llmrouter.api.LlmException;
import io.github.llmrouter.internal.transport.HttpTransport;
import okhttp3.Call;

/**
 * One attempt's exchange with one replica, as the {@link AttemptLoop} runs it: blocking, async
 * and streaming calls differ only in their exchange.
 *
 * @param <R> what a successful exchange yields: an answer, or a stream
 */
@FunctionalInterface
interface Exchange<R> {
  /**
   * Starts the exchange and reports how it went to {@code outcome}: before returning for a
   * blocking call, from an OkHttp thread for an asynchronous one.
   *
   * @param attempt the attempt: its replica, the in-flight count it holds, the policy's account
   */
  void start(Attempt attempt, Call call, HttpTransport.Outcome<R> outcome);

  /** An exchange run on the caller's thread. */
  @FunctionalInterface
  interface Blocking<R> {
    /**
     * Runs the exchange.
     *
     * @param attempt the attempt: its replica, the in-flight count it holds, the policy's account
     * @return the answer
     * @throws LlmException the classified failure
     */
    R run(Attempt attempt, Call call);
  }

  /** {@code exchange} as an {@code Exchange} that reports its outcome before it returns. */
  static <R> Exchange<R> blocking(Blocking<R> exchange) {
    return (attempt, call, outcome) -> {
      R answer;
      try {
        answer = exchange.run(attempt, call);
      } catch (LlmException e) {
        outcome.failed(e);
        return;
      }
      outcome.succeeded(answer);
    };
  }
}
