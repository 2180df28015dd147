/**
 * The OpenAI-compatible request, response and stream-chunk types, and the exceptions a call
 * throws ({@link io.github.llmrouter.api.LlmException} and its subclasses). Knows nothing about
 * replicas.
 */
@NullMarked
package io.github.llmrouter.api;

import org.jspecify.annotations.NullMarked;
