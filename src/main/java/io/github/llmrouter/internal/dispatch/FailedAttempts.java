package io.github.llmrouter.internal.dispatch;

import io.github.llmrouter.api.FailedAttempt;
import io.github.llmrouter.api.LlmException;
import io.github.llmrouter.api.LlmTimeoutException;
import io.github.llmrouter.api.NoReplicaAvailableException;
import io.github.llmrouter.api.RetriesExhaustedException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * The failed attempts of one call, and the exception the call ends with when it will not try
 * again, by the rule documented on {@code LlmException}: a failure another attempt could not fix (the
 * replica judged the request) is thrown as it is; the deadline passing is an {@link
 * LlmTimeoutException}; every other end is the router giving up: {@link
 * RetriesExhaustedException} with every attempt, or {@link NoReplicaAvailableException} when no
 * attempt could be made at all. Each keeps the earlier failures. Confined to one call.
 */
final class FailedAttempts {
  private final int expected;
  private @Nullable List<FailedAttempt> list;

  /** @param expected how many attempts a call may make, to size the list */
  FailedAttempts(int expected) {
    this.expected = expected;
  }

  void add(int attempt, String replicaId, long durationNanos, LlmException failure) {
    if (list == null) list = new ArrayList<>(expected);
    list.add(new FailedAttempt(Math.max(1, attempt), replicaId, Duration.ofNanos(durationNanos),
        failure));
  }

  /** The replica judged the request: its answer stands, with the earlier attempts attached. */
  LlmException rejected(LlmException failure) {
    suppressInto(failure, failure);
    return failure;
  }

  /** The router gives up: no attempt could help, or none is allowed. */
  LlmException giveUp(String why) {
    return list == null
        ? new NoReplicaAvailableException("no attempt was made: " + why)
        : new RetriesExhaustedException(why, list);
  }

  /**
   * The call's deadline of {@code timeout} passed after {@code attempts} attempts; {@code last} is
   * the attempt it cut short, if any.
   */
  LlmTimeoutException deadline(Duration timeout, int attempts, @Nullable LlmException last) {
    LlmTimeoutException e = new LlmTimeoutException("call deadline of " + timeout + " expired after "
        + attempts + " attempt" + (attempts == 1 ? "" : "s"), null, last, false);
    suppressInto(e, last);
    return e;
  }

  /** Attaches every failure but {@code except} to {@code e}. */
  private void suppressInto(LlmException e, @Nullable LlmException except) {
    if (list == null) return;
    for (FailedAttempt f : list) if (f.failure() != except) e.addSuppressed(f.failure());
  }
}
