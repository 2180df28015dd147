package io.github.llmrouter;

import static io.github.llmrouter.Fixtures.CHAT_JSON;
import static io.github.llmrouter.Fixtures.chat;
import static io.github.llmrouter.Fixtures.ok;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.github.llmrouter.load.LoadMonitoring;
import io.github.llmrouter.replica.HealthCheck;
import io.github.llmrouter.replica.Replica;
import java.net.InetAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import mockwebserver3.Dispatcher;
import mockwebserver3.MockResponse;
import mockwebserver3.MockWebServer;
import mockwebserver3.RecordedRequest;
import org.junit.jupiter.api.Test;

/** A base URL's path prefix is kept in every request, scrape and health check, and in the id. */
class BaseUrlPathTest {
  @Test
  void aPathResolvedAgainIsTheRememberedUrlAndAnotherPathIsResolvedAnew() {
    Replica r = Replica.of("http://gw:8080/team-a/vllm/v1");
    assertThat(r.url("/v1/chat/completions")).hasToString(
        "http://gw:8080/team-a/vllm/v1/chat/completions");
    assertThat(r.url("/v1/chat/completions")).as("remembered")
        .isSameAs(r.url("/v1/chat/completions"));
    assertThat(r.url("/metrics")).hasToString("http://gw:8080/team-a/vllm/metrics");
    assertThat(r.url("/v1/chat/completions")).hasToString(
        "http://gw:8080/team-a/vllm/v1/chat/completions");
    assertThat(r).as("the remembered path is not part of the value")
        .isEqualTo(Replica.of("http://gw:8080/team-a/vllm/v1"));
    assertThatThrownBy(() -> r.url("metrics"))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void aGatewayPathPrefixIsKeptInRequestsScrapesAndHealthChecks() throws Exception {
    List<String> paths = java.util.Collections.synchronizedList(new ArrayList<>());
    try (MockWebServer server = new MockWebServer()) {
      server.setDispatcher(new Dispatcher() {
        @Override
        public MockResponse dispatch(RecordedRequest request) {
          String path = request.getUrl().encodedPath();
          paths.add(path);
          if (path.endsWith("/metrics")) {
            return new MockResponse.Builder().code(200)
                .body("vllm:num_requests_waiting{model_name=\"m\"} 1\n").build();
          }
          return path.endsWith("/health") ? new MockResponse.Builder().code(200).build()
              : ok(CHAT_JSON);
        }
      });
      server.start(InetAddress.getLoopbackAddress(), 0);
      String base = server.url("/team-a/vllm/v1").toString();
      try (LlmClient client = LlmClient.builder().replicas(base)
          .healthCheck(HealthCheck.builder().interval(Duration.ofMillis(10)).build())
          .loadMonitoring(LoadMonitoring.builder().scrapeInterval(Duration.ofMinutes(5)).build())
          .build()) {
        client.chat(chat("hi"));
        client.scrapeLoadNow().get(10, TimeUnit.SECONDS);
        io.github.llmrouter.testing.EventRecorder.await("a health check", Duration.ofSeconds(10),
            () -> paths.contains("/team-a/vllm/health"));
        assertThat(client.replicas().get(0).id())
            .isEqualTo(server.getHostName() + ":" + server.getPort() + "/team-a/vllm");
      }
    }
    assertThat(paths).contains("/team-a/vllm/v1/chat/completions", "/team-a/vllm/metrics",
        "/team-a/vllm/health");
    assertThat(paths).allSatisfy(p -> assertThat(p).startsWith("/team-a/vllm/"));
  }

  @Test
  void twoPrefixesBehindOneGatewayAreTwoReplicas() {
    Replica a = Replica.of("http://gw:8080/team-a/v1");
    Replica b = Replica.of("http://gw:8080/team-b/v1/");
    assertThat(a.id()).isEqualTo("gw:8080/team-a");
    assertThat(b.id()).isEqualTo("gw:8080/team-b");
    assertThat(a.url("/v1/chat/completions").toString())
        .isEqualTo("http://gw:8080/team-a/v1/chat/completions");
    assertThat(Replica.of("http://gw:8080").url("/metrics").toString())
        .isEqualTo("http://gw:8080/metrics");
    assertThat(Replica.of("http://gw:8080/v1").id()).isEqualTo("gw:8080");
    try (LlmClient client = LlmClient.builder().replicas(List.of(a, b))
        .loadMonitoring(LoadMonitoring.disabled()).modelDiscoveryInterval(Duration.ZERO).build()) {
      assertThat(client.replicas()).hasSize(2);
    }
  }
}
