package io.github.llmrouter.observe;

/**
 * A request failed on a pooled connection the replica had already closed (as servers with an idle
 * timeout do, and llama.cpp's server after every streamed response), before any byte of the
 * answer arrived; it was sent again, once, on a fresh connection to the same replica. Not a
 * failure of the replica: no attempt is counted, no retry budget spent, no breaker told.
 *
 * @param operation as in {@link RoutedEvent#operation()}
 * @param replicaId the replica
 * @param failure what the pooled connection failed with, for example {@code
 *     java.io.IOException: unexpected end of stream}
 *
 * @since 0.3.0
 */
public record ConnectionResentEvent(String operation, String replicaId, String failure) {}
