package io.github.llmrouter.internal.dispatch;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.llmrouter.internal.transport.ModelList;
import io.github.llmrouter.replica.Replica;
import io.github.llmrouter.replica.ReplicaSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** What a client keeps of its replicas' listings as the fleet changes. */
class ModelCatalogTest {
  private final ModelCatalog catalog = new ModelCatalog();
  private final Replica a = Replica.builder("http://10.0.0.1:8000").id("a").build();
  private final Replica b = Replica.builder("http://10.0.0.2:8000").id("b").build();
  private final ReplicaSet both = ReplicaSet.of(List.of(a, b));

  @Test
  void listingsChangeWhatIsServedAndAFailedOneKeepsTheLastGood() {
    catalog.listing();
    ServedModels pending = catalog.served(both);
    assertThat(pending).isNotNull();
    assertThat(pending.pending()).isTrue();
    assertThat(pending.awaitsListing("alpha")).as("start-up").isTrue();

    assertThat(catalog.listed(both, a, ModelList.of(Set.of("alpha")))).isTrue();
    assertThat(catalog.listed(both, a, ModelList.of(Set.of("alpha")))).as("the same again").isFalse();
    assertThat(catalog.listed(both, a, null)).as("failed: the last good one stays").isFalse();
    assertThat(catalog.listed(both, b, null)).as("b's first, failed: serves nothing named")
        .isTrue();
    assertThat(catalog.listed(both, b, null)).isFalse();
    assertThat(catalog.byReplica(both)).containsOnlyKeys("a", "b");
    assertThat(catalog.byReplica(both).get("a")).containsExactly("alpha");

    Replica stranger = Replica.builder("http://10.0.0.9:8000").id("z").build();
    assertThat(catalog.listed(both, stranger, ModelList.of(Set.of("x")))).as("not in the fleet").isFalse();
    Replica movedA = a.toBuilder().header("x-route", "2").build();
    assertThat(catalog.listed(both, movedA, ModelList.of(Set.of("x")))).as("described otherwise").isFalse();

    catalog.settled();
    ServedModels served = catalog.served(both);
    assertThat(served).isNotNull();
    assertThat(served.pending()).isFalse();
    assertThat(served.serves(0, "alpha", true)).isTrue();
    assertThat(served.serves(1, "alpha", true)).isFalse();
  }

  @Test
  void aReplicaThatLeavesTakesItsListingAndAnEmptyFleetStartsOver() {
    catalog.listing();
    catalog.listed(both, a, ModelList.of(Set.of("alpha")));
    catalog.listed(both, b, ModelList.of(Set.of("beta")));
    catalog.settled();
    ReplicaSet onlyA = ReplicaSet.of(List.of(a));
    catalog.membership(onlyA);
    catalog.membership(both); // b is back: not listed yet
    ServedModels served = catalog.served(both);
    assertThat(served).isNotNull();
    assertThat(served.pending()).isTrue();
    assertThat(served.awaitsListing("alpha")).as("listed once since empty: claimed, no wait")
        .isFalse();
    assertThat(served.awaitsListing("beta")).as("beta's replica not listed yet").isTrue();
    assertThat(catalog.byReplica(both)).containsOnlyKeys("a");

    catalog.membership(ReplicaSet.empty());
    catalog.membership(onlyA);
    ServedModels again = catalog.served(onlyA);
    assertThat(again).isNotNull();
    assertThat(again.awaitsListing("alpha")).as("after scaling from zero: waits again")
        .isTrue();
  }

  @Test
  void replicasThatDeclareAreNeverPendingAndShowWhatTheyDeclare() {
    Replica declared = Replica.builder("http://10.0.0.3:8000").id("d").model("gamma").build();
    ReplicaSet fleet = ReplicaSet.of(List.of(declared));
    catalog.listing();
    ServedModels served = catalog.served(fleet);
    assertThat(served).isNotNull();
    assertThat(served.pending()).isFalse();
    assertThat(catalog.byReplica(fleet).get("d")).containsExactly("gamma");
  }
}
