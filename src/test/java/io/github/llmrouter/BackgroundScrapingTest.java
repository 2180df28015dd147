package io.github.llmrouter;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.llmrouter.load.LoadMonitoring;
import io.github.llmrouter.testing.EventRecorder;
import io.github.llmrouter.testing.ScriptedServer;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Scraping is on by default and runs by itself, round after round, without any call or {@code
 * scrapeLoadNow()}: the fleet view follows what the replicas report.
 */
class BackgroundScrapingTest {
  private final ScriptedServer replica = new ScriptedServer();

  @AfterEach
  void stop() {
    replica.close();
  }

  private void reportWaiting(int waiting) {
    replica.answer(200, Map.of("Content-Type", "text/plain; version=0.0.4"),
        "vllm:num_requests_waiting{model_name=\"m\"} " + waiting + "\n"
            + "vllm:num_requests_running{model_name=\"m\"} 1\n");
  }

  @Test
  void byDefaultTheClientScrapesEveryReplicaOnItsOwnRoundAfterRound() {
    reportWaiting(4);
    try (LlmClient client = LlmClient.builder().replicas(replica.url()).build()) {
      // Defaults: the first round within 0.5 to 1.5 s, then every 1 s ± 20%.
      EventRecorder.await("a first scrape", Duration.ofSeconds(20),
          () -> client.fleet().replicas().get(0).reportedWaiting() == 4);
      reportWaiting(7);
      EventRecorder.await("a second round", Duration.ofSeconds(20),
          () -> client.fleet().replicas().get(0).reportedWaiting() == 7);
      assertThat(client.fleet().replicas().get(0).running()).isEqualTo(1);
    }
    assertThat(replica.requests()).as("scrapes only: no call was made").isGreaterThanOrEqualTo(2);
  }

  @Test
  void aShorterIntervalScrapesAsOftenAsAsked() {
    reportWaiting(1);
    try (LlmClient client = LlmClient.builder().replicas(replica.url())
        .loadMonitoring(LoadMonitoring.builder().scrapeInterval(Duration.ofMillis(100))
            .scrapeTimeout(Duration.ofMillis(100)).build())
        .build()) {
      EventRecorder.await("five rounds", Duration.ofSeconds(20), () -> replica.requests() >= 5);
      assertThat(client.fleet().scrapeFailures()).isZero();
    }
  }

  @Test
  void disabledReportingNeverScrapes() throws Exception {
    reportWaiting(1);
    try (LlmClient client = LlmClient.builder().replicas(replica.url())
        .loadMonitoring(LoadMonitoring.disabled()).build()) {
      client.scrapeLoadNow().get();
      assertThat(client.fleet().replicas().get(0).reportedWaiting()).isEqualTo(-1);
    }
    assertThat(replica.requests()).isZero();
  }
}
