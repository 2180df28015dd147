package io.github.llmrouter.observe;

import org.jspecify.annotations.Nullable;

/**
 * A stream that may be continued (see {@code LlmClientBuilder.maxStreamResumptions}) broke after
 * its first chunk, and the client continued it on another replica, tried to and failed, or did
 * not try. Reported once per break, on the thread reading the stream.
 *
 * @param operation as in {@link RoutedEvent#operation()}
 * @param model the requested model
 * @param replicaId the replica whose stream broke
 * @param resumedOn the replica the continuation went to; null unless {@link Outcome#RESUMED}
 * @param resumption which break of the stream this is, 1 for the first
 * @param charactersCarried the characters of text the caller had read, which the continuation
 *     carries to the next replica
 * @param outcome what became of the stream
 * @param why why it was not continued (a request or chunk a continuation could corrupt, the limit,
 *     the deadline, the retry budget, or the continuation's own failure); null when resumed
 *
 * @since 0.3.0
 */
public record StreamResumptionEvent(String operation, String model, String replicaId,
    @Nullable String resumedOn, int resumption, int charactersCarried, Outcome outcome,
    @Nullable String why) {
  /** What became of a broken stream. */
  public enum Outcome {
    /** It goes on with a continuation from another replica; its reader sees no break. */
    RESUMED,
    /** A continuation was asked for and failed: the stream ends with the break. */
    FAILED,
    /** No continuation was asked for ({@link #why()} says why): the stream ends with the break. */
    SKIPPED
  }
}
