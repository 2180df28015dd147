package io.github.llmrouter.internal.load;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.llmrouter.replica.Replica;
import io.github.llmrouter.replica.ReplicaSet;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The client's own in-flight counts, carried across membership snapshots by replica id. */
class LocalLoadTest {
  private static final Replica A = Replica.of("http://10.0.0.1:8000");
  private static final Replica B = Replica.of("http://10.0.0.2:8000");
  private static final Replica C = Replica.of("http://10.0.0.3:8000");

  @Test
  void countsStartAtZeroAndTheTotalIsTheirSum() {
    LocalLoad load = LocalLoad.of(ReplicaSet.of(List.of(A, B)));
    assertThat(load.inFlight(0)).isZero();
    assertThat(load.totalInFlight()).isZero();
    load.counter(0).acquire();
    load.counter(0).acquire();
    load.counter(1).acquire();
    assertThat(load.inFlight(0)).isEqualTo(2);
    assertThat(load.counter(0).get()).isEqualTo(2);
    assertThat(load.inFlight(1)).isEqualTo(1);
    assertThat(load.totalInFlight()).isEqualTo(3);
    load.counter(0).release();
    assertThat(load.inFlight(0)).isEqualTo(1);
    assertThat(load.totalInFlight()).isEqualTo(2);
  }

  @Test
  void countersFollowTheirReplicaIntoTheNextSnapshot() {
    LocalLoad first = LocalLoad.of(ReplicaSet.of(List.of(A, B)));
    first.counter(0).acquire();
    first.counter(1).acquire();
    first.counter(1).acquire();

    // B moves to index 0, A to index 2, C is new.
    LocalLoad second = first.next(ReplicaSet.of(List.of(B, C, A)));
    assertThat(second.replicas().get(0)).isEqualTo(B);
    assertThat(second.inFlight(0)).isEqualTo(2);
    assertThat(second.inFlight(1)).isZero();
    assertThat(second.inFlight(2)).isEqualTo(1);
    assertThat(second.totalInFlight()).isEqualTo(3);
    assertThat(second.counter(0)).isSameAs(first.counter(1));

    // A request that started on the old snapshot releases the counter it took.
    first.counter(1).release();
    assertThat(second.inFlight(0)).isEqualTo(1);
    assertThat(second.totalInFlight()).isEqualTo(2);
  }

  @Test
  void releasingACounterOfARemovedReplicaStillDecrementsTheTotal() {
    LocalLoad first = LocalLoad.of(ReplicaSet.of(List.of(A, B)));
    InFlightCounter onB = first.counter(1);
    onB.acquire();
    first.counter(0).acquire();

    LocalLoad second = first.next(ReplicaSet.of(List.of(A)));
    // Until it ends, the request on B still counts in the total (the documented behaviour).
    assertThat(second.totalInFlight()).isEqualTo(2);
    onB.release();
    assertThat(second.totalInFlight()).isEqualTo(1).isEqualTo(second.inFlight(0));

    // B coming back starts from zero; the total never goes negative.
    LocalLoad third = second.next(ReplicaSet.of(List.of(A, B)));
    assertThat(third.inFlight(1)).isZero();
    second.counter(0).release();
    assertThat(third.totalInFlight()).isZero();
  }
}
