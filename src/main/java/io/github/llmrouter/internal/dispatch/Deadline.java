package io.github.llmrouter.internal.dispatch;

import java.time.Duration;

/**
 * A call's deadline: its timeout counted from its start, on the client's ticker. Immutable. Every
 * question the attempt loop asks of the deadline is answered here, so the arithmetic is written
 * once.
 */
final class Deadline {
  private final long startNanos;
  /** The timeout; 0 for none. */
  private final long timeoutNanos;

  private Deadline(long startNanos, long timeoutNanos) {
    this.startNanos = startNanos;
    this.timeoutNanos = timeoutNanos;
  }

  /**
   * A deadline {@code timeoutNanos} after {@code startNanos}.
   *
   * @param timeoutNanos the call's timeout; 0 or less for none
   */
  static Deadline after(long startNanos, long timeoutNanos) {
    return new Deadline(startNanos, Math.max(0, timeoutNanos));
  }

  /** When the call started, on the ticker. */
  long startNanos() {
    return startNanos;
  }

  /** Whether the call has a deadline at all. */
  boolean exists() {
    return timeoutNanos > 0;
  }

  /** The time left at {@code now}: at most 0 once the deadline has passed; 0 without one. */
  long remainingNanos(long now) {
    return timeoutNanos > 0 ? timeoutNanos - (now - startNanos) : 0;
  }

  /**
   * Whether something that would start at ticker time {@code at} would start at or after the
   * deadline; false without one.
   */
  boolean reachedBy(long at) {
    return timeoutNanos > 0 && at - startNanos >= timeoutNanos;
  }

  /** The timeout, for messages. */
  Duration timeout() {
    return Duration.ofNanos(timeoutNanos);
  }
}
