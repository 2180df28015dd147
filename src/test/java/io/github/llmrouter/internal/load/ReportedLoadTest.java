package io.github.llmrouter.internal.load;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.github.llmrouter.load.LoadReport;
import io.github.llmrouter.replica.Replica;
import io.github.llmrouter.replica.ReplicaSet;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** The client's view combining reported queues with its own dispatches, in ticker time. */
class ReportedLoadTest {
  private static final Replica A = Replica.of("http://10.0.0.1:8000");
  private static final Replica B = Replica.of("http://10.0.0.2:8000");
  private final AtomicLong now = new AtomicLong(1_000_000_000L);
  private final LocalLoad load =
      LocalLoad.of(ReplicaSet.of(List.of(A, B)), now::get, Duration.ofSeconds(3));

  private LoadReport report(int waiting, double kv) {
    return new LoadReport(waiting, 1, kv, now.get(), LoadReport.Source.SCRAPE);
  }

  @Test
  void withoutReportsEverythingIsUnknown() {
    assertThat(load.effectiveQueue(0)).isEqualTo(-1);
    assertThat(load.kvUsage(0)).isNaN();
    assertThat(load.running(0, now.get())).isEqualTo(-1);
    assertThat(load.hasFreshReport(0)).isFalse();
  }

  @Test
  void theRunningBatchIsReadFromAFreshReportOnly() {
    load.publish(0, new LoadReport(2, 7, 0.4, now.get(), LoadReport.Source.SCRAPE), false);
    assertThat(load.running(0, load.now())).isEqualTo(7);
    assertThat(load.running(1, load.now())).as("B never reported").isEqualTo(-1);
    now.addAndGet(TimeUnit.SECONDS.toNanos(3) + 1);
    assertThat(load.running(0, load.now())).as("stale").isEqualTo(-1);
  }

  @Test
  void theKvCapacityComesFromAFreshScrapeAndOutlivesTheHeaderReportsBetweenScrapes() {
    assertThat(load.kvCapacityTokens(0)).as("no report").isEqualTo(-1);
    load.publish(0, new LoadReport(2, 1, 2, 0.3, Double.NaN, Double.NaN, now.get(),
        LoadReport.Source.SCRAPE, 480_000), false);
    assertThat(load.kvCapacityTokens(0)).isEqualTo(480_000);
    assertThat(load.kvCapacityTokens(1)).as("B never reported").isEqualTo(-1);
    load.publish(0, new LoadReport(4, -1, Double.NaN, now.get(), LoadReport.Source.HEADER), true);
    assertThat(load.kvCapacityTokens(0)).as("a header carries none").isEqualTo(480_000);
    long fresh = load.now();
    now.addAndGet(TimeUnit.SECONDS.toNanos(3) + 1);
    assertThat(load.kvCapacityTokens(0)).as("stale").isEqualTo(-1);
    assertThat(load.kvCapacityTokens(0, load.now())).as("stale").isEqualTo(-1);
    assertThat(load.kvCapacityTokens(0, fresh)).as("judged at the time given").isEqualTo(480_000);
    assertThatThrownBy(() -> new LoadReport(0, 0, 0, 0.1, Double.NaN, Double.NaN, 0,
        LoadReport.Source.SCRAPE, -2)).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("kvCapacityTokens");
    assertThatThrownBy(() -> new LoadReport(0, 0, 0, 0.1, Double.NaN, Double.NaN, 0,
        LoadReport.Source.SCRAPE, 0)).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("kvCapacityTokens");
  }

  @Test
  void recentQueueWaitsComeFromHistogramTotalsAndTheirMeanNeedsTwoReplicas() {
    load.publish(0, new LoadReport(2, 1, 0.1, 10, 5, now.get(), LoadReport.Source.SCRAPE), false);
    now.addAndGet(TimeUnit.SECONDS.toNanos(1));
    load.publish(0, new LoadReport(2, 1, 0.1, 16, 7, now.get(), LoadReport.Source.SCRAPE), false);
    assertThat(load.queueWait(0, load.now())).isEqualTo(3.0);
    assertThat(load.meanQueueWait(load.now())).as("one replica compares with nothing").isNaN();
    load.publish(1, new LoadReport(0, 1, 0.1, 0, 0, now.get(), LoadReport.Source.SCRAPE), false);
    now.addAndGet(TimeUnit.SECONDS.toNanos(1));
    load.publish(1, new LoadReport(0, 1, 0.1, 1, 1, now.get(), LoadReport.Source.SCRAPE), false);
    assertThat(load.queueWait(1, load.now())).isEqualTo(1.0);
    assertThat(load.meanQueueWait(load.now())).isEqualTo(2.0);
    // A header report (no totals) keeps the estimate.
    load.publish(0, new LoadReport(4, -1, Double.NaN, now.get(), LoadReport.Source.HEADER), true);
    assertThat(load.queueWait(0, load.now())).isEqualTo(3.0);
    now.addAndGet(TimeUnit.SECONDS.toNanos(4));
    assertThat(load.queueWait(0, load.now())).as("stale").isNaN();
  }

  @Test
  void theFleetsReportedLoadIsSummedAsReportsArrive() {
    assertThat(load.reportedLoadPerWeight(load.now())).as("no reports").isNaN();
    load.publish(0, new LoadReport(2, 7, 0.4, now.get(), LoadReport.Source.SCRAPE), false);
    // (2 + 7 + the request being placed) over A's weight.
    assertThat(load.reportedLoadPerWeight(load.now())).isEqualTo(10.0);
    load.counter(0).acquire(); // this client's dispatch since the report adds to the queue
    assertThat(load.reportedLoad(0, load.now())).isEqualTo(10);
    assertThat(load.reportedLoadPerWeight(load.now())).isEqualTo(11.0);
    load.publish(1, new LoadReport(0, 3, 0.1, now.get(), LoadReport.Source.SCRAPE), false);
    assertThat(load.reportedLoadPerWeight(load.now())).isEqualTo((10 + 3 + 1) / 2.0);
    // A report without a running batch does not count; one that went stale drops out at the
    // next report.
    load.publish(1, new LoadReport(5, -1, 0.1, now.get(), LoadReport.Source.HEADER), true);
    assertThat(load.reportedLoadPerWeight(load.now())).isEqualTo(11.0);
    now.addAndGet(TimeUnit.SECONDS.toNanos(2));
    load.publish(1, new LoadReport(0, 3, 0.1, now.get(), LoadReport.Source.SCRAPE), false);
    now.addAndGet(TimeUnit.SECONDS.toNanos(2));
    load.publish(1, new LoadReport(0, 3, 0.1, now.get(), LoadReport.Source.SCRAPE), false);
    assertThat(load.reportedLoad(0, load.now())).as("A's report is 4 s old").isEqualTo(-1);
    assertThat(load.reportedLoadPerWeight(load.now())).isEqualTo(3 + 1 + 1.0);
  }

  @Test
  void effectiveQueueIsReportedWaitingPlusDispatchedMinusCompletedSinceTheReport() {
    load.counter(0).acquire(); // in flight before the report: already part of what it says
    load.publish(0, report(3, 0.5), false);
    assertThat(load.effectiveQueue(0)).isEqualTo(3);
    assertThat(load.kvUsage(0)).isEqualTo(0.5);
    load.counter(0).acquire();
    load.counter(0).acquire();
    assertThat(load.effectiveQueue(0)).isEqualTo(5);
    assertThat(load.dispatchedSinceReport(0)).isEqualTo(2);
    load.counter(0).release();
    load.counter(0).release();
    load.counter(0).release();
    assertThat(load.completedSinceReport(0)).isEqualTo(3);
    assertThat(load.effectiveQueue(0)).isEqualTo(2);
  }

  @Test
  void theEffectiveQueueNeverGoesBelowZero() {
    for (int k = 0; k < 5; k++) load.counter(1).acquire();
    load.publish(1, report(1, 0.1), false);
    for (int k = 0; k < 5; k++) load.counter(1).release();
    assertThat(load.effectiveQueue(1)).isZero();
  }

  @Test
  void aReportOnAResponseLeavesThatRequestOutOfTheBaseline() {
    load.counter(0).acquire(); // the request whose response carries the header
    load.publish(0, report(2, 0.2), true);
    load.counter(0).release(); // it completes: it was running, not waiting
    assertThat(load.effectiveQueue(0)).isEqualTo(2);
  }

  @Test
  void aReportOlderThanTheStalenessLimitIsIgnored() {
    load.publish(0, report(9, 0.99), false);
    now.addAndGet(TimeUnit.SECONDS.toNanos(3));
    assertThat(load.effectiveQueue(0)).as("exactly at the limit: still fresh").isEqualTo(9);
    now.addAndGet(1);
    assertThat(load.effectiveQueue(0)).isEqualTo(-1);
    assertThat(load.kvUsage(0)).isNaN();
    assertThat(load.hasFreshReport(0)).isFalse();
    assertThat(load.lastReport(0).waiting()).as("kept for inspection").isEqualTo(9);
    assertThat(load.inFlight(0)).as("in-flight counts are what is left").isZero();
  }

  @Test
  void reportsFollowTheirReplicaIntoTheNextSnapshot() {
    load.publish(1, report(6, 0.3), false);
    LocalLoad next = load.next(ReplicaSet.of(List.of(B)));
    assertThat(next.effectiveQueue(0)).isEqualTo(6);
    assertThat(next.publish(A.id(), report(1, 0), false)).as("A has left").isFalse();
  }

  @Test
  void aReportWithoutAQueueLeavesTheQueueUnknown() {
    load.publish(0, new LoadReport(-1, 4, 0.97, now.get(), LoadReport.Source.HEADER), true);
    assertThat(load.effectiveQueue(0)).isEqualTo(-1);
    assertThat(load.kvUsage(0)).isEqualTo(0.97);
  }

  @Test
  void howManyAReplicaRunsAtOnceIsLearntFromTwoReportsInARowWithRequestsWaiting() {
    // Running 3 and nothing waiting says nothing of its limit.
    load.publish(0, new LoadReport(0, 3, 0.2, now.get(), LoadReport.Source.SCRAPE), false);
    assertThat(load.concurrency(0, now.get())).isEqualTo(-1);
    // One report with requests waiting may be a burst the engine admits at its next step.
    load.publish(0, new LoadReport(1, 2, 0.2, now.get(), LoadReport.Source.SCRAPE), false);
    assertThat(load.concurrency(0, now.get())).isEqualTo(-1);
    // Still waiting, and no more running: it runs 2 at once (llama.cpp's slots, say).
    load.publish(0, new LoadReport(1, 2, 0.2, now.get(), LoadReport.Source.SCRAPE), false);
    assertThat(load.concurrency(0, now.get())).isEqualTo(2);
    // Kept while it runs fewer, raised when it runs more.
    load.publish(0, new LoadReport(0, 1, 0.2, now.get(), LoadReport.Source.SCRAPE), false);
    assertThat(load.concurrency(0, now.get())).isEqualTo(2);
    load.publish(0, new LoadReport(3, 5, 0.2, now.get(), LoadReport.Source.SCRAPE), false);
    assertThat(load.concurrency(0, now.get())).isEqualTo(5);
    // Full again at 4 (long prompts fill its KV memory sooner): 4.
    load.publish(0, new LoadReport(2, 4, 0.9, now.get(), LoadReport.Source.SCRAPE), false);
    assertThat(load.concurrency(0, now.get())).isEqualTo(4);
    // Waiting, but running more than before: admitting, not full.
    load.publish(0, new LoadReport(2, 6, 0.9, now.get(), LoadReport.Source.SCRAPE), false);
    assertThat(load.concurrency(0, now.get())).isEqualTo(6);
    // A stale report says nothing; the other replica never reported.
    assertThat(load.concurrency(0, now.get() + 4_000_000_000L)).isEqualTo(-1);
    assertThat(load.concurrency(1, now.get())).isEqualTo(-1);
  }
}
