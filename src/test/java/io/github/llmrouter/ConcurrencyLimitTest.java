package io.github.llmrouter;

import static io.github.llmrouter.Fixtures.CHAT_JSON;
import static io.github.llmrouter.Fixtures.chat;
import static io.github.llmrouter.Fixtures.ok;
import static org.assertj.core.api.Assertions.assertThat;

import io.github.llmrouter.api.ChatResponse;
import io.github.llmrouter.load.LoadMonitoring;
import java.time.Duration;
import java.net.InetAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import mockwebserver3.Dispatcher;
import mockwebserver3.MockResponse;
import mockwebserver3.MockWebServer;
import mockwebserver3.RecordedRequest;
import org.junit.jupiter.api.Test;

/**
 * {@code maxConcurrentRequests} bounds the asynchronous requests in flight: the calls beyond it
 * queue inside the client and start as others finish, none is lost.
 */
class ConcurrencyLimitTest {
  @Test
  void noMoreThanMaxConcurrentRequestsAsynchronousCallsReachTheFleetAtOnce() throws Exception {
    int limit = 2;
    int calls = 6;
    AtomicInteger inFlight = new AtomicInteger();
    AtomicInteger mostInFlight = new AtomicInteger();
    CountDownLatch allArrived = new CountDownLatch(calls);
    try (MockWebServer server = new MockWebServer()) {
      server.setDispatcher(new Dispatcher() {
        @Override
        public MockResponse dispatch(RecordedRequest request) throws InterruptedException {
          mostInFlight.accumulateAndGet(inFlight.incrementAndGet(), Math::max);
          allArrived.countDown();
          // Hold each request until every call has arrived (which a missing limit allows at
          // once) or a while has passed: long enough for calls beyond the limit to show up.
          allArrived.await(300, TimeUnit.MILLISECONDS);
          inFlight.decrementAndGet();
          return ok(CHAT_JSON);
        }
      });
      server.start(InetAddress.getLoopbackAddress(), 0);
      try (LlmClient client = LlmClient.builder().replicas(server.url("/").toString())
          .maxConcurrentRequests(limit).loadMonitoring(LoadMonitoring.disabled())
          .modelDiscoveryInterval(Duration.ZERO).build()) {
        List<CompletableFuture<ChatResponse>> futures = new ArrayList<>();
        for (int i = 0; i < calls; i++) futures.add(client.chatAsync(chat("call " + i)));
        for (CompletableFuture<ChatResponse> f : futures) {
          assertThat(f.get(30, TimeUnit.SECONDS).text()).isEqualTo("hello");
        }
      }
      assertThat(server.getRequestCount()).isEqualTo(calls);
    }
    assertThat(mostInFlight.get()).as("requests in flight at once").isEqualTo(limit);
  }
}
