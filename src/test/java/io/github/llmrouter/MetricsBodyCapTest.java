package io.github.llmrouter;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpServer;
import io.github.llmrouter.load.LoadMonitoring;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** The /metrics size cap caps what is read: the scrape stops there and counts as failed. */
class MetricsBodyCapTest {
  private static final long SERVER_LIMIT = 256L << 20;

  @Test
  void anEndlessMetricsBodyIsCutAtTheCapAndCountsAsAFailedScrape() throws Exception {
    AtomicLong written = new AtomicLong();
    HttpServer server = HttpServer.create(
        new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 16);
    // Readable lines: a client that read the first 4 MiB and parsed them would publish a report.
    byte[] line = "vllm:num_requests_waiting{model_name=\"m\"} 7\n".repeat(256)
        .getBytes(StandardCharsets.UTF_8);
    server.createContext("/metrics", ex -> {
      ex.sendResponseHeaders(200, 0); // chunked, never ending (up to a safety limit)
      try (OutputStream out = ex.getResponseBody()) {
        while (written.get() < SERVER_LIMIT) {
          out.write(line);
          written.addAndGet(line.length);
        }
      } catch (IOException clientWentAway) {
        // what the client is expected to do
      }
    });
    server.start();
    try (LlmClient client = LlmClient.builder()
        .replicas("http://127.0.0.1:" + server.getAddress().getPort())
        .loadMonitoring(LoadMonitoring.builder().scrapeInterval(Duration.ofMinutes(1))
            .scrapeTimeout(Duration.ofSeconds(30)).build())
        .build()) {
      client.scrapeLoadNow().get(60, TimeUnit.SECONDS);
      assertThat(client.fleet().scrapeFailures()).isEqualTo(1);
      assertThat(client.fleet().replicas().get(0).reportedWaiting())
          .as("nothing published from a cut-off body").isEqualTo(-1);
    } finally {
      server.stop(0);
    }
    // 4 MiB read, plus what socket buffers held when the call was cancelled.
    System.out.printf("endless /metrics: %.1f MiB written before the client hung up%n",
        written.get() / 1048576.0);
    assertThat(written.get()).isLessThan(32L << 20);
  }
}
