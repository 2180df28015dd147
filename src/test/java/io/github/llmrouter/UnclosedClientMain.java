package io.github.llmrouter;

import io.github.llmrouter.emulator.EmulatedReplica;
import io.github.llmrouter.load.LoadMonitoring;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

/**
 * Uses a client (blocking, async and a scrape) and returns from {@code main} without closing it:
 * the JVM must exit by itself. Run in a child JVM by {@link DaemonThreadsTest}.
 */
final class UnclosedClientMain {
  private UnclosedClientMain() {}

  public static void main(String[] args) throws Exception {
    EmulatedReplica replica = EmulatedReplica.builder().instant().build().start();
    LlmClient client = LlmClient.builder().replicas(replica.baseUrl())
        .loadMonitoring(LoadMonitoring.builder().scrapeInterval(Duration.ofMillis(100))
            .scrapeTimeout(Duration.ofMillis(100)).build())
        .build();
    client.chat(Fixtures.chat("hi"));
    client.chatAsync(Fixtures.chat("async")).get(10, TimeUnit.SECONDS);
    client.scrapeLoadNow().get(10, TimeUnit.SECONDS);
    // The JDK's HTTP server behind the emulated replica keeps a non-daemon thread: stop it. The
    // client stays open, and its scraper keeps trying.
    replica.close();
    System.out.println("used the client; returning without close()");
  }
}
