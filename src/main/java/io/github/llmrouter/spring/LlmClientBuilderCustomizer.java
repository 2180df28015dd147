package io.github.llmrouter.spring;

import io.github.llmrouter.LlmClientBuilder;

/**
 * Changes the {@link LlmClientBuilder} that {@link LlmRouterAutoConfiguration} made from the
 * {@code llm-router.*} properties, before it builds the client: for what properties cannot say (a
 * resolver of your own, listeners, a custom policy, an OkHttp client). Every customizer bean is
 * applied, in their {@code @Order}.
 *
 * <pre>{@code
 * @Bean
 * LlmClientBuilderCustomizer hedging() {
 *   return builder -> builder.hedgePolicy(HedgePolicy.defaults());
 * }
 * }</pre>
 *
 * @since 0.3.0
 */
@FunctionalInterface
public interface LlmClientBuilderCustomizer {
  /**
   * Customizes {@code builder}.
   *
   * @param builder the builder, with the properties applied
   */
  void customize(LlmClientBuilder builder);
}
