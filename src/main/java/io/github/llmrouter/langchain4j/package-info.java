/**
 * LangChain4j routed through llm-router: {@link
 * io.github.llmrouter.langchain4j.LlmRouterLangChain4j} gives LangChain4j's HTTP client SPI
 * ({@code langchain4j-http-client}) an implementation over {@link
 * io.github.llmrouter.LlmClient#send}, so that {@code OpenAiChatModel}, {@code
 * OpenAiStreamingChatModel} and every other model built on that SPI route their requests. Needs
 * {@code dev.langchain4j:langchain4j-http-client} on the class path, which the library declares
 * as optional: the rest of the library never loads a class of this package.
 */
@NullMarked
package io.github.llmrouter.langchain4j;

import org.jspecify.annotations.NullMarked;
