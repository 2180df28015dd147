package io.github.llmrouter.internal.health;

import static io.github.llmrouter.routing.Fleets.named;
import static org.assertj.core.api.Assertions.assertThat;

import io.github.llmrouter.observe.HealthChangedEvent;
import io.github.llmrouter.replica.HealthCheck;
import io.github.llmrouter.replica.OutlierDetection;
import io.github.llmrouter.replica.Replica;
import io.github.llmrouter.replica.ReplicaSet;
import io.github.llmrouter.testing.EventRecorder;
import io.github.llmrouter.testing.ManualScheduler;
import io.github.llmrouter.testing.ManualTicker;
import java.net.InetAddress;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.AbstractExecutorService;
import java.util.concurrent.TimeUnit;
import mockwebserver3.MockResponse;
import mockwebserver3.MockWebServer;
import okhttp3.Dispatcher;
import okhttp3.OkHttpClient;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Active health checks, step by step: every check runs when the test runs the scheduler's next
 * task, and its answer is handled before that returns (OkHttp runs the exchange on the test's
 * thread), so no timer fires and nothing is awaited.
 */
class HealthProberTest {
  private static final HealthCheck CHECK = HealthCheck.builder().interval(Duration.ofSeconds(5))
      .jitter(0.2).unhealthyThreshold(3).healthyThreshold(2).build();

  private final ManualScheduler scheduler = new ManualScheduler();
  private final EventRecorder events = new EventRecorder();
  private final ManualTicker ticker = new ManualTicker();
  private final StatusTracker tracker = new StatusTracker(OutlierDetection.disabled(),
      Duration.ZERO, Duration.ZERO, ticker, events);
  /** Runs every exchange on the thread that starts it. */
  private final OkHttpClient http =
      new OkHttpClient.Builder().dispatcher(new Dispatcher(new SameThread())).build();
  private MockWebServer server;
  private HealthProber prober;

  @BeforeEach
  void start() throws Exception {
    server = new MockWebServer();
    server.start(InetAddress.getLoopbackAddress(), 0);
    prober = new HealthProber(CHECK, http, tracker, ticker, () -> scheduler, 42);
  }

  @AfterEach
  void stop() {
    prober.close();
    server.close();
    scheduler.shutdownNow();
  }

  private ReplicaSet fleetOnServer() {
    ReplicaSet set = ReplicaSet.of(List.of(
        Replica.builder(server.url("/").toString()).id("r0").build()));
    tracker.update(set, "test");
    prober.update(set);
    return set;
  }

  private void answers(int... statuses) {
    for (int s : statuses) server.enqueue(new MockResponse.Builder().code(s).build());
  }

  private boolean healthy() {
    return tracker.get("r0").isHealthy();
  }

  @Test
  void threeFailedChecksInARowMarkAReplicaDownAndTwoPassedOnesBringItBack() throws Exception {
    answers(503, 503, 200, 503, 503, 503, 200, 200);
    fleetOnServer();
    for (int i = 0; i < 5; i++) scheduler.runNext();
    assertThat(healthy()).as("two failures, a pass, two failures").isTrue();
    scheduler.runNext();
    assertThat(healthy()).isFalse();
    scheduler.runNext();
    assertThat(healthy()).as("one pass is not enough").isFalse();
    scheduler.runNext();
    assertThat(healthy()).isTrue();
    assertThat(events.health).extracting(HealthChangedEvent::healthy).containsExactly(false, true);
    assertThat(events.health.get(0).reason()).isEqualTo("3 failed checks, last: HTTP 503");
    assertThat(server.takeRequest(5, TimeUnit.SECONDS).getUrl().encodedPath())
        .isEqualTo("/health");
  }

  @Test
  void checksStartAtARandomPointOfTheFirstIntervalThenFollowItWithJitter() {
    answers(200, 200, 200, 200);
    fleetOnServer();
    long interval = Duration.ofSeconds(5).toNanos();
    assertThat(scheduler.runNext()).isBetween(0L, interval);
    for (int i = 0; i < 3; i++) {
      assertThat(scheduler.runNext()).isBetween((long) (interval * 0.8), (long) (interval * 1.2));
    }
    assertThat(scheduler.pending()).as("one check at a time").isEqualTo(1);
  }

  @Test
  void aReplicaThatLeavesIsNoLongerCheckedAndOneThatChangedGetsANewProbe() {
    fleetOnServer();
    assertThat(scheduler.pending()).isEqualTo(1);
    prober.update(named(2));
    assertThat(scheduler.pending()).as("r0 moved to another URL, r1 joined").isEqualTo(2);
    prober.update(ReplicaSet.empty());
    assertThat(scheduler.pending()).isZero();
  }

  @Test
  void aClosedProberChecksNothingMore() {
    fleetOnServer();
    prober.close();
    assertThat(scheduler.pending()).isZero();
    prober.update(named(1));
    assertThat(scheduler.pending()).isZero();
  }

  /** An executor that runs each task on the thread that submits it. */
  private static final class SameThread extends AbstractExecutorService {
    private volatile boolean shutdown;

    @Override
    public void execute(Runnable command) {
      command.run();
    }

    @Override
    public void shutdown() {
      shutdown = true;
    }

    @Override
    public List<Runnable> shutdownNow() {
      shutdown = true;
      return List.of();
    }

    @Override
    public boolean isShutdown() {
      return shutdown;
    }

    @Override
    public boolean isTerminated() {
      return shutdown;
    }

    @Override
    public boolean awaitTermination(long timeout, TimeUnit unit) {
      return true;
    }
  }
}
