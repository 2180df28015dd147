package io.github.llmrouter.sim;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.github.llmrouter.routing.CacheAware;
import io.github.llmrouter.routing.RoutingPolicy;
import java.util.List;
import org.junit.jupiter.api.Test;

class SimulatedPolicyTest {
  @Test
  void everyNamedPolicyAndSetResolvesInReportOrder() {
    assertThat(SimulatedPolicy.parse("all", 1)).extracting(SimulatedPolicy::name).containsExactly(
        "RoundRobin", "Random", "LeastLoaded", "PrefixHash", "CacheAware", "SGLang", "llm-d", "Dynamo",
        "Oracle");
    assertThat(SimulatedPolicy.parse("Dynamo, prefixhash ,peers,dynamo", 1))
        .extracting(SimulatedPolicy::name).containsExactly("Dynamo", "PrefixHash", "SGLang", "llm-d");
    assertThat(SimulatedPolicy.parse("queue-aware", 1)).extracting(SimulatedPolicy::name)
        .containsExactly("PrefixHash in-flight only", "PrefixHash queue-aware");
    for (String name : SimulatedPolicy.NAMES) assertThat(SimulatedPolicy.named(name, 1)).isNotNull();
  }

  @Test
  void theClientsDefaultPolicyIsMarkedOnceDerivedFromWhatTheClientUses() {
    List<SimulatedPolicy> all = SimulatedPolicy.all(1);
    assertThat(all).filteredOn(SimulatedPolicy::isClientDefault).extracting(SimulatedPolicy::name)
        .containsExactly("CacheAware");
    RoutingPolicy theDefault = RoutingPolicy.defaultPolicy();
    SimulatedPolicy marked = all.stream().filter(SimulatedPolicy::isClientDefault).findFirst().orElseThrow();
    assertThat(marked.newPolicy(3).toString()).isEqualTo(theDefault.toString());
    // Another configuration of the same class is not the default.
    assertThat(SimulatedPolicy.named("prefixhash", 1).isClientDefault()).isFalse();
    assertThat(SimulatedPolicy.of("CacheAware c=3",
        c -> CacheAware.builder().loadFactor(3).build()).isClientDefault()).isFalse();
    assertThat(SimulatedPolicy.oracle().isClientDefault()).isFalse();
  }

  @Test
  void anUnknownNameListsTheKnownOnes() {
    assertThatThrownBy(() -> SimulatedPolicy.named("consistent-hash", 1))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("unknown policy 'consistent-hash'")
        .hasMessageContaining(String.join(", ", SimulatedPolicy.NAMES));
  }

  @Test
  void seededPeersGiveEachClientItsOwnInstance() {
    SimulatedPolicy sglang = SimulatedPolicy.named("sglang", 1);
    assertThat(sglang.newPolicy(0)).isNotSameAs(sglang.newPolicy(0));
    assertThat(sglang.newPolicy(0).name()).isEqualTo("SGLang");
  }
}
