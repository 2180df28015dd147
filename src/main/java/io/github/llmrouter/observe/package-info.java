/**
 * What the client tells the application: routing events through a {@link
 * io.github.llmrouter.observe.RoutingListener}, and the fleet's load as a {@link
 * io.github.llmrouter.observe.FleetSnapshot} for metrics and autoscaling.
 */
@NullMarked
package io.github.llmrouter.observe;

import org.jspecify.annotations.NullMarked;
