package io.github.llmrouter.internal.transport;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.llmrouter.load.EngineDialect;
import io.github.llmrouter.load.LoadMonitoring;
import io.github.llmrouter.load.LoadReport;
import io.github.llmrouter.replica.Replica;
import io.github.llmrouter.replica.ReplicaSet;
import io.github.llmrouter.testing.ManualTicker;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import mockwebserver3.MockResponse;
import mockwebserver3.MockWebServer;
import mockwebserver3.RecordedRequest;
import okhttp3.OkHttpClient;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * One round of metrics scraping against a loopback server, run by hand (the schedule is not
 * started): what is published, what counts as a failure, what is sent.
 */
class LoadScraperTest {
  private static final String VLLM = """
      # HELP vllm:num_requests_waiting Requests waiting.
      # TYPE vllm:num_requests_waiting gauge
      vllm:num_requests_waiting{model_name="m"} 3
      vllm:num_requests_running{model_name="m"} 7
      vllm:kv_cache_usage_perc{model_name="m"} 0.5
      """;

  private final ManualTicker ticker = new ManualTicker();
  private final List<LoadReport> published = new CopyOnWriteArrayList<>();
  private final OkHttpClient http = OkHttpClients.configure(null, 16, Duration.ofSeconds(5),
      Duration.ofSeconds(5));
  private MockWebServer server;
  private Replica replica;
  private LoadScraper scraper;

  @BeforeEach
  void start() throws Exception {
    server = new MockWebServer();
    server.start(java.net.InetAddress.getLoopbackAddress(), 0);
    replica = Replica.builder(server.url("/").toString()).header("X-Tenant", "a").build();
    scraper = new LoadScraper(http, "secret-key", LoadMonitoring.builder()
        .dialect(EngineDialect.VLLM).scrapeInterval(Duration.ofSeconds(5))
        .scrapeTimeout(Duration.ofSeconds(5)).build(), ticker,
        () -> ReplicaSet.of(List.of(replica)), (r, report) -> published.add(report));
  }

  @AfterEach
  void stop() {
    scraper.close();
    server.close();
    OkHttpClients.release(http);
  }

  private void answer(int status, String body) {
    server.enqueue(new MockResponse.Builder().code(status).body(body).build());
  }

  private void scrapeOnce() throws Exception {
    scraper.scrapeAll().get(10, TimeUnit.SECONDS);
  }

  @Test
  void aScrapePublishesWhatTheDialectReadsStampedWithTheClientsTime() throws Exception {
    answer(200, VLLM);
    scrapeOnce();
    assertThat(published).singleElement().satisfies(r -> {
      assertThat(r.waiting()).isEqualTo(3);
      assertThat(r.running()).isEqualTo(7);
      assertThat(r.kvUsage()).isEqualTo(0.5);
      assertThat(r.receivedNanos()).isEqualTo(ticker.read());
      assertThat(r.source()).isEqualTo(LoadReport.Source.SCRAPE);
    });
    assertThat(scraper.scrapes()).isEqualTo(1);
    assertThat(scraper.failures()).isZero();
  }

  @Test
  void theScrapeAsksForPrometheusTextWithTheKeyAndTheReplicasHeaders() throws Exception {
    answer(200, VLLM);
    scrapeOnce();
    RecordedRequest request = server.takeRequest(5, TimeUnit.SECONDS);
    assertThat(request.getUrl().encodedPath()).isEqualTo("/metrics");
    assertThat(request.getHeaders().get("Authorization")).isEqualTo("Bearer secret-key");
    assertThat(request.getHeaders().get("X-Tenant")).isEqualTo("a");
    assertThat(request.getHeaders().get("Accept")).startsWith("text/plain");
  }

  @Test
  void anErrorStatusOrABodyWithoutTheQueueMetricIsAFailureAndPublishesNothing()
      throws Exception {
    answer(503, "");
    scrapeOnce();
    answer(200, "other_metric 1\n");
    scrapeOnce();
    assertThat(published).isEmpty();
    assertThat(scraper.failures()).isEqualTo(2);
    assertThat(scraper.scrapes()).isZero();
  }

  @Test
  void malformedLinesAreSkippedAndCountedWithoutFailingTheScrape() throws Exception {
    answer(200, VLLM + "this is { not a sample\n");
    scrapeOnce();
    assertThat(published).hasSize(1);
    assertThat(scraper.malformedLines()).isEqualTo(1);
  }

  @Test
  void aClosedScraperScrapesNothing() throws Exception {
    scraper.close();
    scrapeOnce();
    assertThat(server.getRequestCount()).isZero();
    assertThat(published).isEmpty();
  }
}
