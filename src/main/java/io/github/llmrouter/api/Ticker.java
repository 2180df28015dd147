package io.github.llmrouter.api;

/**
 * A source of monotonic time in nanoseconds: every timeout, backoff, ejection, staleness check
 * and circuit breaker of a client reads time through one {@code Ticker}, never from the wall
 * clock.
 *
 * <p>Production code uses {@link #system()}. Tests and simulations inject their own, so that
 * time moves only when they advance it and nothing has to sleep:
 *
 * <pre>{@code
 * AtomicLong now = new AtomicLong();
 * LlmClient client = LlmClient.builder()
 *     .replicas(replicas)
 *     .ticker(now::get)
 *     .build();
 * now.addAndGet(Duration.ofSeconds(30).toNanos()); // an ejection has expired
 * }</pre>
 *
 * <p>Like {@link System#nanoTime()}, a reading means something only relative to another reading
 * of the same ticker. Implementations must be thread-safe, must never go backwards, and should
 * be cheap: the client reads its ticker a few times per call.
 *
 * <p>This is the library's own one-method interface rather than a cache library's or Guava's, so
 * that configuring a client needs no third-party type.
 *
 * @since 0.3.0
 */
@FunctionalInterface
public interface Ticker {

  /**
   * Returns the current reading in nanoseconds.
   *
   * @return nanoseconds since an arbitrary, fixed origin; never smaller than an earlier reading
   */
  long read();

  /**
   * Returns the ticker backed by {@link System#nanoTime()}, the default of every client.
   *
   * @return the system ticker, a shared stateless instance
   */
  static Ticker system() {
    return System::nanoTime;
  }
}
