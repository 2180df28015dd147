package io.github.llmrouter.micrometer;

import io.github.llmrouter.api.LlmException;
import io.github.llmrouter.api.ReplicaHttpException;
import org.jspecify.annotations.Nullable;

/**
 * The {@code error.type} of a failure, as OpenTelemetry's conventions define it: a low-cardinality
 * name, never a message. A replica's HTTP refusal is its status code ({@code "503"}); any other
 * failure is its exception's simple class name ({@code "LlmTimeoutException"}); no failure is
 * {@code "none"}.
 */
final class ErrorType {
  static final String NONE = "none";

  private ErrorType() {}

  static String of(@Nullable LlmException failure) {
    if (failure == null) return NONE;
    if (failure instanceof ReplicaHttpException http) return Integer.toString(http.status());
    return failure.getClass().getSimpleName();
  }
}
