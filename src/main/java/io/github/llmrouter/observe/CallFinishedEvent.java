package io.github.llmrouter.observe;

import io.github.llmrouter.api.LlmException;
import org.jspecify.annotations.Nullable;

/**
 * A call ended: its answer arrived (for a stream: its first chunk, the stream's end being its
 * answering attempt's {@link AttemptEndedEvent}), or it failed.
 *
 * @param callId as in {@link CallStartedEvent#callId()}
 * @param operation as in {@link RoutedEvent#operation()}
 * @param model the requested model
 * @param attempts how many attempts were made
 * @param replicaId the replica that answered, or null if none did
 * @param durationNanos from the call's start to its answer (for streams: to the first chunk)
 * @param failure the failure thrown to the caller, or null on success
 *
 * @since 0.2.0
 */
public record CallFinishedEvent(long callId, String operation, String model, int attempts,
    @Nullable String replicaId, long durationNanos, @Nullable LlmException failure) {
  /** {@return whether the call succeeded} */
  public boolean succeeded() {
    return failure == null;
  }
}
