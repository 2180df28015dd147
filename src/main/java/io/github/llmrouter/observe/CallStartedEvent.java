package io.github.llmrouter.observe;

/**
 * A call began: its first attempt is about to be routed (or it is about to wait for replicas).
 * Every call that starts also finishes with exactly one {@link CallFinishedEvent} of the same
 * {@code callId}.
 *
 * @param callId the call's number, unique in the JVM (across clients); the same on all of the
 *     call's events
 * @param operation {@code chat}, {@code chat.stream}, {@code completion}, {@code
 *     completion.stream} or {@code embeddings}
 * @param model the requested model
 *
 * @since 0.3.0
 */
public record CallStartedEvent(long callId, String operation, String model) {}
