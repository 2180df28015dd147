package io.github.llmrouter;

import static io.github.llmrouter.Fixtures.CHAT_JSON;
import static io.github.llmrouter.Fixtures.chat;
import static io.github.llmrouter.Fixtures.chunk;
import static io.github.llmrouter.Fixtures.finalChunk;
import static io.github.llmrouter.Fixtures.ok;
import static io.github.llmrouter.Fixtures.sse;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.github.llmrouter.api.ChatChunk;
import io.github.llmrouter.api.ReplicaUnreachableException;
import io.github.llmrouter.api.ResponseStream;
import io.github.llmrouter.api.RetriesExhaustedException;
import io.github.llmrouter.dispatch.RetryPolicy;
import io.github.llmrouter.load.LoadMonitoring;
import io.github.llmrouter.replica.HealthCheck;
import io.github.llmrouter.testing.EventRecorder;
import java.net.InetAddress;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLHandshakeException;
import mockwebserver3.Dispatcher;
import mockwebserver3.MockResponse;
import mockwebserver3.MockWebServer;
import mockwebserver3.RecordedRequest;
import okhttp3.OkHttpClient;
import okhttp3.tls.HandshakeCertificates;
import okhttp3.tls.HeldCertificate;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Replicas behind TLS, with a certificate from a private CA (as in a cluster with its own PKI):
 * requests, streams, scrapes and health checks all go over HTTPS with the trust the application
 * configured on its OkHttp client, and a replica whose certificate is not trusted is never called
 * in the clear.
 */
class HttpsTest {
  private static final HeldCertificate CA = new HeldCertificate.Builder()
      .certificateAuthority(0).commonName("test CA").build();
  private static final HeldCertificate SERVER = new HeldCertificate.Builder()
      .commonName("replica").addSubjectAlternativeName("localhost")
      .addSubjectAlternativeName("127.0.0.1").signedBy(CA).build();

  private final MockWebServer server = new MockWebServer();
  private final List<RecordedRequest> recorded = new CopyOnWriteArrayList<>();

  @BeforeEach
  void start() throws Exception {
    HandshakeCertificates serverCertificates = new HandshakeCertificates.Builder()
        .heldCertificate(SERVER, CA.certificate()).build();
    server.useHttps(serverCertificates.sslSocketFactory());
    server.setDispatcher(new Dispatcher() {
      @Override
      public MockResponse dispatch(RecordedRequest request) {
        recorded.add(request);
        String path = request.getUrl().encodedPath();
        if (path.equals("/metrics")) {
          return new MockResponse.Builder().code(200)
              .body("vllm:num_requests_waiting{model_name=\"m\"} 1\n").build();
        }
        if (path.equals("/health")) return new MockResponse.Builder().code(200).build();
        return "text/event-stream".equals(request.getHeaders().get("Accept"))
            ? sse(chunk("tls") + finalChunk() + "data: [DONE]\n\n") : ok(CHAT_JSON);
      }
    });
    server.start(InetAddress.getLoopbackAddress(), 0);
  }

  @AfterEach
  void stop() {
    server.close();
  }

  @Test
  void callsStreamsScrapesAndHealthChecksGoOverTlsWithTheApplicationsTrust() throws Exception {
    HandshakeCertificates trustTheCa = new HandshakeCertificates.Builder()
        .addTrustedCertificate(CA.certificate()).build();
    OkHttpClient tls = new OkHttpClient.Builder()
        .sslSocketFactory(trustTheCa.sslSocketFactory(), trustTheCa.trustManager()).build();
    String url = server.url("/v1").toString();
    assertThat(url).startsWith("https://");
    EventRecorder events = new EventRecorder();
    try (LlmClient client = LlmClient.builder().replicas(url).okHttpClient(tls).listener(events)
        .healthCheck(HealthCheck.builder().interval(Duration.ofMillis(10)).build())
        .loadMonitoring(LoadMonitoring.builder().scrapeInterval(Duration.ofMinutes(5)).build())
        .build()) {
      assertThat(client.chat(chat("secure")).text()).isEqualTo("hello");
      assertThat(client.chatAsync(chat("secure async")).get(10, TimeUnit.SECONDS).text())
          .isEqualTo("hello");
      try (ResponseStream<ChatChunk> stream = client.chatStream(chat("secure stream"))) {
        assertThat(stream.iterator().next().text()).isEqualTo("tls");
      }
      client.scrapeLoadNow().get(10, TimeUnit.SECONDS);
      assertThat(client.fleet().replicas().get(0).reportedWaiting()).isEqualTo(1);
      EventRecorder.await("a health check over TLS", Duration.ofSeconds(10),
          () -> recorded.stream().anyMatch(r -> r.getUrl().encodedPath().equals("/health")));
    } finally {
      tls.dispatcher().executorService().shutdown(); // its threads are not daemons
      tls.connectionPool().evictAll();
    }
    assertThat(events.health).as("health checks passed").isEmpty();
    assertThat(recorded).extracting(r -> r.getUrl().encodedPath())
        .contains("/v1/chat/completions", "/metrics", "/health");
    assertThat(recorded).allSatisfy(r -> {
      assertThat(r.getUrl().scheme()).isEqualTo("https");
      assertThat(r.getHandshake()).as("a TLS handshake on %s", r.getUrl()).isNotNull();
      assertThat(r.getHandshake().peerPrincipal()).isNull(); // no client certificate asked for
    });
  }

  @Test
  void anUntrustedCertificateFailsEveryAttemptAndNothingIsSent() {
    try (LlmClient client = LlmClient.builder().replicas(server.url("/").toString())
        .retryPolicy(RetryPolicy.builder().initialBackoff(Duration.ZERO).maxBackoff(Duration.ZERO)
            .build())
        .loadMonitoring(LoadMonitoring.disabled()).modelDiscoveryInterval(Duration.ZERO).build()) {
      assertThatThrownBy(() -> client.chat(chat("to whom?")))
          .isInstanceOfSatisfying(RetriesExhaustedException.class, e ->
              assertThat(e.attempts()).hasSize(3).allSatisfy(a -> {
                assertThat(a.failure()).isInstanceOf(ReplicaUnreachableException.class)
                    .hasCauseInstanceOf(SSLHandshakeException.class);
                assertThat(a.status()).isEmpty();
              }));
    }
    assertThat(recorded).as("no request reached the replica").isEmpty();
  }
}
