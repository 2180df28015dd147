package io.github.llmrouter.observe;

import io.github.llmrouter.api.LlmException;
import java.time.Duration;

/**
 * One attempt of a call failed.
 *
 * @param callId as in {@link CallStartedEvent#callId()}
 * @param operation as in {@link RoutedEvent#operation()}
 * @param model the requested model
 * @param attempt the failed attempt's number
 * @param replicaId the replica it failed on
 * @param failure what went wrong
 * @param willRetry whether another attempt follows
 * @param backoff how long the next attempt waits (zero if none follows)
 * @param whyNot if no attempt follows, why: "not retryable", "attempts exhausted", "retry budget
 *     exhausted", "deadline" (it expired, or the next attempt could not start before it), "stream
 *     broken after its first chunk" (the replica cut, reset or corrupted a stream the caller was
 *     reading; the call itself had succeeded, and a stream is never replayed); empty otherwise.
 *     A call may still give up after an attempt that said it would retry, when no replica is
 *     left or the only ones left asked, with {@code Retry-After}, for a pause past the deadline.
 *
 * @since 0.2.0
 */
public record AttemptFailedEvent(long callId, String operation, String model, int attempt,
    String replicaId, LlmException failure, boolean willRetry, Duration backoff, String whyNot) {}
