package io.github.llmrouter.observe;

import io.github.llmrouter.api.LlmException;
import io.github.llmrouter.api.Usage;
import org.jspecify.annotations.Nullable;

/**
 * One attempt of a call ended. Every {@link RoutedEvent} is followed by exactly one of these for
 * the same {@code callId} and {@code attempt}: when the replica answered, when the attempt failed
 * (before the {@link AttemptFailedEvent} that says what happens next), or when the caller let go.
 * For a stream it comes when the stream ends, after the call's {@link CallFinishedEvent} (which a
 * stream's call reports at its first chunk).
 *
 * @param callId as in {@link CallStartedEvent#callId()}
 * @param operation as in {@link RoutedEvent#operation()}
 * @param model the requested model
 * @param attempt the attempt's number, 1 for the first
 * @param replicaId the replica it went to
 * @param outcome how it ended
 * @param durationNanos from the attempt's start to its end
 * @param firstChunkNanos for a stream that delivered a chunk: from the call's start to its first
 *     chunk; -1 otherwise
 * @param callElapsedNanos from the call's start to this attempt's end (for the attempt that
 *     answered: the call's whole latency, a stream's included)
 * @param usage the token counts the replica reported (for a stream: in its last chunk), or null
 * @param responseModel the model the replica said answered, or null if it did not say
 * @param predictedCachedTokens as in {@link RoutedEvent#predictedCachedTokens()}
 * @param failure why it failed, or null unless {@code outcome} is {@link Outcome#FAILED}
 *
 * @since 0.3.0
 */
public record AttemptEndedEvent(long callId, String operation, String model, int attempt,
    String replicaId, Outcome outcome, long durationNanos, long firstChunkNanos,
    long callElapsedNanos, @Nullable Usage usage, @Nullable String responseModel,
    long predictedCachedTokens, @Nullable LlmException failure) {
  /** How an attempt ended. */
  public enum Outcome {
    /** The replica answered: a whole answer, or a stream it finished. */
    ANSWERED,
    /**
     * The attempt failed: the replica could not be reached, refused, timed out or sent something
     * unusable, or broke a stream after its first chunk.
     */
    FAILED,
    /**
     * The caller let go (cancelled the call, or closed a stream before its end); says nothing of
     * the replica.
     */
    ABANDONED
  }

  /** {@return whether the replica answered} */
  public boolean answered() {
    return outcome == Outcome.ANSWERED;
  }
}
