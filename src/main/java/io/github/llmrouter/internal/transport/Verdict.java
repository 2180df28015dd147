package io.github.llmrouter.internal.transport;

import io.github.llmrouter.api.LlmException;
import io.github.llmrouter.api.LlmTimeoutException;
import io.github.llmrouter.api.MalformedResponseException;
import io.github.llmrouter.api.ReplicaHttpException;
import io.github.llmrouter.api.ReplicaUnreachableException;
import java.io.IOException;
import java.net.ConnectException;
import java.time.Duration;
import java.util.Locale;
import org.jspecify.annotations.Nullable;

/**
 * What one failed attempt means, decided once: whether another attempt may help, whom it blames,
 * and what it says about reaching the replica. The retry decision, ejection and circuit breakers,
 * the stream readers and the exception a call ends with all read this value instead of asking the
 * exception themselves; a new rule about failures is a change here and in its test.
 *
 * @param blame who the failure is about
 * @param retryable whether another attempt, on another replica, may succeed
 * @param unreachable the replica could not be reached at all (a refused connection, or it stopped
 *     accepting connections while the attempt was in flight): ejection may be quicker
 * @param refused the connection was refused: the replica's process is not listening
 * @param status the HTTP status the replica answered with, or -1 if it did not answer one
 * @param retryAfter how long the replica asked to be left alone ({@code Retry-After}), or null
 * @param label a short description for ejection reasons and logs ({@code "HTTP 503"},
 *     {@code "timeout"}), never any text the replica sent
 */
public record Verdict(Blame blame, boolean retryable, boolean unreachable, boolean refused,
    int status, @Nullable Duration retryAfter, String label) {

  /** Who a failure is about. */
  public enum Blame {
    /**
     * The replica failed: a 5xx, no answer in time, unreachable, a malformed or cut answer. Counts
     * against it for outlier detection and its circuit breaker.
     */
    REPLICA,
    /**
     * The replica judged the request (a 4xx): the replica works. Retryable only where the status
     * is (408, 429 by default).
     */
    REQUEST,
    /** The call's own deadline cut the attempt short: says nothing about the replica. */
    DEADLINE,
    /**
     * The caller or the client ended it (interrupted, closed), or a stream already broken is
     * reported again: says nothing about the replica.
     */
    NONE
  }

  /** The verdict on {@code failure}. Cheap: a few type tests, no allocation but the value. */
  public static Verdict of(LlmException failure) {
    if (failure instanceof ReplicaHttpException r) {
      return new Verdict(r.status() >= 500 ? Blame.REPLICA : Blame.REQUEST, r.isRetryable(), false,
          false, r.status(), r.retryAfter(), "HTTP " + r.status());
    }
    if (failure instanceof LlmTimeoutException t) {
      // A timeout that is not retryable is the call's deadline; one that is, a replica too slow.
      return t.isRetryable() ? new Verdict(Blame.REPLICA, true, false, false, -1, null, "timeout")
          : new Verdict(Blame.DEADLINE, false, false, false, -1, null, "deadline");
    }
    if (failure instanceof ReplicaUnreachableException) {
      Throwable cause = failure.getCause();
      boolean refused = cause instanceof ConnectException;
      return new Verdict(Blame.REPLICA, true, refused || cause instanceof ReplicaGone, refused, -1,
          null, cause == null ? "unreachable"
              : "unreachable (" + cause.getClass().getSimpleName() + ")");
    }
    if (failure instanceof MalformedResponseException) {
      return new Verdict(Blame.REPLICA, true, false, false, -1, null, "malformed response");
    }
    // Interrupted, closed, a stream already cut (its own cause was judged when it broke).
    return new Verdict(Blame.NONE, failure.isRetryable(), false, false, -1, null, "failed");
  }

  /**
   * Whether {@code failure} is a replica's answer that it does not know the model asked for: 404
   * (vLLM, SGLang), or 400 with a message that the model was not found (llama.cpp's router mode).
   * What the replicas serve may then have changed.
   */
  public static boolean modelUnknown(LlmException failure) {
    if (!(failure instanceof ReplicaHttpException r)) return false;
    if (r.status() == 404) return true;
    String message = r.serverMessage();
    if (r.status() != 400 || message == null) return false;
    String m = message.toLowerCase(Locale.ROOT);
    return m.contains("model") && m.contains("not found");
  }

  /** {@return whether this is the call's deadline cutting an attempt short} */
  public boolean deadline() {
    return blame == Blame.DEADLINE;
  }

  /** {@return whether this counts against the replica (ejection, circuit breaker)} */
  public boolean replicaFault() {
    return blame == Blame.REPLICA;
  }

  /**
   * Why an attempt in flight was abandoned: its replica stopped accepting connections, or stopped
   * answering, before the attempt got any answer. The attempt fails over like one that could not
   * connect.
   */
  public static final class ReplicaGone extends IOException {
    private static final long serialVersionUID = 1L;

    /**
     * The cause of a {@code ReplicaUnreachableException} for an abandoned attempt.
     *
     * @param what what the replica did, e.g. {@code "stopped answering"}
     */
    public ReplicaGone(String what) {
      super(what + " before this attempt got any answer; failed over");
    }
  }
}
