package io.github.llmrouter;

import static io.github.llmrouter.Fixtures.CHAT_JSON;
import static io.github.llmrouter.Fixtures.chunk;
import static io.github.llmrouter.Fixtures.finalChunk;
import static io.github.llmrouter.Fixtures.ok;
import static io.github.llmrouter.Fixtures.sse;
import static io.github.llmrouter.Fixtures.status;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.github.llmrouter.api.ChatMessage;
import io.github.llmrouter.api.ChatRequest;
import io.github.llmrouter.api.LlmTimeoutException;
import io.github.llmrouter.api.RawRequest;
import io.github.llmrouter.api.RawResponse;
import io.github.llmrouter.api.ReplicaHttpException;
import io.github.llmrouter.api.RetriesExhaustedException;
import io.github.llmrouter.emulator.EmulatedReplica;
import io.github.llmrouter.observe.AttemptEndedEvent;
import io.github.llmrouter.testing.EventRecorder;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import mockwebserver3.MockResponse;
import mockwebserver3.MockWebServer;
import mockwebserver3.RecordedRequest;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** {@link LlmClient#send}: any OpenAI-compatible request through the routed path. */
class RawRequestsTest {
  private final MockWebServer first = new MockWebServer();
  private final MockWebServer second = new MockWebServer();
  private final EventRecorder events = new EventRecorder();
  private LlmClient client;

  @AfterEach
  void stop() {
    if (client != null) client.close();
    first.close();
    second.close();
  }

  private LlmClient scripted() throws Exception {
    client = Fixtures.scripted(first, second).streamIdleTimeout(Duration.ofSeconds(5))
        .listener(events).build();
    return client;
  }

  private static byte[] json(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  private static final String CHAT_BODY = "{\"model\":\"m\",\"messages\":[{\"role\":\"user\","
      + "\"content\":\"hi\"}]}";

  @Test
  void aWholeAnswerComesBackAsSentWithItsHeadersAndTheRequestAsGiven() throws Exception {
    scripted();
    first.enqueue(new MockResponse.Builder().code(200).setHeader("Content-Type",
        "application/json").setHeader("x-request-id", "req-1").setHeader("Retry-After", "7")
        .body(CHAT_JSON).build());

    RawResponse response;
    try (RawResponse r = client.send(RawRequest.post("/v1/chat/completions?x=1", json(CHAT_BODY))
        .header("X-Custom", "yes").header("Content-Length", "999").header("Host", "evil")
        .build())) {
      response = r;
      assertThat(r.status()).isEqualTo(200);
      assertThat(r.streaming()).isFalse();
      assertThat(r.header("X-Request-Id")).isEqualTo("req-1");
      assertThat(r.headers()).containsKey("x-request-id").containsEntry("retry-after",
          List.of("7")).allSatisfy(
              (name, values) -> assertThat(name).doesNotContain("llm-router"));
      assertThat(r.header("Retry-After")).isEqualTo("7"); // as the replica sent it
      assertThat(new String(r.bodyBytes(), StandardCharsets.UTF_8)).isEqualTo(CHAT_JSON);
      assertThat(r.body().readAllBytes()).isEqualTo(r.bodyBytes()); // again, from the start
    }
    assertThat(response.replicaId()).isNotBlank();

    RecordedRequest sent = first.takeRequest(5, TimeUnit.SECONDS);
    assertThat(sent.getTarget()).isEqualTo("/v1/chat/completions?x=1");
    assertThat(sent.getMethod()).isEqualTo("POST");
    assertThat(sent.getHeaders().get("X-Custom")).isEqualTo("yes");
    assertThat(sent.getHeaders().get("Host")).isNotEqualTo("evil");
    assertThat(sent.getHeaders().get("Content-Type")).startsWith("application/json");
    assertThat(sent.getBody().utf8()).isEqualTo(CHAT_BODY);
    // The usage and model of the raw answer reach the attempt's end, as a typed answer's do.
    assertThat(events.ended).singleElement().satisfies(e -> {
      assertThat(e.operation()).isEqualTo("chat");
      assertThat(e.outcome()).isEqualTo(AttemptEndedEvent.Outcome.ANSWERED);
      assertThat(e.usage().promptTokens()).isEqualTo(12);
      assertThat(e.usage().cachedTokens()).isEqualTo(8);
      assertThat(e.responseModel()).isEqualTo("m");
    });
  }

  @Test
  void aRetryableStatusFailsOver() throws Exception {
    scripted();
    first.enqueue(status(503));
    second.enqueue(ok(CHAT_JSON));
    try (RawResponse r = client.send(RawRequest.post("/v1/chat/completions", json(CHAT_BODY))
        .build())) {
      assertThat(r.status()).isEqualTo(200);
    }
    assertThat(events.failedAttempts).hasSize(1);
  }

  @Test
  void aFinalErrorIsThrownWithItsStatusAndWithoutTheRequestsSecrets() throws Exception {
    client = Fixtures.scripted(first).build();
    // A 400 is the request's fault: not retried, thrown with the status; the key the request
    // carried, echoed by the server, is not in it.
    String key = "sk-raw-secret-123456";
    first.enqueue(new MockResponse.Builder().code(400).setHeader("Content-Type",
        "application/json").body("{\"error\":{\"message\":\"bad key Bearer " + key
        + " and " + key + "\",\"type\":\"invalid_request_error\"}}").build());
    assertThatThrownBy(() -> client.send(RawRequest.post("/v1/chat/completions",
        json(CHAT_BODY)).header("Authorization", "Bearer " + key).build()))
        .isInstanceOfSatisfying(ReplicaHttpException.class, e -> {
          assertThat(e.status()).isEqualTo(400);
          assertThat(e.getMessage()).doesNotContain(key).contains("<redacted>");
          assertThat(e.bodyExcerpt()).doesNotContain(key);
        });

    // Every attempt a 500: the router gives up, with the last status inside.
    for (int i = 0; i < 3; i++) first.enqueue(status(500));
    assertThatThrownBy(() -> client.send(RawRequest.post("/v1/chat/completions",
        json(CHAT_BODY)).build()))
        .isInstanceOfSatisfying(RetriesExhaustedException.class,
            e -> assertThat(e.getCause()).isInstanceOf(ReplicaHttpException.class));
  }

  @Test
  void aStreamIsHandedOutAtItsFirstEventAndReadByteForByte() throws Exception {
    scripted();
    String usage = "data: {\"id\":\"c\",\"choices\":[],\"usage\":{\"prompt_tokens\":5,"
        + "\"completion_tokens\":2,\"total_tokens\":7,\"prompt_tokens_details\":"
        + "{\"cached_tokens\":4}}}\r\n\r\n";
    String stream = ": keep-alive\n\n" + chunk("Hel") + chunk("lo") + finalChunk() + usage
        + "data: [DONE]\n\n";
    first.enqueue(sse(stream));
    String body = "{\"model\":\"m\",\"stream\":true,\"messages\":[{\"role\":\"user\","
        + "\"content\":\"hi\"}]}";

    try (RawResponse r = client.send(RawRequest.post("/v1/chat/completions", json(body))
        .build())) {
      assertThat(r.streaming()).isTrue();
      assertThat(client.inFlight(r.replicaId())).isEqualTo(1); // held while it streams
      assertThat(events.ended).isEmpty();
      assertThat(new String(r.body().readAllBytes(), StandardCharsets.UTF_8)).isEqualTo(stream);
      assertThat(client.inFlight(r.replicaId())).isZero(); // released at its end
    }
    assertThat(first.takeRequest(5, TimeUnit.SECONDS).getHeaders().get("Accept"))
        .isEqualTo("text/event-stream");
    assertThat(events.ended).singleElement().satisfies(e -> {
      assertThat(e.operation()).isEqualTo("chat.stream");
      assertThat(e.outcome()).isEqualTo(AttemptEndedEvent.Outcome.ANSWERED);
      assertThat(e.usage().promptTokens()).isEqualTo(5);
      assertThat(e.usage().cachedTokens()).isEqualTo(4);
      assertThat(e.firstChunkNanos()).isNotNegative();
    });
  }

  @Test
  void aStreamWhoseFirstEventIsAnErrorFailsOverAndOneClosedEarlyIsAbandoned() throws Exception {
    scripted();
    first.enqueue(sse("data: {\"error\":{\"message\":\"overloaded\",\"code\":503}}\n\n"));
    second.enqueue(sse(chunk("a") + chunk("b") + finalChunk() + "data: [DONE]\n\n"));
    String body = "{\"model\":\"m\",\"stream\":true,\"prompt\":\"once upon\"}";

    try (RawResponse r = client.send(RawRequest.post("/v1/completions", json(body)).build())) {
      InputStream in = r.body();
      assertThat(in.read()).isEqualTo('d'); // "data: ..." of the second replica
    }
    assertThat(events.failedAttempts).singleElement()
        .satisfies(e -> assertThat(e.failure()).isInstanceOf(ReplicaHttpException.class));
    assertThat(events.ended).extracting(AttemptEndedEvent::outcome).containsExactly(
        AttemptEndedEvent.Outcome.FAILED, AttemptEndedEvent.Outcome.ABANDONED);
    assertThat(events.ended.get(1).operation()).isEqualTo("completion.stream");
    assertThat(client.inFlight(events.ended.get(1).replicaId())).isZero();
  }

  @Test
  void aReaderThatStopsAtTheEndEventHasReadTheWholeStream() throws Exception {
    scripted();
    String done = "event: response.created\ndata: {\"type\":\"response.created\"}\n\n"
        + "event: response.completed\ndata: {\"type\":\"response.completed\",\"response\":"
        + "{\"model\":\"m\",\"usage\":{\"input_tokens\":9,\"output_tokens\":1,"
        + "\"input_tokens_details\":{\"cached_tokens\":6}}}}\n\n";
    first.enqueue(sse(done + ": trailing comment, never read\n\n"));
    String body = "{\"model\":\"m\",\"stream\":true,\"input\":\"hi\"}";
    try (RawResponse r = client.send(RawRequest.post("/v1/responses", json(body)).build())) {
      byte[] read = r.body().readNBytes(done.length()); // up to the end event, not to EOF
      assertThat(new String(read, StandardCharsets.UTF_8)).isEqualTo(done);
    }
    assertThat(events.ended).singleElement().satisfies(e -> {
      assertThat(e.operation()).isEqualTo("responses.stream");
      assertThat(e.outcome()).isEqualTo(AttemptEndedEvent.Outcome.ANSWERED);
      assertThat(e.usage().cachedTokens()).isEqualTo(6);
      assertThat(e.responseModel()).isEqualTo("m");
    });
  }

  @Test
  void aStreamCutBeforeItsEndIsReadToTheCutAndCountsAgainstTheReplica() throws Exception {
    scripted();
    String cut = chunk("Hel") + chunk("lo"); // no finish reason, no [DONE]
    first.enqueue(sse(cut));
    String body = "{\"model\":\"m\",\"stream\":true,\"messages\":[]}";
    try (RawResponse r = client.send(RawRequest.post("/v1/chat/completions", json(body))
        .build())) {
      assertThat(new String(r.bodyBytes(), StandardCharsets.UTF_8)).isEqualTo(cut);
      assertThat(r.body().read()).isEqualTo(-1);
    }
    assertThat(events.ended).singleElement().satisfies(e -> {
      assertThat(e.outcome()).isEqualTo(AttemptEndedEvent.Outcome.FAILED);
      assertThat(e.failure()).hasMessageContaining("without [DONE]");
    });
    assertThat(second.getRequestCount()).isZero(); // a stream handed out is never replayed

    // A finish reason without [DONE] completes it, as it does a typed stream.
    second.enqueue(sse(chunk("x") + finalChunk()));
    first.enqueue(sse(chunk("x") + finalChunk()));
    try (RawResponse r = client.send(RawRequest.post("/v1/chat/completions", json(body))
        .build())) {
      r.bodyBytes();
    }
    assertThat(events.ended.get(1).outcome()).isEqualTo(AttemptEndedEvent.Outcome.ANSWERED);
  }

  @Test
  void aStreamThatGoesSilentFailsTheReaderWithATimeout() throws Exception {
    client = Fixtures.scripted(first).streamIdleTimeout(Duration.ofMillis(300))
        .listener(events).build();
    first.enqueue(new MockResponse.Builder().code(200)
        .setHeader("Content-Type", "text/event-stream")
        .body(chunk("a") + chunk("b") + "data: [DONE]\n\n")
        .throttleBody(chunk("a").length(), 3, TimeUnit.SECONDS).build());
    String body = "{\"model\":\"m\",\"stream\":true,\"messages\":[]}";
    try (RawResponse r = client.send(RawRequest.post("/v1/chat/completions", json(body))
        .build())) {
      assertThatThrownBy(r::bodyBytes).isInstanceOf(LlmTimeoutException.class)
          .hasMessageContaining("timed out");
      assertThat(r.body().read()).isEqualTo(-1); // ended: nothing more to read
    }
    assertThat(events.ended).singleElement().extracting(AttemptEndedEvent::outcome)
        .isEqualTo(AttemptEndedEvent.Outcome.FAILED);
    assertThat(client.inFlight(events.ended.get(0).replicaId())).isZero();
  }

  @Test
  void asyncSendsAnswerWholeAndStreamed() throws Exception {
    scripted();
    first.enqueue(ok(CHAT_JSON));
    second.enqueue(sse(chunk("x") + finalChunk() + "data: [DONE]\n\n"));

    try (RawResponse whole = client.sendAsync(RawRequest.post("/v1/chat/completions",
        json(CHAT_BODY)).build()).get(10, TimeUnit.SECONDS)) {
      assertThat(whole.bodyBytes()).isEqualTo(json(CHAT_JSON));
    }
    String body = "{\"model\":\"m\",\"stream\":true,\"messages\":[]}";
    try (RawResponse stream = client.sendAsync(RawRequest.post("/v1/chat/completions",
        json(body)).build()).get(10, TimeUnit.SECONDS)) {
      assertThat(new String(stream.bodyBytes(), StandardCharsets.UTF_8)).contains("[DONE]");
    }
  }

  @Test
  void aRawConversationAndTheSameOneTypedGoToTheSameReplica() {
    try (EmulatedReplica a = EmulatedReplica.builder().id("a").build().start();
        EmulatedReplica b = EmulatedReplica.builder().id("b").build().start();
        EmulatedReplica c = EmulatedReplica.builder().id("c").build().start();
        LlmClient routed = LlmClient.builder().replicas(a.baseUrl(), b.baseUrl(), c.baseUrl())
            .listener(events).build()) {
      for (int conversation = 0; conversation < 6; conversation++) {
        String system = "You are agent " + conversation + ". " + "Follow the rules. ".repeat(40);
        String user = "Task " + conversation + ": summarise the report.";
        String raw = "{\"model\":\"emulated-model\",\"max_tokens\":4,\"messages\":["
            + "{\"role\":\"system\",\"content\":\"" + system + "\"},"
            + "{\"role\":\"user\",\"content\":[{\"type\":\"text\",\"text\":\"" + user
            + "\"}]}]}";
        try (RawResponse r = routed.send(RawRequest.post("/v1/chat/completions", json(raw))
            .build())) {
          assertThat(r.status()).isEqualTo(200);
        }
        routed.chat(ChatRequest.builder("emulated-model").maxTokens(4)
            .message(ChatMessage.system(system)).message(ChatMessage.user(user)).build());
      }
    }
    assertThat(events.routed).hasSize(12);
    for (int i = 0; i < 12; i += 2) {
      assertThat(events.routed.get(i + 1).replicaId()).as("conversation %d", i / 2)
          .isEqualTo(events.routed.get(i).replicaId());
    }
  }

  @Test
  void badRequestsFailWhenBuiltWithoutShowingAHeaderValue() {
    assertThatThrownBy(() -> RawRequest.post("v1/chat", new byte[0]))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("start with '/'");
    assertThatThrownBy(() -> RawRequest.builder("GET", "/v1/models").body(json("{}"),
        "application/json").build()).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("GET");
    assertThatThrownBy(() -> RawRequest.builder("GET", "/v1/a b"))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("index 5");
    assertThatThrownBy(() -> RawRequest.builder("GET", "/v1/models")
        .header("Authorization", "Bearer sk-secret\n")).isInstanceOf(
            IllegalArgumentException.class).hasMessageContaining("Authorization")
        .hasMessageNotContaining("sk-secret");
    assertThatThrownBy(() -> RawRequest.builder("GE T", "/v1/models"))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("method");
    assertThatThrownBy(() -> RawRequest.builder("HEAD", "/v1/models").body(json("{}"),
        "application/json").build()).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> RawRequest.builder("POST", "/v1/x").header("X Bad", "v"))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("X Bad");
    assertThatThrownBy(() -> RawRequest.post("/v1/x", json("{}")).body(json("{}"),
        "application/json\r\nX-Injected: 1")).isInstanceOf(IllegalArgumentException.class)
        .hasMessageNotContaining("X-Injected");
    RawRequest delete = RawRequest.builder("DELETE", "/v1/files/f-1")
        .header("Content-Type", "application/json").build();
    assertThat(delete.contentType()).isNull(); // no body, so no type
    assertThat(delete.jsonBody()).isFalse();
    RawRequest put = RawRequest.builder("PUT", "/v1/x").header("Content-Type", "text/plain")
        .build();
    assertThat(put.contentType()).isEqualTo("text/plain");
    assertThat(put.jsonBody()).isFalse();
    assertThat(RawRequest.post("/v1/x", json("{}")).build().jsonBody()).isTrue();
    RawRequest r = RawRequest.builder("get", "/v1/models").header("Authorization", "Bearer sk-1")
        .build();
    assertThat(r.method()).isEqualTo("GET");
    assertThat(r.headers().get("authorization")).containsExactly("Bearer sk-1");
    assertThat(r.contentType()).isNull();
    assertThat(r.toString()).doesNotContain("sk-1").contains("GET /v1/models");
    assertThatThrownBy(() -> r.headers().get("Authorization").add("x"))
        .isInstanceOf(UnsupportedOperationException.class);
  }
}
