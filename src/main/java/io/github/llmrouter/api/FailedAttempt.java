package io.github.llmrouter.api;

import static java.util.Objects.requireNonNull;

import java.time.Duration;
import java.util.OptionalInt;

/**
 * One failed attempt of a call, as listed by {@link RetriesExhaustedException#attempts()}: which
 * replica was tried, for how long, and what went wrong. Immutable.
 *
 * @param number the attempt's number within its call, from 1
 * @param replicaId the replica the attempt went to
 * @param duration from sending the request to the failure
 * @param failure what went wrong: an HTTP status ({@link ReplicaHttpException}), a connection
 *     failure ({@link ReplicaUnreachableException}), a timeout ({@link LlmTimeoutException}), a
 *     malformed answer ({@link MalformedResponseException}), ...
 *
 * @since 0.2.0
 */
public record FailedAttempt(int number, String replicaId, Duration duration,
    LlmException failure) {
  /**
   * Checks the components.
   *
   * @param number the attempt's number within its call, from 1
   * @param replicaId the replica the attempt went to
   * @param duration from sending the request to the failure
   * @param failure what went wrong
   */
  public FailedAttempt {
    if (number < 1) throw new IllegalArgumentException("number must be >= 1, got " + number);
    requireNonNull(replicaId, "replicaId");
    requireNonNull(duration, "duration");
    requireNonNull(failure, "failure");
  }

  /**
   * The HTTP status the replica answered with.
   *
   * @return the status, or empty if the replica sent no HTTP answer
   */
  public OptionalInt status() {
    return failure instanceof ReplicaHttpException
        ? OptionalInt.of(((ReplicaHttpException) failure).status()) : OptionalInt.empty();
  }

  /** For example {@code #2 10.0.0.8:8000 after 12 ms: replica 10.0.0.8:8000 answered HTTP 503}. */
  @Override
  public String toString() {
    return "#" + number + " " + replicaId + " after " + duration.toMillis() + " ms: "
        + failure.getMessage();
  }
}
