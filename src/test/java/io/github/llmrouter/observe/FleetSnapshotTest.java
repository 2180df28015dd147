package io.github.llmrouter.observe;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** A fleet's snapshot split by model: each model's replicas with their own totals. */
class FleetSnapshotTest {
  private static FleetSnapshot.ReplicaLoad replica(String id, int queue, boolean saturated,
      String... models) {
    return new FleetSnapshot.ReplicaLoad(id, queue, queue, 0, Double.NaN, Duration.ZERO,
        queue >= 0, 0, 0, 0, saturated, -1, Set.of(models));
  }

  private final FleetSnapshot fleet = new FleetSnapshot(List.of(
      replica("a0", 4, false, "alpha"), replica("a1", 8, true, "alpha"),
      replica("b0", 30, true, "beta", "beta-lora"), replica("any", -1, false)),
      42, 14, 3, 2, 16, 0.9, 5, 7);

  @Test
  void aModelsPartHasItsOwnTotalsAndAutoscalingSignal() {
    FleetSnapshot alpha = fleet.forModel("alpha");
    assertThat(alpha.replicas()).extracting(FleetSnapshot.ReplicaLoad::replicaId)
        .containsExactly("a0", "a1");
    assertThat(alpha.totalWaiting()).isEqualTo(12);
    assertThat(alpha.meanWaiting()).isEqualTo(6.0);
    assertThat(alpha.reportingReplicas()).isEqualTo(2);
    assertThat(alpha.saturatedReplicas()).isEqualTo(1);
    assertThat(alpha.replicasFor(2.0)).isEqualTo(6);
    assertThat(alpha.scrapeFailures()).isEqualTo(5);

    FleetSnapshot lora = fleet.forModel("beta-lora");
    assertThat(lora.replicas()).singleElement().extracting(FleetSnapshot.ReplicaLoad::replicaId)
        .isEqualTo("b0");
    assertThat(lora.saturated()).isTrue();
  }

  @Test
  void aModelNobodyListsIsTheReplicasThatListNothing() {
    FleetSnapshot gamma = fleet.forModel("gamma");
    assertThat(gamma.replicas()).extracting(FleetSnapshot.ReplicaLoad::replicaId)
        .containsExactly("any");
    assertThat(gamma.reportingReplicas()).isZero();
    assertThat(gamma.replicasFor(2.0)).as("no reports: the current count").isEqualTo(1);
  }

  @Test
  void theModelsAreEveryReplicasSorted() {
    assertThat(fleet.models()).containsExactly("alpha", "beta", "beta-lora");
    assertThat(fleet.replicas().get(0).models()).containsExactly("alpha");
    assertThat(new FleetSnapshot.ReplicaLoad("r", 0, 0, 0, 0, null, true, 0, 0, 0, false).models())
        .isEmpty();
  }
}
