package io.github.llmrouter.internal.dispatch;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.llmrouter.internal.load.LocalLoad;
import io.github.llmrouter.replica.ReplicaSet;
import io.github.llmrouter.routing.Fleets;
import io.github.llmrouter.routing.Ranking;
import io.github.llmrouter.routing.RoutedAttempt;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import org.junit.jupiter.api.Test;

/** An adapter's calls keep to the replicas that have it loaded, until their share of the load. */
class AdapterAffinityTest {
  private static final int[] MEMBERS = {0, 1, 2, 3};
  private final ReplicaSet fleet = Fleets.named(4);
  private final LocalLoad load = LocalLoad.of(fleet);

  /** The policy's order, fixed, and the indices it was told were sent. */
  private static final class Fixed implements Ranking {
    private final int[] order;
    private int next;
    final List<Integer> sent = new ArrayList<>();

    Fixed(int... order) {
      this.order = order;
    }

    @Override
    public int next() {
      return next < order.length ? order[next++] : -1;
    }

    @Override
    public String reason() {
      return "policy";
    }

    @Override
    public long predictedCachedTokens() {
      return 42;
    }

    @Override
    public RoutedAttempt sent(int index, long nanos, boolean streamed) {
      sent.add(index);
      return RoutedAttempt.IGNORED;
    }
  }

  private static int first(AdapterAffinity affinity, long adapter, LocalLoad load, int... order) {
    return affinity.rank(adapter, new Fixed(order), MEMBERS, load).next();
  }

  private static Fixed startingWith(int first) {
    int[] order = new int[4];
    order[0] = first;
    int k = 1;
    for (int i : MEMBERS) {
      if (i != first) order[k++] = i;
    }
    return new Fixed(order);
  }

  private static List<Integer> all(Ranking ranking) {
    List<Integer> out = new ArrayList<>();
    for (int i = ranking.next(); i >= 0; i = ranking.next()) out.add(i);
    return out;
  }

  @Test
  void aColdAdapterGoesToTheSameReplicaFromEveryClientWhateverThePolicysOrder() {
    Set<Integer> homes = new HashSet<>();
    for (int k = 0; k < 40; k++) {
      long adapter = AdapterAffinity.hash("lora-" + k);
      int one = first(new AdapterAffinity(fleet), adapter, load, 0, 1, 2, 3);
      int other = first(new AdapterAffinity(fleet), adapter, LocalLoad.of(fleet), 3, 2, 1, 0);
      assertThat(other).isEqualTo(one);
      homes.add(one);
    }
    assertThat(homes).as("adapters spread over the replicas").hasSize(4);
  }

  @Test
  void anAdaptersCallsGoWhereItWasSentInThePolicysOrderAndTellThePolicy() {
    AdapterAffinity affinity = new AdapterAffinity(fleet);
    long adapter = AdapterAffinity.hash("lora-7");
    Fixed policy = new Fixed(2, 0, 1, 3);
    Ranking ranking = affinity.rank(adapter, policy, MEMBERS, load);
    int home = ranking.next();
    assertThat(ranking.reason()).isEqualTo("adapter's next replica");
    assertThat(ranking.predictedCachedTokens()).isEqualTo(-1);
    ranking.sent(home, 0, true);
    assertThat(policy.sent).containsExactly(home);
    assertThat(affinity.isLoaded(home, adapter)).isTrue();

    // Loaded on two replicas now: the policy's order decides between them.
    int other = (home + 1) % 4;
    affinity.used(other, adapter);
    int policyFirst = home < other ? home : other;
    Ranking next = affinity.rank(adapter, startingWith(policyFirst), MEMBERS, load);
    assertThat(next.next()).isEqualTo(policyFirst);
    assertThat(next.reason()).isEqualTo("policy");
    assertThat(next.predictedCachedTokens()).isEqualTo(42);
  }

  @Test
  void aLoadedReplicaPastThePolicysFirstPicksIsStillFoundWithoutRankingEveryReplica() {
    AdapterAffinity affinity = new AdapterAffinity(fleet);
    long adapter = AdapterAffinity.hash("lora-far");
    affinity.used(3, adapter);
    Fixed policy = new Fixed(0, 1, 2, 3);
    Ranking ranking = affinity.rank(adapter, policy, MEMBERS, load);
    assertThat(ranking.next()).isEqualTo(3);
    assertThat(ranking.reason()).isEqualTo("adapter loaded here");
    assertThat(policy.next()).as("the policy was asked for its first two picks only").isEqualTo(2);
  }

  @Test
  void aLoadedReplicaTakesTheAdapterUntilItsShareOfTheLoadThenTheNextOneDoes() {
    AdapterAffinity affinity = new AdapterAffinity(fleet);
    long adapter = AdapterAffinity.hash("lora-hot");
    int home = first(affinity, adapter, load, 0, 1, 2, 3);
    affinity.used(home, adapter);
    // In flight on the home only: within 1.5 × mean (with the call placed) + 1 while 2 are.
    load.counter(home).acquire();
    load.counter(home).acquire();
    assertThat(first(affinity, adapter, load, 0, 1, 2, 3)).isEqualTo(home);
    load.counter(home).acquire();
    int spill = first(affinity, adapter, load, 0, 1, 2, 3);
    assertThat(spill).isNotEqualTo(home);
    // The spill follows the adapter's own order, the same from any client.
    assertThat(first(new AdapterAffinity(fleet), adapter, load, 3, 2, 1, 0)).isEqualTo(spill);
    // Everyone busier: the home is within its share again.
    for (int i : MEMBERS) {
      if (i != home) {
        load.counter(i).acquire();
        load.counter(i).acquire();
      }
    }
    assertThat(first(affinity, adapter, load, 0, 1, 2, 3)).isEqualTo(home);
  }

  @Test
  void aReplicaForgetsAnAdapterAfterCallsOfSlotsOthers() {
    AdapterAffinity affinity = new AdapterAffinity(fleet);
    long adapter = AdapterAffinity.hash("lora-a");
    affinity.used(1, adapter);
    for (int k = 0; k < AdapterAffinity.SLOTS - 1; k++) {
      affinity.used(1, AdapterAffinity.hash("other-" + k));
    }
    assertThat(affinity.isLoaded(1, adapter)).isTrue();
    affinity.used(1, adapter); // used again: the most recent
    affinity.used(1, AdapterAffinity.hash("other-last"));
    assertThat(affinity.isLoaded(1, adapter)).isTrue();
    for (int k = 0; k < AdapterAffinity.SLOTS; k++) {
      affinity.used(1, AdapterAffinity.hash("newer-" + k));
    }
    assertThat(affinity.isLoaded(1, adapter)).isFalse();
  }

  @Test
  void aReplicaThatRunsFewerAdaptersAtOnceIsBelievedToHoldFewer() {
    AdapterAffinity affinity = new AdapterAffinity(fleet);
    affinity.reported(2, new long[0], 2);
    long adapter = AdapterAffinity.hash("lora-a");
    affinity.used(2, adapter);
    affinity.used(2, AdapterAffinity.hash("lora-b"));
    assertThat(affinity.isLoaded(2, adapter)).isTrue();
    affinity.used(2, AdapterAffinity.hash("lora-c"));
    assertThat(affinity.isLoaded(2, adapter)).isFalse();
    affinity.reported(2, new long[] {adapter}, 0); // no max_lora: the last one reported stays
    assertThat(affinity.isLoaded(2, adapter)).isTrue();
    assertThat(affinity.isLoaded(2, AdapterAffinity.hash("lora-c"))).isTrue();
  }

  @Test
  void aReportOfTheAdapterRunningCountsAsLoaded() {
    AdapterAffinity affinity = new AdapterAffinity(fleet);
    long adapter = AdapterAffinity.hash("lora-b");
    int home = first(affinity, adapter, load, 0, 1, 2, 3);
    int reported = (home + 2) % 4;
    affinity.reported(reported, new long[] {AdapterAffinity.hash("x"), adapter}, 0);
    assertThat(affinity.isLoaded(reported, adapter)).isTrue();
    assertThat(first(affinity, adapter, load, 0, 1, 2, 3)).isEqualTo(reported);
  }

  @Test
  void whenEveryReplicaIsPastItsShareTheRestFollowInThePolicysOrder() {
    AdapterAffinity affinity = new AdapterAffinity(fleet);
    long adapter = AdapterAffinity.hash("lora-c");
    for (int n = 0; n < 3; n++) load.counter(2).acquire();
    // Only replica 2 is busy: it comes last, after the others, whatever the policy says.
    assertThat(all(affinity.rank(adapter, new Fixed(2, 0, 1, 3), MEMBERS, load)))
        .endsWith(2).containsExactlyInAnyOrder(0, 1, 2, 3);
  }

  @Test
  void replicasPastTheirShareComeLastInThePolicysOrder() {
    AdapterAffinity affinity = new AdapterAffinity(fleet);
    long adapter = AdapterAffinity.hash("lora-d");
    for (int n = 0; n < 8; n++) {
      load.counter(2).acquire();
      load.counter(0).acquire();
    }
    List<Integer> order = all(affinity.rank(adapter, new Fixed(2, 0, 3, 1), MEMBERS, load));
    assertThat(order.subList(0, 2)).containsExactlyInAnyOrder(1, 3);
    assertThat(order.subList(2, 4)).containsExactly(2, 0);
  }

  @Property(tries = 200)
  void everyRankingIsAPermutationOfTheMembers(@ForAll @IntRange(min = 0, max = 1000) int name,
      @ForAll @IntRange(min = 0, max = 3) int loaded, @ForAll @IntRange(min = 0, max = 5) int busy) {
    LocalLoad view = LocalLoad.of(fleet);
    for (int n = 0; n < busy; n++) view.counter(busy % 4).acquire();
    AdapterAffinity affinity = new AdapterAffinity(fleet);
    long adapter = AdapterAffinity.hash("a" + name);
    affinity.used(loaded, adapter);
    assertThat(all(affinity.rank(adapter, new Fixed(3, 1, 0, 2), MEMBERS, view)))
        .containsExactlyInAnyOrder(0, 1, 2, 3);
  }

  @Test
  void concurrentCallsKeepEachReplicasAdaptersDistinctAndBounded() throws Exception {
    AdapterAffinity affinity = new AdapterAffinity(fleet);
    ExecutorService pool = Executors.newFixedThreadPool(4);
    CountDownLatch start = new CountDownLatch(1);
    try {
      for (int t = 0; t < 4; t++) {
        int thread = t;
        pool.execute(() -> {
          try {
            start.await();
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return;
          }
          for (int k = 0; k < 2000; k++) affinity.used(0, AdapterAffinity.hash("a" + (k + thread) % 12));
        });
      }
      start.countDown();
      pool.shutdown();
      assertThat(pool.awaitTermination(30, TimeUnit.SECONDS)).isTrue();
    } finally {
      pool.shutdownNow();
    }
    int believed = 0;
    for (int k = 0; k < 12; k++) {
      if (affinity.isLoaded(0, AdapterAffinity.hash("a" + k))) believed++;
    }
    assertThat(believed).isEqualTo(AdapterAffinity.SLOTS);
  }
}
