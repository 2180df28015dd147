package io.github.llmrouter.internal.health;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.llmrouter.api.Ticker;
import io.github.llmrouter.observe.RoutingListener;
import io.github.llmrouter.replica.HealthCheck;
import io.github.llmrouter.replica.OutlierDetection;
import io.github.llmrouter.replica.Replica;
import io.github.llmrouter.replica.ReplicaSet;
import io.github.llmrouter.testing.EventRecorder;
import io.github.llmrouter.testing.ManualScheduler;
import io.github.llmrouter.testing.ScriptedServer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import okhttp3.OkHttpClient;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * When health checks run: the first at a random point of the first interval (so a fleet's checks
 * spread out), then one interval ± jitter after the previous check ended. Read off the scheduler
 * the checker asks, so no timer fires and nothing depends on the machine's speed.
 */
class HealthCheckScheduleTest {
  private final ScriptedServer replica = new ScriptedServer();
  private final ManualScheduler scheduler = new ManualScheduler();
  private final OkHttpClient http = new OkHttpClient();

  @AfterEach
  void stop() {
    scheduler.shutdownNow();
    replica.close();
    http.dispatcher().executorService().shutdown();
    http.connectionPool().evictAll();
  }

  /** The delays of the first {@code checks} checks of one replica. */
  private List<Long> delays(HealthCheck config, int checks) {
    replica.answer(200, Map.of(), "");
    StatusTracker tracker = new StatusTracker(OutlierDetection.disabled(), Duration.ZERO,
        Duration.ZERO, Ticker.system(), RoutingListener.NONE);
    ReplicaSet fleet = ReplicaSet.of(List.of(Replica.of(replica.url())));
    tracker.update(fleet, "test");
    List<Long> delays = new ArrayList<>();
    try (HealthProber checker = new HealthProber(config, http, tracker, Ticker.system(),
        () -> scheduler, 42)) {
      checker.update(fleet);
      for (int i = 0; i < checks; i++) {
        EventRecorder.await("check " + (i + 1) + " scheduled", Duration.ofSeconds(10),
            () -> scheduler.pending() == 1);
        delays.add(scheduler.runNext()); // runs the check; its answer schedules the next
      }
      EventRecorder.await("the last check's request", Duration.ofSeconds(10),
          () -> replica.requests() == checks);
    }
    return delays;
  }

  private static long ms(long millis) {
    return Duration.ofMillis(millis).toNanos();
  }

  @Test
  void theFirstCheckFallsInTheFirstIntervalAndEachNextOneIntervalPlusOrMinusJitterLater() {
    HealthCheck config = HealthCheck.builder().interval(Duration.ofSeconds(1)).jitter(0.2).build();
    List<Long> delays = delays(config, 25);
    assertThat(delays.get(0)).isBetween(0L, ms(1000) - 1);
    List<Long> later = delays.subList(1, delays.size());
    assertThat(later).allSatisfy(d -> assertThat(d).isBetween(ms(800), ms(1200)));
    // Spread over the whole band, not a constant: both outer quarters are reached.
    assertThat(later).anySatisfy(d -> assertThat(d).isLessThan(ms(900)));
    assertThat(later).anySatisfy(d -> assertThat(d).isGreaterThan(ms(1100)));
  }

  @Test
  void withoutJitterEveryCheckFollowsExactlyOneIntervalAfterThePrevious() {
    HealthCheck config = HealthCheck.builder().interval(Duration.ofMillis(700)).jitter(0).build();
    List<Long> delays = delays(config, 6);
    assertThat(delays.get(0)).isBetween(0L, ms(700) - 1);
    assertThat(delays.subList(1, delays.size())).containsOnly(ms(700));
  }
}
