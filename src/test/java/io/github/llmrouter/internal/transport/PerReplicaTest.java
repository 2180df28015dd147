package io.github.llmrouter.internal.transport;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.llmrouter.replica.Replica;
import io.github.llmrouter.replica.ReplicaSet;
import io.github.llmrouter.testing.ManualScheduler;
import java.util.List;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** One task per replica: started on joining, stopped on leaving, restarted on a new description. */
class PerReplicaTest {
  private static final class Task extends PerReplica.Task {
    Task(Replica replica) {
      super(replica);
    }
  }

  private final PerReplica<Task> tasks = new PerReplica<>();

  @Test
  void aTaskRunsWhatItSchedulesUntilItStopsAndStopsWhenTheSchedulerRefuses() {
    ManualScheduler scheduler = new ManualScheduler();
    try {
      Task task = new Task(a);
      AtomicInteger runs = new AtomicInteger();
      task.schedule(() -> scheduler, runs::incrementAndGet, 7);
      assertThat(scheduler.runNext()).isEqualTo(7);
      assertThat(runs).hasValue(1);
      task.schedule(() -> scheduler, runs::incrementAndGet, 9);
      task.unschedule();
      assertThat(scheduler.pending()).as("withdrawn").isZero();
      task.schedule(() -> scheduler, runs::incrementAndGet, 9);
      task.stop();
      assertThat(scheduler.pending()).as("stopping withdraws it").isZero();
      task.schedule(() -> scheduler, runs::incrementAndGet, 9);
      assertThat(scheduler.pending()).as("nothing after stop").isZero();
    } finally {
      scheduler.shutdownNow();
    }
    ScheduledThreadPoolExecutor closed = new ScheduledThreadPoolExecutor(1);
    closed.shutdown();
    Task refused = new Task(b);
    refused.schedule(() -> closed, () -> { }, 1);
    assertThat(refused.stopped()).as("a closing client's scheduler").isTrue();
  }
  private final Replica a = Replica.builder("http://10.0.0.1:8000").id("a").build();
  private final Replica b = Replica.builder("http://10.0.0.2:8000").id("b").build();
  private final Replica declared =
      Replica.builder("http://10.0.0.3:8000").id("c").model("m").build();

  @Test
  void tasksFollowTheMembershipAndWhatIsWanted() {
    List<Task> first = tasks.update(ReplicaSet.of(List.of(a, b, declared)),
        r -> r.models().isEmpty(), Task::new);
    assertThat(first).extracting(t -> t.replica().id()).containsExactly("a", "b");

    assertThat(tasks.update(ReplicaSet.of(List.of(a, b, declared)), r -> r.models().isEmpty(),
        Task::new)).as("nothing changed").isEmpty();

    Replica movedB = b.toBuilder().header("x-route", "2").build();
    List<Task> second = tasks.update(ReplicaSet.of(List.of(movedB)), r -> r.models().isEmpty(),
        Task::new);
    assertThat(second).singleElement().satisfies(t -> assertThat(t.replica()).isEqualTo(movedB));
    assertThat(first).allSatisfy(t -> assertThat(t.stopped()).as(t.replica().id()).isTrue());
    assertThat(tasks.all()).containsExactlyElementsOf(second);

    tasks.stopAll();
    assertThat(second.get(0).stopped()).isTrue();
    assertThat(tasks.all()).isEmpty();
  }
}
