package io.github.llmrouter;

import static io.github.llmrouter.Fixtures.chat;
import static io.github.llmrouter.Fixtures.chunk;
import static io.github.llmrouter.Fixtures.finalChunk;
import static io.github.llmrouter.Fixtures.sse;
import static io.github.llmrouter.Fixtures.status;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.github.llmrouter.api.ChatChunk;
import io.github.llmrouter.api.ChatRequest;
import io.github.llmrouter.api.CompletionRequest;
import io.github.llmrouter.api.CompletionResponse;
import io.github.llmrouter.api.LlmTimeoutException;
import io.github.llmrouter.api.ResponseStream;
import io.github.llmrouter.api.StreamInterruptedException;
import io.github.llmrouter.internal.transport.Json;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import mockwebserver3.MockResponse;
import mockwebserver3.MockWebServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

class StreamingTest {
  private final MockWebServer first = new MockWebServer();
  private final MockWebServer second = new MockWebServer();
  private LlmClient client;

  @BeforeEach
  void start() throws Exception {
    client = Fixtures.scripted(first, second).streamIdleTimeout(Duration.ofMillis(500)).build();
  }

  @AfterEach
  void stop() {
    client.close();
    first.close();
    second.close();
  }

  @Test
  void streamsChunksUntilDoneAndAsksForUsage() throws Exception {
    first.enqueue(sse(": keep-alive\n\n" + chunk("Hel") + chunk("lo") + finalChunk()
        + "data: {\"id\":\"c\",\"choices\":[],\"usage\":{\"prompt_tokens\":5,"
        + "\"completion_tokens\":2,\"total_tokens\":7}}\n\ndata: [DONE]\n\n"));

    List<ChatChunk> chunks = new ArrayList<>();
    try (ResponseStream<ChatChunk> stream = client.chatStream(chat("hi"))) {
      for (ChatChunk c : stream) chunks.add(c);
    }

    assertThat(chunks).extracting(ChatChunk::text).containsExactly("Hel", "lo", "", "");
    assertThat(chunks.get(3).usage().totalTokens()).isEqualTo(7);
    JsonNode body = Json.MAPPER.readTree(first.takeRequest(5, TimeUnit.SECONDS).getBody().utf8());
    assertThat(body.get("stream").asBoolean()).isTrue();
    assertThat(body.get("stream_options").get("include_usage").asBoolean()).isTrue();
    assertThat(body.get("model").asString()).isEqualTo("m");
    assertThat(client.inFlight(client.replicas().get(0).id())).isZero();
  }

  @Test
  void worksAsAJavaStreamAndReleasesOnClose() {
    first.enqueue(sse(chunk("a") + chunk("b") + chunk("c") + finalChunk() + "data: [DONE]\n\n"));

    String text;
    try (Stream<ChatChunk> stream = client.chatStream(chat("hi")).stream()) {
      text = stream.map(ChatChunk::text).collect(Collectors.joining());
    }

    assertThat(text).isEqualTo("abc");
    assertThat(client.inFlight(client.replicas().get(0).id())).isZero();
  }

  @Test
  void closingEarlyReleasesTheReplica() {
    first.enqueue(sse(chunk("a") + chunk("b") + "data: [DONE]\n\n"));
    ResponseStream<ChatChunk> stream = client.chatStream(chat("hi"));
    assertThat(client.inFlight(client.replicas().get(0).id())).isEqualTo(1);
    stream.close();
    stream.close();
    assertThat(client.inFlight(client.replicas().get(0).id())).isZero();
  }

  @Test
  void retriesAStreamThatFailsBeforeTheFirstChunk() {
    first.enqueue(status(503));
    second.enqueue(sse(chunk("ok") + finalChunk() + "data: [DONE]\n\n"));

    try (ResponseStream<ChatChunk> stream = client.chatStream(chat("hi"))) {
      assertThat(stream.replicaId()).isEqualTo(client.replicas().get(1).id());
      assertThat(stream.iterator().next().text()).isEqualTo("ok");
    }
  }

  @Test
  void aStreamThatMayNotBeResumedRaisesWhenItBreaksAfterItsFirstChunk() {
    // The body ends without [DONE] or a finish reason: the connection broke mid-answer.
    first.enqueue(sse(chunk("Hel") + chunk("lo")));
    second.enqueue(sse(chunk("never") + "data: [DONE]\n\n"));

    List<String> seen = new ArrayList<>();
    assertThatThrownBy(() -> {
      try (ResponseStream<ChatChunk> stream = client.chatStream(notResumable("hi"))) {
        for (ChatChunk c : stream) seen.add(c.text());
      }
    }).isInstanceOfSatisfying(StreamInterruptedException.class, e -> {
      assertThat(e.receivedText()).isEqualTo("Hello");
      assertThat(e.receivedChunks()).hasSize(2);
      assertThat(e.replicaId()).isEqualTo(client.replicas().get(0).id());
    });
    assertThat(seen).containsExactly("Hel", "lo");
    assertThat(second.getRequestCount()).isZero();
    assertThat(client.inFlight(client.replicas().get(0).id())).isZero();
  }

  @Test
  void anIdleGapAfterTheFirstChunkOfAStreamThatMayNotBeResumedIsAnLlmTimeoutException() {
    first.enqueue(new MockResponse.Builder().code(200).setHeader("Content-Type", "text/event-stream")
        .body(chunk("a") + chunk("b") + "data: [DONE]\n\n")
        .throttleBody(chunk("a").length(), 3, TimeUnit.SECONDS).build());

    assertThatThrownBy(() -> {
      try (ResponseStream<ChatChunk> stream = client.chatStream(notResumable("hi"))) {
        for (ChatChunk ignored : stream) {
          // read until the stall
        }
      }
    }).isInstanceOfSatisfying(LlmTimeoutException.class, e -> {
      assertThat(e.receivedText()).isEqualTo("a");
      assertThat(e.receivedChunks()).hasSize(1);
      assertThat(e.isRetryable()).isFalse();
      assertThat(e.getMessage()).contains("streamIdleTimeout").contains("after 1 chunks");
    });
    assertThat(client.inFlight(client.replicas().get(0).id())).isZero();
  }

  @Test
  void aStreamEndingWithAFinishReasonButNoDoneCompletes() {
    first.enqueue(sse(chunk("x") + finalChunk()));
    try (ResponseStream<ChatChunk> stream = client.chatStream(chat("hi"))) {
      assertThat(stream.stream().count()).isEqualTo(2);
    }
  }

  @Test
  void anEmptyStreamIsFine() {
    first.enqueue(sse("data: [DONE]\n\n"));
    try (ResponseStream<ChatChunk> stream = client.chatStream(chat("hi"))) {
      assertThat(stream.iterator().hasNext()).isFalse();
    }
    assertThat(client.inFlight(client.replicas().get(0).id())).isZero();
  }

  @Test
  void completionStreams() {
    first.enqueue(sse("data: {\"id\":\"1\",\"choices\":[{\"index\":0,\"text\":\"one\"}]}\n\n"
        + "data: {\"id\":\"1\",\"choices\":[{\"index\":0,\"text\":\" two\",\"finish_reason\":\"stop\"}]}\n\n"
        + "data: [DONE]\n\n"));
    try (ResponseStream<CompletionResponse> stream =
        client.completionStream(CompletionRequest.builder("m", "count").build())) {
      assertThat(stream.stream().map(CompletionResponse::text).collect(Collectors.joining()))
          .isEqualTo("one two");
    }
  }

  @Test
  void aJsonAnswerToAStreamingRequestIsRetriedElsewhere() {
    first.enqueue(Fixtures.ok(Fixtures.CHAT_JSON));
    second.enqueue(sse(chunk("fine") + finalChunk() + "data: [DONE]\n\n"));
    try (ResponseStream<ChatChunk> stream = client.chatStream(chat("hi"))) {
      assertThat(stream.replicaId()).isEqualTo(client.replicas().get(1).id());
    }
  }

  @Test
  void malformedEventBeforeTheFirstChunkIsRetriedElsewhere() {
    first.enqueue(sse("data: {not json\n\n"));
    second.enqueue(sse(chunk("fine") + finalChunk() + "data: [DONE]\n\n"));
    try (ResponseStream<ChatChunk> stream = client.chatStream(chat("hi"))) {
      assertThat(stream.replicaId()).isEqualTo(client.replicas().get(1).id());
    }
  }

  /** A chat the client must not continue elsewhere: its break reaches the caller as it came. */
  private static ChatRequest notResumable(String text) {
    return chat(text).toBuilder().resumable(false).build();
  }
}
