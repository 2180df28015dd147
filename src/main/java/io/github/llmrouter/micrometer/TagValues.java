package io.github.llmrouter.micrometer;

import io.github.llmrouter.api.LlmException;
import io.github.llmrouter.api.ReplicaHttpException;
import io.github.llmrouter.observe.AttemptEndedEvent;
import java.util.Arrays;
import java.util.Locale;
import org.jspecify.annotations.Nullable;

/**
 * Tag values shared by the meters and the observations. The {@code error.type} of a failure, as
 * OpenTelemetry's conventions define it: a low-cardinality name, never a message. A replica's HTTP
 * refusal is its status code ({@code "503"}); any other failure is its exception's simple class
 * name ({@code "LlmTimeoutException"}); no failure is {@code "none"}.
 */
final class TagValues {
  static final String NONE = "none";

  /** The {@code outcome} tag of each {@link AttemptEndedEvent.Outcome}, by ordinal. */
  private static final String[] OUTCOMES = Arrays.stream(AttemptEndedEvent.Outcome.values())
      .map(o -> o.name().toLowerCase(Locale.ROOT)).toArray(String[]::new);

  private TagValues() {}

  /** {@return the lower-case tag value of {@code outcome}} */
  static String outcome(AttemptEndedEvent.Outcome outcome) {
    return OUTCOMES[outcome.ordinal()];
  }

  /** {@return whether {@code operation} is a stream's, such as {@code chat.stream}} */
  static boolean streamed(String operation) {
    return operation.endsWith(".stream");
  }

  static String of(@Nullable LlmException failure) {
    if (failure == null) return NONE;
    if (failure instanceof ReplicaHttpException http) return Integer.toString(http.status());
    return failure.getClass().getSimpleName();
  }
}
