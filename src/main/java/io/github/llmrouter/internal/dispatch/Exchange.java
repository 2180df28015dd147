package io.github.llmrouter.internal.dispatch;

import io.github.llmrouter.api.LlmException;
import io.github.llmrouter.internal.transport.HttpTransport;
import io.github.llmrouter.load.InFlightCounter;
import io.github.llmrouter.replica.Replica;
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
   * @param counter the replica's in-flight counter, held for the attempt
   */
  void start(Replica replica, Call call, InFlightCounter counter,
      HttpTransport.Outcome<R> outcome);

  /** An exchange run on the caller's thread. */
  @FunctionalInterface
  interface Blocking<R> {
    /**
     * Runs the exchange.
     *
     * @param counter the replica's in-flight counter, held for the attempt
     * @return the answer
     * @throws LlmException the classified failure
     */
    R run(Replica replica, Call call, InFlightCounter counter);
  }

  /** {@code exchange} as an {@code Exchange} that reports its outcome before it returns. */
  static <R> Exchange<R> blocking(Blocking<R> exchange) {
    return (replica, call, counter, outcome) -> {
      R answer;
      try {
        answer = exchange.run(replica, call, counter);
      } catch (LlmException e) {
        outcome.failed(e);
        return;
      }
      outcome.succeeded(answer);
    };
  }
}
