package io.github.llmrouter.internal.transport;

/**
 * Told when the answer to an exchange begins: its status line and headers have arrived, so the
 * replica has started answering and the exchange can no longer be abandoned silently. Set on a
 * call through {@link HttpTransport#newCall}; called once, on the thread running the exchange.
 */
@FunctionalInterface
public interface AnswerWatch {
  /** The answer's status line and headers arrived. */
  void answerBegan();
}
