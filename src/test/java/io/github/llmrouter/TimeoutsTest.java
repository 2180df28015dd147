package io.github.llmrouter;

import static io.github.llmrouter.Fixtures.CHAT_JSON;
import static io.github.llmrouter.Fixtures.chat;
import static io.github.llmrouter.Fixtures.ok;
import static io.github.llmrouter.Fixtures.status;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.github.llmrouter.api.LlmTimeoutException;
import io.github.llmrouter.api.ReplicaHttpException;
import io.github.llmrouter.dispatch.RetryPolicy;
import io.github.llmrouter.load.LoadMonitoring;
import io.github.llmrouter.observe.HealthChangedEvent;
import io.github.llmrouter.replica.HealthCheck;
import io.github.llmrouter.testing.EventRecorder;
import java.io.IOException;
import java.net.InetAddress;
import java.net.Socket;
import java.net.SocketAddress;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import javax.net.SocketFactory;
import mockwebserver3.Dispatcher;
import mockwebserver3.MockResponse;
import mockwebserver3.MockWebServer;
import mockwebserver3.RecordedRequest;
import okhttp3.OkHttpClient;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Every timeout knob reaches the exchange it bounds: the connect timeout reaches the socket, the
 * call's deadline cuts a hanging attempt short (whatever the first-byte timeout), and a health
 * check that hangs fails after its own timeout. Hanging replicas hang on a latch that the test
 * releases, never on a sleep.
 */
class TimeoutsTest {
  private static final RetryPolicy NO_BACKOFF = RetryPolicy.builder()
      .initialBackoff(Duration.ZERO).maxBackoff(Duration.ZERO).build();

  private final MockWebServer server = new MockWebServer();
  /** Released when the test ends: a hanging answer then completes, bounded by 10 s anyway. */
  private final CountDownLatch release = new CountDownLatch(1);
  private final EventRecorder events = new EventRecorder();

  @BeforeEach
  void start() throws Exception {
    server.start(InetAddress.getLoopbackAddress(), 0);
  }

  @AfterEach
  void stop() {
    release.countDown();
    server.close();
  }

  /** Answers 503 to the first {@code failFirst} chat requests, then hangs; /health hangs too. */
  private void hangAfter(int failFirst) {
    AtomicInteger chats = new AtomicInteger();
    server.setDispatcher(new Dispatcher() {
      @Override
      public MockResponse dispatch(RecordedRequest request) throws InterruptedException {
        if (request.getUrl().encodedPath().endsWith("/completions")
            && chats.incrementAndGet() <= failFirst) {
          return status(503);
        }
        release.await(10, TimeUnit.SECONDS);
        return request.getUrl().encodedPath().endsWith("/health")
            ? new MockResponse.Builder().code(200).build() : ok(CHAT_JSON);
      }
    });
  }

  private LlmClientBuilder client() {
    return LlmClient.builder().replicas(server.url("/").toString()).retryPolicy(NO_BACKOFF)
        .loadMonitoring(LoadMonitoring.disabled())
        .modelDiscoveryInterval(Duration.ZERO).listener(events);
  }

  @Test
  void theConnectTimeoutReachesTheSocket() {
    server.enqueue(ok(CHAT_JSON));
    List<Integer> connectTimeouts = new CopyOnWriteArrayList<>();
    SocketFactory recording = new SocketFactory() {
      @Override
      public Socket createSocket() {
        return new Socket() {
          @Override
          public void connect(SocketAddress endpoint, int timeout) throws IOException {
            connectTimeouts.add(timeout);
            super.connect(endpoint, timeout);
          }
        };
      }

      @Override
      public Socket createSocket(String host, int port) {
        throw new UnsupportedOperationException("OkHttp creates unconnected sockets");
      }

      @Override
      public Socket createSocket(String host, int port, InetAddress local, int localPort) {
        throw new UnsupportedOperationException();
      }

      @Override
      public Socket createSocket(InetAddress host, int port) {
        throw new UnsupportedOperationException();
      }

      @Override
      public Socket createSocket(InetAddress address, int port, InetAddress local, int localPort) {
        throw new UnsupportedOperationException();
      }
    };
    OkHttpClient shared = new OkHttpClient.Builder().socketFactory(recording).build();
    try (LlmClient client = client().okHttpClient(shared).connectTimeout(Duration.ofMillis(1234))
        .build()) {
      assertThat(client.chat(chat("hi")).text()).isEqualTo("hello");
    } finally {
      shared.dispatcher().executorService().shutdown(); // its threads are not daemons
      shared.connectionPool().evictAll();
    }
    assertThat(connectTimeouts).containsExactly(1234);
  }

  @Test
  void theCallDeadlineCutsAHangingAttemptShortWhateverTheFirstByteTimeout() {
    hangAfter(0);
    try (LlmClient client = client().firstByteTimeout(Duration.ofHours(1))
        .callTimeout(Duration.ofMillis(300)).build()) {
      assertThatThrownBy(() -> client.chat(chat("hang")))
          .isInstanceOfSatisfying(LlmTimeoutException.class, e -> {
            assertThat(e.isRetryable()).as("the call's own deadline is final").isFalse();
            assertThat(e.getMessage()).isEqualTo("call deadline of PT0.3S expired after 1 attempt");
          });
      assertThatThrownBy(() -> client.chatAsync(chat("hang async")).get(10, TimeUnit.SECONDS))
          .isInstanceOf(ExecutionException.class)
          .cause().isInstanceOf(LlmTimeoutException.class)
          .hasMessage("call deadline of PT0.3S expired after 1 attempt");
      assertThatThrownBy(() -> client.chatStream(chat("hang stream")))
          .isInstanceOf(LlmTimeoutException.class)
          .hasMessage("call deadline of PT0.3S expired after 1 attempt");
    }
    assertThat(events.failedCalls).hasSize(3);
  }

  @Test
  void aRetryGetsWhatIsLeftOfTheDeadlineNotAFreshOne() {
    hangAfter(1);
    try (LlmClient client = client().firstByteTimeout(Duration.ofHours(1))
        .callTimeout(Duration.ofMillis(400)).build()) {
      assertThatThrownBy(() -> client.chat(chat("hang")))
          .isInstanceOfSatisfying(LlmTimeoutException.class, e -> {
            assertThat(e.isRetryable()).isFalse();
            assertThat(e.getMessage()).isEqualTo("call deadline of PT0.4S expired after 2 attempts");
            assertThat(e.getSuppressed()).singleElement().satisfies(s ->
                assertThat(((ReplicaHttpException) s).status()).isEqualTo(503));
          });
    }
    assertThat(events.failedAttempts).extracting(a -> a.attempt() + " " + a.whyNot())
        .containsExactly("1 ", "2 deadline");
  }

  @Test
  void aHealthCheckThatHangsFailsAfterItsOwnTimeout() {
    hangAfter(0);
    try (LlmClient client = client().firstByteTimeout(Duration.ofMinutes(5))
        .healthCheck(HealthCheck.builder().interval(Duration.ofMillis(10))
            .timeout(Duration.ofMillis(100)).build())
        .build()) {
      // Three timed-out checks take about 0.3 s; without its own timeout a check would wait for
      // the first-byte timeout of 5 min.
      EventRecorder.await("the replica marked down", Duration.ofSeconds(20),
          () -> !events.health.isEmpty());
      assertThat(events.health.get(0)).isEqualTo(new HealthChangedEvent(
          client.replicas().get(0).id(), false, "3 failed checks, last: InterruptedIOException (timeout)"));
    }
  }
}
