/**
 * The OpenAI-compatible request, response and stream-chunk types, and the exceptions a call
 * throws ({@link io.github.llmrouter.api.LlmException} and its subclasses), and the {@link
 * io.github.llmrouter.api.Ticker} a client reads time from. Knows nothing about replicas.
 */
@NullMarked
package io.github.llmrouter.api;

import org.jspecify.annotations.NullMarked;
