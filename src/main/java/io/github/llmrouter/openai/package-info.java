/**
 * openai-java routed through llm-router: {@link io.github.llmrouter.openai.LlmRouterOpenAI} builds
 * an {@code OpenAIClient} (or the {@code com.openai.core.http.HttpClient} under one) whose every
 * request is sent with {@link io.github.llmrouter.LlmClient#send}, so chat, completions,
 * embeddings, the Responses API and streams all take the router's path. Needs {@code
 * com.openai:openai-java-core} on the class path, which the library declares as optional: the rest
 * of the library never loads a class of this package.
 */
@NullMarked
package io.github.llmrouter.openai;

import org.jspecify.annotations.NullMarked;
