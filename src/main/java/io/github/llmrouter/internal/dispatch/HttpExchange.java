package io.github.llmrouter.internal.dispatch;

import io.github.llmrouter.api.LlmException;
import io.github.llmrouter.api.RawRequest;
import io.github.llmrouter.internal.transport.Endpoint;
import io.github.llmrouter.internal.transport.HttpTransport;
import okhttp3.Call;

/**
 * Exchanges over OkHttp: each attempt's request becomes a {@link Call} to its replica, run on the
 * caller's thread or on OkHttp's. Stateless.
 */
final class HttpExchange {
  private HttpExchange() {}

  /** How an exchange runs its call. */
  @FunctionalInterface
  interface Run<R> {
    /** Runs {@code call} for {@code attempt} and reports to {@code outcome}. */
    void start(Attempt attempt, Call call, HttpTransport.Outcome<R> outcome);
  }

  /** A call run on the caller's thread. */
  @FunctionalInterface
  interface Blocking<R> {
    /**
     * Runs {@code call} for {@code attempt}.
     *
     * @return the answer
     * @throws LlmException the classified failure
     */
    R run(Attempt attempt, Call call);
  }

  /** The exchange that sends {@code raw} to {@code endpoint} and runs its call with {@code run}. */
  static <R> Exchange<R> of(HttpTransport transport, Endpoint<?> endpoint, RawRequest raw,
      Run<R> run) {
    return (attempt, timeoutNanos, headers) -> {
      Call call = transport.newCall(attempt.replica, endpoint, raw, timeoutNanos, attempt,
          headers);
      return new Exchange.Prepared<>() {
        @Override
        public void start(HttpTransport.Outcome<R> outcome) {
          run.start(attempt, call, outcome);
        }

        @Override
        public void cancel() {
          call.cancel();
        }
      };
    };
  }

  /** {@link #of} for a call run on the caller's thread, which reports before it returns. */
  static <R> Exchange<R> blocking(HttpTransport transport, Endpoint<?> endpoint, RawRequest raw,
      Blocking<R> exchange) {
    return of(transport, endpoint, raw, (attempt, call, outcome) -> {
      R answer;
      try {
        answer = exchange.run(attempt, call);
      } catch (LlmException e) {
        outcome.failed(e);
        return;
      }
      outcome.succeeded(answer);
    });
  }
}
