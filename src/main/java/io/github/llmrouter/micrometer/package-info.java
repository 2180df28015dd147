/**
 * Micrometer bindings: {@link io.github.llmrouter.micrometer.LlmRouterMetrics} records the
 * router's meters and {@link io.github.llmrouter.micrometer.LlmRouterObservations} an observation
 * per call and per attempt (traces through Micrometer Tracing, with OpenTelemetry's GenAI
 * attributes). Both are {@link io.github.llmrouter.observe.RoutingListener}s, added with {@link
 * io.github.llmrouter.LlmClientBuilder#listener}. They need {@code micrometer-core} (meters) or
 * {@code micrometer-observation} (observations) on the class path, which the library declares as
 * optional: the rest of the library never loads a class of this package.
 */
@NullMarked
package io.github.llmrouter.micrometer;

import org.jspecify.annotations.NullMarked;
