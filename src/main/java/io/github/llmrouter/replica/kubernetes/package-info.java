/**
 * A resolver that follows the EndpointSlices of a Kubernetes Service. Needs the optional fabric8
 * {@code kubernetes-client} dependency; nothing else in the library loads it.
 */
@NullMarked
package io.github.llmrouter.replica.kubernetes;

import org.jspecify.annotations.NullMarked;
