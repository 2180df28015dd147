/**
 * How calls are retried and held back: {@link io.github.llmrouter.dispatch.RetryPolicy}
 * (attempts, backoff, {@code Retry-After}, the retry budget), {@link
 * io.github.llmrouter.dispatch.CircuitBreakerPolicy} (per-replica circuit breakers) and {@link
 * io.github.llmrouter.dispatch.Admission} (client-side admission control while the fleet is
 * saturated). Immutable configuration; the client runs it.
 */
@NullMarked
package io.github.llmrouter.dispatch;

import org.jspecify.annotations.NullMarked;
