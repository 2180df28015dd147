package io.github.llmrouter.bench;

import io.micrometer.observation.ObservationHandler;
import io.micrometer.observation.ObservationRegistry;
import io.micrometer.tracing.handler.DefaultTracingObservationHandler;
import io.micrometer.tracing.handler.PropagatingSenderTracingObservationHandler;
import io.micrometer.tracing.otel.bridge.OtelCurrentTraceContext;
import io.micrometer.tracing.otel.bridge.OtelPropagator;
import io.micrometer.tracing.otel.bridge.OtelTracer;
import io.opentelemetry.api.trace.propagation.W3CTraceContextPropagator;
import io.opentelemetry.context.propagation.ContextPropagators;
import io.opentelemetry.sdk.trace.SdkTracerProvider;

/**
 * An observation registry whose observations become OpenTelemetry spans, as a Spring Boot
 * application with Micrometer Tracing's OpenTelemetry bridge has: every span sampled, W3C trace
 * context propagated.
 */
final class TracedObservations {
  private TracedObservations() {}

  static ObservationRegistry of(SdkTracerProvider spans) {
    io.opentelemetry.api.trace.Tracer otel = spans.get("benchmark");
    OtelTracer tracer = new OtelTracer(otel, new OtelCurrentTraceContext(), event -> { });
    OtelPropagator propagator = new OtelPropagator(
        ContextPropagators.create(W3CTraceContextPropagator.getInstance()), otel);
    ObservationRegistry observations = ObservationRegistry.create();
    observations.observationConfig().observationHandler(
        new ObservationHandler.FirstMatchingCompositeObservationHandler(
            new PropagatingSenderTracingObservationHandler<>(tracer, propagator),
            new DefaultTracingObservationHandler(tracer)));
    return observations;
  }
}
