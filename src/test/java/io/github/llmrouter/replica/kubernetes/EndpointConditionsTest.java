package io.github.llmrouter.replica.kubernetes;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.discovery.v1.Endpoint;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointBuilder;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointConditions;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSlice;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSliceBuilder;
import io.github.llmrouter.replica.Replica;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Which endpoints of an EndpointSlice become replicas, by their conditions, as the EndpointSlice
 * API defines them: {@code ready} unset means ready; a terminating pod is reported not ready (so
 * it leaves the fleet as soon as it starts draining), even while it still serves; a slice without
 * the named port contributes nothing. No API server needed: the slices are built here.
 */
class EndpointConditionsTest {
  private final KubernetesResolver resolver =
      KubernetesResolver.builder("vllm").namespace("inference").portName("http").build();

  private static Endpoint endpoint(String address, EndpointConditions conditions) {
    return new EndpointBuilder().withAddresses(address).withConditions(conditions).build();
  }

  private static EndpointConditions conditions(Boolean ready, Boolean serving, Boolean terminating) {
    return new EndpointConditions(ready, serving, terminating);
  }

  private static EndpointSlice slice(String addressType, String portName, Endpoint... endpoints) {
    return new EndpointSliceBuilder().withNewMetadata().withName("vllm-x").endMetadata()
        .withAddressType(addressType)
        .addNewPort().withName(portName).withPort(8000).endPort()
        .addNewPort().withName("metrics").withPort(9090).endPort()
        .withEndpoints(endpoints).build();
  }

  private List<String> ids(EndpointSlice... slices) {
    return resolver.toReplicas(List.of(slices)).replicas().stream().map(Replica::id).toList();
  }

  @Test
  void readyUnsetOrTrueIsRoutedReadyFalseAndTerminatingAreNot() {
    EndpointSlice slice = slice("IPv4", "http",
        endpoint("10.0.0.1", conditions(true, true, false)),
        endpoint("10.0.0.2", conditions(null, null, null)), // unknown: read as ready
        endpoint("10.0.0.3", null), // no conditions at all: ready too
        endpoint("10.0.0.4", conditions(false, false, false)), // not ready yet
        endpoint("10.0.0.5", conditions(false, true, true)), // terminating, still serving
        endpoint("10.0.0.6", conditions(false, false, true))); // terminating, done serving
    assertThat(ids(slice)).containsExactly("10.0.0.1:8000", "10.0.0.2:8000", "10.0.0.3:8000");
  }

  @Test
  void theNamedPortIsUsedAndASliceWithoutItContributesNothing() {
    EndpointSlice named = slice("IPv4", "http", endpoint("10.0.0.1", conditions(true, true, false)));
    EndpointSlice other = slice("IPv4", "grpc", endpoint("10.0.0.2", conditions(true, true, false)));
    assertThat(ids(named, other)).containsExactly("10.0.0.1:8000");
    assertThat(resolver.toReplicas(List.of(named)).get(0).baseUrl().toString())
        .isEqualTo("http://10.0.0.1:8000/");
  }

  @Test
  void ipv6EndpointsAreBracketedAndDuplicatesAcrossSlicesCountOnce() {
    EndpointSlice v6 = slice("IPv6", "http", endpoint("fd00::7", conditions(true, true, false)));
    EndpointSlice again = slice("IPv4", "http", endpoint("10.0.0.1", conditions(true, true, false)));
    EndpointSlice dup = slice("IPv4", "http", endpoint("10.0.0.1", conditions(null, null, null)));
    assertThat(ids(v6, again, dup)).containsExactly("10.0.0.1:8000", "fd00::7:8000");
    assertThat(resolver.toReplicas(List.of(v6)).get(0).baseUrl().toString())
        .isEqualTo("http://[fd00::7]:8000/");
  }
}
