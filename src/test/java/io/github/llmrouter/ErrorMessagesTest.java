package io.github.llmrouter;

import static io.github.llmrouter.Fixtures.chat;
import static io.github.llmrouter.Fixtures.chunk;
import static io.github.llmrouter.Fixtures.finalChunk;
import static io.github.llmrouter.Fixtures.sse;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.github.llmrouter.api.ChatChunk;
import io.github.llmrouter.api.ReplicaHttpException;
import io.github.llmrouter.api.ResponseStream;
import io.github.llmrouter.api.RetriesExhaustedException;
import io.github.llmrouter.api.StreamInterruptedException;
import mockwebserver3.MockResponse;
import mockwebserver3.MockWebServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Error messages carry the server's own words and a hint; an SSE error event is typed. */
class ErrorMessagesTest {
  private final MockWebServer first = new MockWebServer();
  private final MockWebServer second = new MockWebServer();
  private LlmClient client;

  @BeforeEach
  void start() throws Exception {
    client = Fixtures.scripted(first, second).build();
  }

  @AfterEach
  void stop() {
    client.close();
    first.close();
    second.close();
  }

  private static MockResponse answer(int status, String body) {
    return new MockResponse.Builder().code(status).setHeader("X-Secret-Header", "hdr-value-1")
        .body(body).build();
  }

  @Test
  void aNotFoundModelReadsTheServersMessageAndAHint() {
    first.enqueue(answer(404, "{\"object\":\"error\",\"message\":\"The model `llama-9` does not "
        + "exist.\",\"type\":\"NotFoundError\",\"param\":null,\"code\":404}"));

    assertThatThrownBy(() -> client.chat(chat("hi")))
        .isInstanceOfSatisfying(ReplicaHttpException.class, e -> {
          assertThat(e.getMessage()).isEqualTo("replica " + e.replicaId() + " answered HTTP 404: "
              + "The model `llama-9` does not exist. (check the model name and the replica's "
              + "base URL path)");
          assertThat(e.serverMessage()).isEqualTo("The model `llama-9` does not exist.");
        });
  }

  @Test
  void aWrongKeyPointsAtTheApiKey() {
    first.enqueue(answer(401, "{\"error\":{\"message\":\"Unauthorized\",\"type\":\"auth\"}}"));
    assertThatThrownBy(() -> client.chat(chat("hi")))
        .hasMessageEndingWith("answered HTTP 401: Unauthorized (check LlmClientBuilder.apiKey, "
            + "or the replica's Authorization header)");
  }

  @Test
  void aTextBodyGivesItsFirstLineCutAt200CharactersAndNeverAHeader() {
    first.enqueue(answer(403, "forbidden here\nsecond line"));
    second.enqueue(answer(422, "x".repeat(500)));
    assertThatThrownBy(() -> client.chat(chat("a")))
        .hasMessageContaining(": forbidden here (check LlmClientBuilder.apiKey")
        .message().doesNotContain("second line").doesNotContain("hdr-value-1");
    assertThatThrownBy(() -> client.chat(chat("b")))
        .isInstanceOfSatisfying(ReplicaHttpException.class, e -> {
          assertThat(e.serverMessage()).hasSize(203).endsWith("...");
          assertThat(e.bodyExcerpt()).hasSize(500);
        });
  }

  @Test
  void aFastApiDetailAndControlCharactersAreHandled() {
    first.enqueue(answer(404, "{\"detail\":\"Not\\r\\nFound\"}"));
    assertThatThrownBy(() -> client.chat(chat("a")))
        .hasMessageContaining("answered HTTP 404: Not  Found (check the model name");
  }

  @Test
  void anErrorEventAsTheFirstEventIsTheSameTypedExceptionAndNotRetriedForA400() {
    first.enqueue(sse("data: {\"error\":{\"object\":\"error\",\"message\":\"prompt too long\","
        + "\"type\":\"BadRequestError\",\"param\":null,\"code\":400}}\n\n"));
    second.enqueue(sse(chunk("never") + "data: [DONE]\n\n"));

    assertThatThrownBy(() -> client.chatStream(chat("hi")))
        .isInstanceOfSatisfying(ReplicaHttpException.class, e -> {
          assertThat(e.status()).isEqualTo(400);
          assertThat(e.isRetryable()).isFalse();
          assertThat(e.getMessage()).contains("HTTP 400: prompt too long");
        });
    assertThat(second.getRequestCount()).isZero();
  }

  @Test
  void aRetryableErrorEventFailsOverAndAnUnknownOneCountsAs500() {
    first.enqueue(sse("event: error\ndata: engine overloaded\n\n"));
    second.enqueue(sse(chunk("fine") + finalChunk() + "data: [DONE]\n\n"));
    try (ResponseStream<ChatChunk> stream = client.chatStream(chat("hi"))) {
      assertThat(stream.replicaId()).isEqualTo(client.replicas().get(1).id());
    }

    first.enqueue(sse("data: {\"object\":\"error\",\"message\":\"busy\",\"code\":503}\n\n"));
    second.enqueue(sse("data: {\"object\":\"error\",\"message\":\"busy too\",\"code\":503}\n\n"));
    first.enqueue(sse("data: {\"object\":\"error\",\"message\":\"still busy\",\"code\":503}\n\n"));
    assertThatThrownBy(() -> client.chatStream(chat("again")))
        .isInstanceOfSatisfying(RetriesExhaustedException.class, e -> assertThat(e.attempts())
            .allSatisfy(a -> assertThat(a.status()).hasValue(503)));
  }

  @Test
  void anErrorEventMidStreamInterruptsItWithTheTypedCause() {
    first.enqueue(sse(chunk("Hel") + "data: {\"error\":{\"message\":\"boom\",\"code\":500}}\n\n"));
    assertThatThrownBy(() -> {
      try (ResponseStream<ChatChunk> stream = client.chatStream(
          chat("hi").toBuilder().resumable(false).build())) {
        for (ChatChunk ignored : stream) {
          // until the error
        }
      }
    }).isInstanceOfSatisfying(StreamInterruptedException.class, e -> {
      assertThat(e.receivedText()).isEqualTo("Hel");
      assertThat(e.getCause()).isInstanceOf(ReplicaHttpException.class)
          .hasMessageContaining("HTTP 500: boom");
    });
  }
}
