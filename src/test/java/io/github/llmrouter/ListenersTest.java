package io.github.llmrouter;

import static io.github.llmrouter.Fixtures.CHAT_JSON;
import static io.github.llmrouter.Fixtures.chat;
import static io.github.llmrouter.Fixtures.chunk;
import static io.github.llmrouter.Fixtures.ok;
import static io.github.llmrouter.Fixtures.sse;
import static io.github.llmrouter.Fixtures.status;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.github.llmrouter.api.ChatChunk;
import io.github.llmrouter.api.ChatResponse;
import io.github.llmrouter.api.ResponseStream;
import io.github.llmrouter.observe.AttemptEndedEvent;
import io.github.llmrouter.observe.AttemptEndedEvent.Outcome;
import io.github.llmrouter.observe.AttemptFailedEvent;
import io.github.llmrouter.observe.CallFinishedEvent;
import io.github.llmrouter.observe.CallStartedEvent;
import io.github.llmrouter.observe.FleetView;
import io.github.llmrouter.observe.RequestHeaders;
import io.github.llmrouter.observe.RoutedEvent;
import io.github.llmrouter.observe.RoutingListener;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import mockwebserver3.MockResponse;
import mockwebserver3.MockWebServer;
import mockwebserver3.RecordedRequest;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Several listeners hear every event in order, a throwing one breaks neither a call nor another
 * listener, and a call's events come in their documented order with one call id.
 */
class ListenersTest {
  private final MockWebServer first = new MockWebServer();
  private final MockWebServer second = new MockWebServer();

  @AfterEach
  void stop() {
    first.close();
    second.close();
  }

  /** Writes each event as one line, and keeps the events. */
  static final class Journal implements RoutingListener {
    final List<String> lines = new CopyOnWriteArrayList<>();
    final List<Object> events = new CopyOnWriteArrayList<>();
    /** Call ids are unique in the JVM: lines number them from 1, in the order first heard. */
    private final java.util.Map<Long, Integer> calls = new java.util.concurrent.ConcurrentHashMap<>();

    private int n(long callId) {
      return calls.computeIfAbsent(callId, id -> calls.size() + 1);
    }

    private void add(String line, Object event) {
      lines.add(line);
      events.add(event);
    }

    @Override
    public void onClientStarted(FleetView client) {
      add("started", client);
    }

    @Override
    public void onClientClosed(FleetView client) {
      add("closed", client);
    }

    @Override
    public void onCallStarted(CallStartedEvent e) {
      add("call " + n(e.callId()) + " " + e.operation(), e);
    }

    @Override
    public void onRouted(RoutedEvent e) {
      add("routed " + n(e.callId()) + "/" + e.attempt() + (e.failover() ? " failover" : ""), e);
    }

    @Override
    public void onAttemptEnded(AttemptEndedEvent e) {
      add("ended " + n(e.callId()) + "/" + e.attempt() + " " + e.outcome(), e);
    }

    @Override
    public void onAttemptFailed(AttemptFailedEvent e) {
      add("failed " + n(e.callId()) + "/" + e.attempt() + (e.willRetry() ? " retry" : ""), e);
    }

    @Override
    public void onCallFinished(CallFinishedEvent e) {
      add("finished " + n(e.callId()) + (e.succeeded() ? " ok" : " failed"), e);
    }

    <E> List<E> of(Class<E> type) {
      List<E> found = new ArrayList<>();
      for (Object e : events) if (type.isInstance(e)) found.add(type.cast(e));
      return found;
    }
  }

  /** Throws on every event it hears. */
  static final class Throwing implements RoutingListener {
    int heard;

    @Override
    public void onCallStarted(CallStartedEvent e) {
      heard++;
      throw new IllegalStateException("listener bug");
    }

    @Override
    public void onRouted(RoutedEvent e, RequestHeaders headers) {
      heard++;
      throw new IllegalStateException("listener bug");
    }

    @Override
    public void onAttemptEnded(AttemptEndedEvent e) {
      heard++;
      throw new NoClassDefFoundError("io/micrometer/core/instrument/MeterRegistry");
    }

    @Override
    public void onCallFinished(CallFinishedEvent e) {
      heard++;
      throw new IllegalStateException("listener bug");
    }
  }

  @Test
  void aCallsEventsComeInOrderWithOneCallIdAndTheAnsweringAttemptCarriesItsUsage()
      throws Exception {
    first.enqueue(status(503));
    second.enqueue(ok(CHAT_JSON));
    Journal journal = new Journal();
    try (LlmClient client = Fixtures.scripted(first, second).listener(journal).build()) {
      client.chat(chat("hi"));
      assertThat(journal.lines).containsExactly("started", "call 1 chat", "routed 1/1",
          "ended 1/1 FAILED", "failed 1/1 retry", "routed 1/2 failover", "ended 1/2 ANSWERED",
          "finished 1 ok");
    }
    assertThat(journal.lines).endsWith("closed");

    RoutedEvent retry = journal.of(RoutedEvent.class).get(1);
    assertThat(retry.serverAddress()).isEqualTo(second.getHostName());
    assertThat(retry.serverPort()).isEqualTo(second.getPort());
    AttemptEndedEvent failed = journal.of(AttemptEndedEvent.class).get(0);
    assertThat(failed.failure()).isNotNull();
    assertThat(failed.usage()).isNull();
    AttemptEndedEvent answered = journal.of(AttemptEndedEvent.class).get(1);
    assertThat(answered.answered()).isTrue();
    assertThat(answered.failure()).isNull();
    assertThat(answered.usage().promptTokens()).isEqualTo(12);
    assertThat(answered.usage().cachedTokens()).isEqualTo(8);
    assertThat(answered.responseModel()).isEqualTo("m");
    assertThat(answered.firstChunkNanos()).as("not a stream").isEqualTo(-1);
    assertThat(answered.callElapsedNanos()).isGreaterThanOrEqualTo(answered.durationNanos())
        .isEqualTo(journal.of(CallFinishedEvent.class).get(0).durationNanos());
  }

  @Test
  void aStreamsAnsweringAttemptEndsWithTheStreamAfterItsCallFinishedAtTheFirstChunk()
      throws Exception {
    first.enqueue(sse(chunk("a") + chunk("b") + "data: {\"id\":\"c\",\"model\":\"m2\","
        + "\"choices\":[],\"usage\":{\"prompt_tokens\":5,\"completion_tokens\":2,"
        + "\"total_tokens\":7}}\n\ndata: [DONE]\n\n"));
    Journal journal = new Journal();
    try (LlmClient client = Fixtures.scripted(first).listener(journal).build()) {
      try (ResponseStream<ChatChunk> stream = client.chatStream(chat("hi"))) {
        assertThat(journal.lines).endsWith("finished 1 ok");
        stream.forEach(c -> { });
      }
      assertThat(journal.lines).containsExactly("started", "call 1 chat.stream", "routed 1/1",
          "finished 1 ok", "ended 1/1 ANSWERED");
      AttemptEndedEvent ended = journal.of(AttemptEndedEvent.class).get(0);
      assertThat(ended.usage().completionTokens()).isEqualTo(2);
      assertThat(ended.responseModel()).isEqualTo("m2");
      assertThat(ended.firstChunkNanos())
          .isEqualTo(journal.of(CallFinishedEvent.class).get(0).durationNanos())
          .isLessThanOrEqualTo(ended.callElapsedNanos());
    }
  }

  @Test
  void aStreamClosedEarlyEndsItsAttemptAsAbandoned() throws Exception {
    first.enqueue(sse(chunk("a") + chunk("b") + "data: [DONE]\n\n"));
    Journal journal = new Journal();
    try (LlmClient client = Fixtures.scripted(first).listener(journal).build()) {
      ResponseStream<ChatChunk> stream = client.chatStream(chat("hi"));
      stream.close();
      assertThat(journal.lines).endsWith("finished 1 ok", "ended 1/1 ABANDONED");
    }
  }

  @Test
  void aCancelledCallFinishesOnceAndItsAttemptIsAbandoned() throws Exception {
    first.enqueue(new MockResponse.Builder().headersDelay(10, TimeUnit.SECONDS).body(CHAT_JSON)
        .build());
    Journal journal = new Journal();
    try (LlmClient client = Fixtures.scripted(first).listener(journal).build()) {
      CompletableFuture<ChatResponse> call = client.chatAsync(chat("hi"));
      first.takeRequest(5, TimeUnit.SECONDS);
      call.cancel(true);
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
      while (!journal.lines.contains("ended 1/1 ABANDONED") && System.nanoTime() < deadline) {
        Thread.onSpinWait();
      }
      // The call finishes on the cancelling thread, the attempt ends on OkHttp's: in either order.
      assertThat(journal.lines).hasSize(5).startsWith("started", "call 1 chat", "routed 1/1");
      assertThat(journal.lines.subList(3, 5))
          .containsExactlyInAnyOrder("finished 1 failed", "ended 1/1 ABANDONED");
    }
  }

  @Test
  void everyListenerHearsEveryEventInTheOrderAddedAndOneThatThrowsBreaksNothing()
      throws Exception {
    for (int i = 0; i < 3; i++) first.enqueue(ok(CHAT_JSON));
    Throwing throwing = new Throwing();
    List<String> order = new CopyOnWriteArrayList<>();
    Journal journal = new Journal();
    RoutingListener before = new RoutingListener() {
      @Override
      public void onCallStarted(CallStartedEvent e) {
        order.add("before");
      }
    };
    RoutingListener after = new RoutingListener() {
      @Override
      public void onCallStarted(CallStartedEvent e) {
        order.add("after");
      }
    };
    try (LlmClient client = Fixtures.scripted(first).listener(before).listener(throwing)
        .listener(journal).listener(after).build()) {
      for (int i = 0; i < 3; i++) {
        assertThat(client.chat(chat("hi")).text()).isEqualTo("hello");
      }
    }
    assertThat(throwing.heard).as("4 events a call, each thrown on").isEqualTo(12);
    assertThat(order).containsExactly("before", "after", "before", "after", "before", "after");
    assertThat(journal.of(CallFinishedEvent.class)).hasSize(3)
        .allMatch(CallFinishedEvent::succeeded);
    assertThat(journal.of(AttemptEndedEvent.class)).extracting(AttemptEndedEvent::outcome)
        .containsExactly(Outcome.ANSWERED, Outcome.ANSWERED, Outcome.ANSWERED);
  }

  @Test
  void headersAListenerSetsReachTheReplicaAndABadOneFailsOnlyTheListener() throws Exception {
    first.enqueue(ok(CHAT_JSON));
    List<String> refused = new CopyOnWriteArrayList<>();
    RoutingListener propagating = new RoutingListener() {
      @Override
      public void onRouted(RoutedEvent e, RequestHeaders headers) {
        headers.set("traceparent", "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01");
        try {
          headers.set("X-Bad", "line\r\nInjected: sk-secret-value");
        } catch (IllegalArgumentException expected) {
          refused.add(expected.getMessage());
        }
        headers.set("bad name", "v"); // thrown to the client, which logs it
      }
    };
    try (LlmClient client = Fixtures.scripted(first).listener(propagating).build()) {
      client.chat(chat("hi"));
    }
    RecordedRequest sent = first.takeRequest(5, TimeUnit.SECONDS);
    assertThat(sent.getHeaders().get("traceparent"))
        .isEqualTo("00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01");
    assertThat(sent.getHeaders().names()).doesNotContain("Injected", "X-Bad", "bad name");
    assertThat(refused).singleElement().asString().contains("X-Bad")
        .doesNotContain("sk-secret-value");
  }

  @Test
  void noListenerCanBeNull() {
    assertThatThrownBy(() -> LlmClient.builder().listener(null))
        .isInstanceOf(NullPointerException.class).hasMessageContaining("listener");
  }
}
