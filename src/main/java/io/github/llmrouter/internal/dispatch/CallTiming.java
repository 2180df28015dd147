package io.github.llmrouter.internal.dispatch;

/**
 * How one call is timed: the times of calls like it (its operation, streamed or not, and its
 * request's size class), which it adds its own time to, and whether it may be hedged by them.
 * Immutable; a dispatcher keeps one per kind of call, so a call allocates none.
 *
 * @param times the times of calls like this one, shared by hedged and unhedged calls alike
 * @param hedged whether the call is raced by a hedge once it waits past the learnt delay
 */
record CallTiming(AnswerTimes times, boolean hedged) {}
