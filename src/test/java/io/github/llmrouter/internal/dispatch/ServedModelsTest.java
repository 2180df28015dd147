package io.github.llmrouter.internal.dispatch;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.llmrouter.internal.transport.ModelList;
import io.github.llmrouter.replica.Replica;
import io.github.llmrouter.replica.ReplicaSet;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** Which replica of a snapshot may take a request for which model, by declarations and listings. */
class ServedModelsTest {
  private final Replica alphaDeclared =
      Replica.builder("http://10.0.0.1:8000").id("a").model("alpha").build();
  private final Replica plain1 = Replica.builder("http://10.0.0.2:8000").id("p1").build();
  private final Replica plain2 = Replica.builder("http://10.0.0.3:8000").id("p2").build();
  private final Map<String, ServedModels.Listing> listings = new HashMap<>();
  private final Set<String> known = new LinkedHashSet<>();

  private void list(Replica r, String... models) {
    listings.put(r.id(), new ServedModels.Listing(r, ModelList.of(Set.of(models))));
  }

  @Test
  void anAdapterEveryReplicaListsStillHasARouteOfItsOwn() {
    ReplicaSet fleet = ReplicaSet.of(List.of(plain1, plain2));
    for (Replica r : List.of(plain1, plain2)) {
      listings.put(r.id(), new ServedModels.Listing(r, new ModelList(Set.of("base", "sql"),
          Set.of(), Map.of("sql", "base"))));
    }
    ServedModels served = ServedModels.of(fleet, listings, true, false, known);
    assertThat(served).isNotNull();
    Map<String, ServedModels.Part> parts = served.parts(RoutingTable.MAX_ROUTED_MODELS);
    assertThat(parts).containsOnlyKeys("sql");
    assertThat(parts.get("sql").adapter()).isTrue();
    assertThat(parts.get("sql").replicas()).containsExactly(0, 1);
    assertThat(parts.get("sql").loaded()).isNull();
  }

  @Test
  void aFleetOfOneModelOrNoneChangesNothing() {
    ReplicaSet fleet = ReplicaSet.of(List.of(plain1, plain2));
    assertThat(ServedModels.of(fleet, listings, false, false, known)).as("nothing listed, not asked")
        .isNull();
    list(plain1, "m");
    list(plain2, "m");
    assertThat(ServedModels.of(fleet, listings, true, false, known)).as("both list the same").isNull();
  }

  @Test
  void aClaimedModelGoesOnlyToItsClaimantsAnotherToReplicasThatDeclareNothing() {
    ReplicaSet fleet = ReplicaSet.of(List.of(alphaDeclared, plain1, plain2));
    list(plain1, "beta");
    list(plain2);
    ServedModels m = ServedModels.of(fleet, listings, true, false, known);
    assertThat(m).isNotNull();
    assertThat(m.claims("alpha")).isTrue();
    assertThat(m.claims("gamma")).isFalse();
    assertThat(m.claimed()).isEqualTo("alpha, beta");
    // alpha: declared by 0 only
    assertThat(m.serves(0, "alpha", true)).isTrue();
    assertThat(m.serves(1, "alpha", true)).isFalse();
    assertThat(m.serves(2, "alpha", true)).isFalse();
    // beta: listed by 1 only
    assertThat(m.serves(0, "beta", true)).isFalse();
    assertThat(m.serves(1, "beta", true)).isTrue();
    // gamma, claimed by nobody: every replica that declares nothing
    assertThat(m.serves(0, "gamma", false)).isFalse();
    assertThat(m.serves(1, "gamma", false)).isTrue();
    assertThat(m.serves(2, "gamma", false)).isTrue();
    assertThat(m.anyServes("gamma")).isTrue();
    // no model: anywhere
    assertThat(m.serves(0, "", false)).isTrue();
    assertThat(m.pending()).isFalse();
    assertThat(m.awaitsListing("gamma")).isFalse();
  }

  @Test
  void aModelIsServedElsewhereOnlyIfAnotherReplicaClaimsIt() {
    ReplicaSet fleet = ReplicaSet.of(List.of(alphaDeclared, plain1, plain2));
    list(plain1, "alpha", "beta");
    list(plain2, "gamma");
    ServedModels m = ServedModels.of(fleet, listings, true, false, known);
    assertThat(m).isNotNull();
    assertThat(m.servedElsewhere(0, "alpha")).isTrue();
    assertThat(m.servedElsewhere(1, "alpha")).isTrue();
    assertThat(m.servedElsewhere(1, "beta")).isFalse();
    assertThat(m.servedElsewhere(2, "alpha")).as("2 never claimed it").isFalse();
  }

  @Test
  void aModelTheFleetServedBeforeAndNoReplicaServesNowAwaitsAReplica() {
    list(plain1, "alpha");
    list(plain2, "beta");
    ServedModels both = ServedModels.of(ReplicaSet.of(List.of(plain1, plain2)), listings, true,
        false, known);
    assertThat(both).isNotNull();
    assertThat(both.awaitsReplica("beta")).isFalse();
    assertThat(known).containsExactly("alpha", "beta");

    ServedModels alphaOnly =
        ServedModels.of(ReplicaSet.of(List.of(plain1)), listings, true, false, known);
    assertThat(alphaOnly).as("one model, but another is gone").isNotNull();
    assertThat(alphaOnly.awaitsReplica("beta")).isTrue();
    assertThat(alphaOnly.awaitsReplica("gamma")).as("never served").isFalse();
    assertThat(alphaOnly.awaitsReplica("alpha")).isFalse();
    assertThat(alphaOnly.anyServes("beta")).as("the server would answer it").isTrue();
  }

  @Test
  void theKnownModelsAreBoundedForgettingTheOldest() {
    Set<String> many = new LinkedHashSet<>();
    for (int i = 0; i < ModelCatalog.MAX_KNOWN + 5; i++) many.add("m" + i);
    ModelCatalog.remember(known, many);
    assertThat(known).hasSize(ModelCatalog.MAX_KNOWN).doesNotContain("m4").contains("m5");
  }

  @Test
  void aFleetThatDeclaresEverythingServesNothingElse() {
    Replica beta = Replica.builder("http://10.0.0.4:8000").id("b").model("beta").build();
    ServedModels m =
        ServedModels.of(ReplicaSet.of(List.of(alphaDeclared, beta)), listings, true, false, known);
    assertThat(m).isNotNull();
    assertThat(m.anyServes("gamma")).isFalse();
    assertThat(m.anyServes("")).isTrue();
    assertThat(m.anyServes("beta")).isTrue();
    assertThat(m.pending()).as("declared replicas are never asked").isFalse();
  }

  @Test
  void aReplicaNotListedYetIsPendingAndTakesNoClaimedModel() {
    ReplicaSet fleet = ReplicaSet.of(List.of(plain1, plain2, alphaDeclared));
    list(plain1, "alpha");
    ServedModels m = ServedModels.of(fleet, listings, true, false, known);
    assertThat(m).isNotNull();
    assertThat(m.pending()).isTrue();
    assertThat(m.serves(1, "alpha", true)).as("not listed yet").isFalse();
    assertThat(m.awaitsListing("alpha")).as("claimed: no wait").isFalse();
    assertThat(m.awaitsListing("beta")).as("maybe the pending one's").isTrue();
    assertThat(m.awaitsListing("")).isFalse();

    ServedModels starting = ServedModels.of(fleet, listings, true, true, known);
    assertThat(starting).isNotNull();
    assertThat(starting.awaitsListing("alpha")).as("at start-up every model waits").isTrue();
    assertThat(starting.awaitsListing("")).isFalse();

    list(plain2);
    m = ServedModels.of(fleet, listings, true, true, known);
    assertThat(m).isNotNull();
    assertThat(m.pending()).isFalse();
    assertThat(m.awaitsListing("beta")).isFalse();
    assertThat(m.awaitsListing("alpha")).isFalse();
  }

  @Test
  void aListingOfAReplicaDescribedOtherwiseSinceIsIgnored() {
    Replica moved = plain1.toBuilder().header("x-route", "b").build();
    list(plain1, "alpha");
    ServedModels m =
        ServedModels.of(ReplicaSet.of(List.of(moved, plain2)), listings, true, false, known);
    assertThat(m).isNotNull();
    assertThat(m.pending()).isTrue();
    assertThat(m.claims("alpha")).isFalse();
  }
}
