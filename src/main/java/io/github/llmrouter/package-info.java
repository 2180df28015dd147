/**
 * The client: {@link io.github.llmrouter.LlmClient}, built with {@link
 * io.github.llmrouter.LlmClientBuilder}. Start here.
 *
 * <p>Every package of the library is {@code @NullMarked}: a type is non-null unless it says
 * {@code @Nullable}.
 */
@NullMarked
package io.github.llmrouter;

import org.jspecify.annotations.NullMarked;
