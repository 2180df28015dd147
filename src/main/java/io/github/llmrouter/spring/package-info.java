/**
 * Spring Boot auto-configuration: with {@code org.springframework.boot:spring-boot-autoconfigure}
 * on the class path (Spring Boot 3.5 or 4.0), {@link
 * io.github.llmrouter.spring.LlmRouterAutoConfiguration} makes an {@link
 * io.github.llmrouter.LlmClient} bean from the {@code llm-router.*} properties ({@link
 * io.github.llmrouter.spring.LlmRouterProperties}) and the application's {@link
 * io.github.llmrouter.spring.LlmClientBuilderCustomizer} beans, closed with the context. The
 * library declares Spring as optional: the rest of it never loads a class of this package.
 */
@NullMarked
package io.github.llmrouter.spring;

import org.jspecify.annotations.NullMarked;
