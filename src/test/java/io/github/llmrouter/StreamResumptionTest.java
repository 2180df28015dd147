package io.github.llmrouter;

import static io.github.llmrouter.Fixtures.chunk;
import static io.github.llmrouter.Fixtures.finalChunk;
import static io.github.llmrouter.Fixtures.scripted;
import static io.github.llmrouter.Fixtures.sse;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.github.llmrouter.api.ChatChunk;
import io.github.llmrouter.api.ChatMessage;
import io.github.llmrouter.api.ChatRequest;
import io.github.llmrouter.api.CompletionRequest;
import io.github.llmrouter.api.CompletionResponse;
import io.github.llmrouter.api.LlmTimeoutException;
import io.github.llmrouter.api.ResponseStream;
import io.github.llmrouter.api.StreamInterruptedException;
import io.github.llmrouter.emulator.EmulatedReplica;
import io.github.llmrouter.internal.transport.Json;
import io.github.llmrouter.observe.StreamResumptionEvent;
import io.github.llmrouter.replica.Replica;
import io.github.llmrouter.routing.RoutingPolicy;
import io.github.llmrouter.testing.EventRecorder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import mockwebserver3.MockResponse;
import mockwebserver3.MockWebServer;
import mockwebserver3.RecordedRequest;
import okio.Buffer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import tools.jackson.databind.JsonNode;

/**
 * A stream that breaks after its first chunk continues on another replica: the caller reads one
 * whole answer (no text lost or repeated, usage summed), within the limit, the deadline and the
 * rules that keep a continuation from corrupting an answer.
 */
class StreamResumptionTest {
  private final List<EmulatedReplica> emulated = new ArrayList<>();
  private final MockWebServer first = new MockWebServer();
  private final MockWebServer second = new MockWebServer();

  @AfterEach
  void stop() {
    emulated.forEach(EmulatedReplica::close);
    first.close();
    second.close();
  }

  private EmulatedReplica start(String id) {
    EmulatedReplica r = EmulatedReplica.builder().id(id).instant().build().start();
    emulated.add(r);
    return r;
  }

  private static LlmClientBuilder client(EmulatedReplica... replicas) {
    List<Replica> fleet = new ArrayList<>();
    for (EmulatedReplica r : replicas) fleet.add(Replica.builder(r.baseUrl()).id(r.id()).build());
    return LlmClient.builder().routingPolicy(RoutingPolicy.roundRobin()).replicas(fleet);
  }

  private static ChatRequest story() {
    return ChatRequest.builder("m").message(ChatMessage.user("tell me a story")).maxTokens(12)
        .build();
  }

  /** Reads the whole stream; {@return its text} */
  private static <T extends io.github.llmrouter.api.StreamChunk> String read(
      ResponseStream<T> stream, List<T> into) {
    StringBuilder text = new StringBuilder();
    for (T c : stream) {
      into.add(c);
      text.append(c.text());
    }
    return text.toString();
  }

  @ParameterizedTest
  @ValueSource(ints = {1, 2, 5, 9})
  void aChatStreamCutAfterItsFirstChunksReadsAsOneWholeAnswer(int cutAfter) {
    EmulatedReplica cutter = start("cutter");
    EmulatedReplica other = start("other");
    String whole;
    try (LlmClient reference = client(other).build();
        ResponseStream<ChatChunk> s = reference.chatStream(story())) {
      whole = read(s, new ArrayList<>());
    }
    cutter.faults().breakStreamAfter(1, cutAfter);
    EventRecorder events = new EventRecorder();
    try (LlmClient client = client(cutter, other).listener(events).build();
        ResponseStream<ChatChunk> stream = client.chatStream(story())) {
      List<ChatChunk> chunks = new ArrayList<>();
      String text = read(stream, chunks);

      assertThat(text).isEqualTo(whole);
      assertThat(stream.resumptions()).isEqualTo(1);
      assertThat(stream.replicaId()).isEqualTo("other");
      ChatChunk last = chunks.get(chunks.size() - 1);
      assertThat(chunks).anySatisfy(c -> assertThat(c.finishReason()).isEqualTo("length"));
      assertThat(last.usage()).isNotNull();
      assertThat(last.usage().completionTokens()).isEqualTo(12);
      assertThat(last.usage().totalTokens())
          .isEqualTo(last.usage().promptTokens() + last.usage().completionTokens());
      assertThat(last.usage().extra()).containsEntry("resumptions", 1);
      int carried = chunks.subList(0, cutAfter).stream().mapToInt(c -> c.text().length()).sum();
      assertThat(events.resumptions).singleElement().satisfies(e -> {
        assertThat(e.replicaId()).isEqualTo("cutter");
        assertThat(e.resumedOn()).isEqualTo("other");
        assertThat(e.resumption()).isEqualTo(1);
        assertThat(e.charactersCarried()).isEqualTo(carried);
        assertThat(e.outcome()).isEqualTo(StreamResumptionEvent.Outcome.RESUMED);
        assertThat(e.why()).isNull();
      });
    }
  }

  @Test
  void theContinuationAsksForTheRestAfterTheTextDelivered() throws Exception {
    first.enqueue(sse(chunk("Hello") + chunk(" wor"))); // cut: no finish, no [DONE]
    second.enqueue(sse(chunk("ld") + finalChunk() + "data: [DONE]\n\n"));
    try (LlmClient client = scripted(first, second).build();
        ResponseStream<ChatChunk> stream = client.chatStream(ChatRequest.builder("m")
            .message(ChatMessage.user("hi")).maxTokens(10).build())) {
      assertThat(read(stream, new ArrayList<>())).isEqualTo("Hello world");
    }
    first.takeRequest(5, TimeUnit.SECONDS);
    RecordedRequest continuation = second.takeRequest(5, TimeUnit.SECONDS);
    JsonNode body = Json.MAPPER.readTree(continuation.getBody().utf8());
    assertThat(body.path("max_tokens").asInt()).isEqualTo(8);
    assertThat(body.path("continue_final_message").asBoolean()).isTrue();
    assertThat(body.path("add_generation_prompt").asBoolean(true)).isFalse();
    JsonNode messages = body.path("messages");
    assertThat(messages.size()).isEqualTo(2);
    assertThat(messages.get(1).path("role").asString()).isEqualTo("assistant");
    assertThat(messages.get(1).path("content").asString()).isEqualTo("Hello wor");
  }

  @Test
  void aContinuationThatRepeatsTheDeliveredTextHasTheRepetitionRemoved() throws Exception {
    first.enqueue(sse(chunk("Hello") + chunk(" wor")));
    // As llama.cpp's server answers when it does not honour the continuation switch.
    second.enqueue(sse(chunk("Hel") + chunk("lo wo") + chunk("rld!") + finalChunk()
        + "data: [DONE]\n\n"));
    try (LlmClient client = scripted(first, second).build();
        ResponseStream<ChatChunk> stream = client.chatStream(ChatRequest.builder("m")
            .message(ChatMessage.user("hi")).build())) {
      List<ChatChunk> chunks = new ArrayList<>();
      assertThat(read(stream, chunks)).isEqualTo("Hello world!");
      assertThat(chunks).extracting(ChatChunk::text).containsExactly("Hello", " wor", "ld!", "");
    }
  }

  @Test
  void aContinuationThatOnlyBeginsLikeTheDeliveredTextIsNewText() throws Exception {
    first.enqueue(sse(chunk("Hello") + chunk(" wor")));
    second.enqueue(sse(chunk("Hel") + chunk("p!") + finalChunk() + "data: [DONE]\n\n"));
    try (LlmClient client = scripted(first, second).build();
        ResponseStream<ChatChunk> stream = client.chatStream(ChatRequest.builder("m")
            .message(ChatMessage.user("hi")).build())) {
      assertThat(read(stream, new ArrayList<>())).isEqualTo("Hello worHelp!");
    }
  }

  @Test
  void newTextThatBeginsLikeTheDeliveredTextIsNotTakenForARepetition() throws Exception {
    // As llama.cpp continued a run of one character: more of it, then something else.
    first.enqueue(sse(chunk("OOOOO") + chunk("OOOOO")));
    second.enqueue(sse(chunk("OOOOOOO") + chunk("9O9") + finalChunk() + "data: [DONE]\n\n"));
    try (LlmClient client = scripted(first, second).build();
        ResponseStream<ChatChunk> stream = client.chatStream(ChatRequest.builder("m")
            .message(ChatMessage.user("hi")).build())) {
      assertThat(read(stream, new ArrayList<>())).isEqualTo("OOOOOOOOOOOOOOOOO9O9");
      assertThat(stream.resumptions()).isEqualTo(1);
    }
  }

  @Test
  void aCompletionContinuesFromItsPromptFollowedByTheTextDelivered() throws Exception {
    first.enqueue(sse(completionChunk("upon") + completionChunk(" a")));
    second.enqueue(sse(completionChunk(" time") + "data: [DONE]\n\n"));
    try (LlmClient client = scripted(first, second).build();
        ResponseStream<CompletionResponse> stream = client.completionStream(
            CompletionRequest.builder("m", "Once ").maxTokens(5).build())) {
      assertThat(read(stream, new ArrayList<>())).isEqualTo("upon a time");
      assertThat(stream.resumptions()).isEqualTo(1);
    }
    first.takeRequest(5, TimeUnit.SECONDS);
    JsonNode body = Json.MAPPER.readTree(second.takeRequest(5, TimeUnit.SECONDS).getBody().utf8());
    assertThat(body.path("prompt").asString()).isEqualTo("Once upon a");
    assertThat(body.path("max_tokens").asInt()).isEqualTo(3);
    assertThat(body.has("continue_final_message")).isFalse();
  }

  @Test
  void aStreamShowingAToolCallIsNeverResumed() throws Exception {
    first.enqueue(sse("data: {\"id\":\"c\",\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":"
        + "[{\"index\":0,\"id\":\"t\",\"type\":\"function\",\"function\":{\"name\":\"f\","
        + "\"arguments\":\"{\\\"a\"}}]},\"finish_reason\":null}]}\n\n"));
    second.enqueue(sse(chunk("never") + finalChunk() + "data: [DONE]\n\n"));
    EventRecorder events = new EventRecorder();
    try (LlmClient client = scripted(first, second).listener(events).build();
        ResponseStream<ChatChunk> stream = client.chatStream(ChatRequest.builder("m")
            .message(ChatMessage.user("hi")).build())) {
      assertThatThrownBy(() -> read(stream, new ArrayList<>()))
          .isInstanceOf(StreamInterruptedException.class);
      assertThat(stream.resumptions()).isZero();
    }
    assertThat(second.getRequestCount()).isZero();
    assertThat(events.resumptions).singleElement().satisfies(e -> {
      assertThat(e.outcome()).isEqualTo(StreamResumptionEvent.Outcome.SKIPPED);
      assertThat(e.why()).isEqualTo("a tool call was under way");
      assertThat(e.resumedOn()).isNull();
    });
  }

  @ParameterizedTest
  @ValueSource(strings = {"structured", "choices", "logprobs", "grammar", "tool_choice",
      "not resumable", "client off"})
  void requestsAContinuationCouldCorruptAreNeverResumed(String kind) throws Exception {
    first.enqueue(sse(chunk("alpha") + chunk(" beta")));
    second.enqueue(sse(chunk(" gamma") + finalChunk() + "data: [DONE]\n\n"));
    ChatRequest.Builder request = ChatRequest.builder("m").message(ChatMessage.user("hi"));
    LlmClientBuilder builder = scripted(first, second);
    switch (kind) {
      case "structured" -> request.extra("response_format", Map.of("type", "json_object"));
      case "choices" -> request.n(2);
      case "logprobs" -> request.extra("logprobs", true);
      case "grammar" -> request.extra("guided_json", Map.of("type", "object"));
      case "tool_choice" -> request.extra("tool_choice", "required");
      case "not resumable" -> request.resumable(false);
      default -> builder.maxStreamResumptions(0);
    }
    try (LlmClient client = builder.build();
        ResponseStream<ChatChunk> stream = client.chatStream(request.build())) {
      assertThatThrownBy(() -> read(stream, new ArrayList<>()))
          .isInstanceOf(StreamInterruptedException.class)
          .satisfies(e -> assertThat(((StreamInterruptedException) e).receivedText())
              .isEqualTo("alpha beta"));
    }
    assertThat(second.getRequestCount()).isZero();
  }

  @Test
  void pastTheLimitTheStreamEndsWithEverythingTheCallerRead() throws Exception {
    first.enqueue(sse(chunk("a") + chunk("b")));
    second.enqueue(sse(chunk("c")));
    EventRecorder events = new EventRecorder();
    try (LlmClient client = scripted(first, second).maxStreamResumptions(1).listener(events)
        .build();
        ResponseStream<ChatChunk> stream = client.chatStream(ChatRequest.builder("m")
            .message(ChatMessage.user("hi")).build())) {
      assertThatThrownBy(() -> read(stream, new ArrayList<>()))
          .isInstanceOfSatisfying(StreamInterruptedException.class, e -> {
            assertThat(e.receivedText()).isEqualTo("abc");
            assertThat(e.receivedChunks()).hasSize(3);
          });
      assertThat(stream.resumptions()).isEqualTo(1);
    }
    assertThat(events.resumptions).extracting(e -> e.outcome() + " " + e.why())
        .containsExactly("RESUMED null", "SKIPPED it was resumed 1 times");
    assertThat(events.resumptions.get(1).resumption()).isEqualTo(2);
    assertThat(events.resumptions.get(1).charactersCarried()).isEqualTo(3);
  }

  @Test
  void aStreamWhoseTokenLimitIsUsedUpEndsAsItBroke() throws Exception {
    first.enqueue(sse(chunk("a") + chunk("b")));
    EventRecorder events = new EventRecorder();
    try (LlmClient client = scripted(first, second).listener(events).build();
        ResponseStream<ChatChunk> stream = client.chatStream(ChatRequest.builder("m")
            .message(ChatMessage.user("hi")).maxTokens(2).build())) {
      assertThatThrownBy(() -> read(stream, new ArrayList<>()))
          .isInstanceOf(StreamInterruptedException.class);
    }
    assertThat(events.resumptions).singleElement().satisfies(e ->
        assertThat(e.why()).isEqualTo("its token limit is used up"));
    assertThat(second.getRequestCount()).isZero();
  }

  @Test
  void aContinuationThatFailsEndsTheStreamAndSaysWhy() throws Exception {
    first.enqueue(sse(chunk("a")));
    second.enqueue(Fixtures.status(400));
    EventRecorder events = new EventRecorder();
    try (LlmClient client = scripted(first, second).listener(events).build();
        ResponseStream<ChatChunk> stream = client.chatStream(ChatRequest.builder("m")
            .message(ChatMessage.user("hi")).build())) {
      assertThatThrownBy(() -> read(stream, new ArrayList<>()))
          .isInstanceOfSatisfying(StreamInterruptedException.class, e -> {
            assertThat(e.receivedText()).isEqualTo("a");
            assertThat(e.getSuppressed()).singleElement().satisfies(s ->
                assertThat(s).hasMessageContaining("400"));
          });
    }
    assertThat(events.resumptions).singleElement().satisfies(e -> {
      assertThat(e.outcome()).isEqualTo(StreamResumptionEvent.Outcome.FAILED);
      assertThat(e.resumption()).isEqualTo(1);
      assertThat(e.charactersCarried()).isEqualTo(1);
      assertThat(e.why()).contains("400");
    });
  }

  @Test
  void aStreamCutByTheCallDeadlineIsNotResumed() {
    EmulatedReplica slow = EmulatedReplica.builder().id("slow").instant()
        .decodeInterval(Duration.ofMillis(100)).build().start();
    emulated.add(slow);
    EmulatedReplica other = start("other");
    EventRecorder events = new EventRecorder();
    try (LlmClient client = client(slow, other).callTimeout(Duration.ofMillis(800))
        .listener(events).build();
        ResponseStream<ChatChunk> stream = client.chatStream(ChatRequest.builder("m")
            .message(ChatMessage.user("a long story")).maxTokens(100).build())) {
      assertThatThrownBy(() -> read(stream, new ArrayList<>()))
          .isInstanceOf(LlmTimeoutException.class);
      assertThat(stream.resumptions()).isZero();
    }
    assertThat(other.stats().chatRequests()).isZero();
    assertThat(events.resumptions).singleElement().satisfies(e ->
        assertThat(e.why()).isEqualTo("the call deadline passed"));
  }

  private static String completionChunk(String text) {
    return "data: {\"id\":\"c\",\"object\":\"text_completion\",\"choices\":[{\"index\":0,"
        + "\"text\":\"" + text + "\",\"finish_reason\":null}]}\n\n";
  }

  @Test
  void anErrorEventAboutTheRequestEndsTheStream() throws Exception {
    first.enqueue(sse(chunk("a")
        + "data: {\"error\":{\"message\":\"too long\",\"code\":400}}\n\n"));
    second.enqueue(sse(chunk("never") + finalChunk() + "data: [DONE]\n\n"));
    try (LlmClient client = scripted(first, second).build();
        ResponseStream<ChatChunk> stream = client.chatStream(ChatRequest.builder("m")
            .message(ChatMessage.user("hi")).build())) {
      assertThatThrownBy(() -> read(stream, new ArrayList<>()))
          .isInstanceOf(StreamInterruptedException.class);
    }
    assertThat(second.getRequestCount()).isZero();
  }

  @Test
  void anErrorEventAboutTheReplicaIsResumed() throws Exception {
    first.enqueue(sse(chunk("a") + "data: {\"error\":{\"message\":\"boom\",\"code\":500}}\n\n"));
    second.enqueue(sse(chunk("b") + finalChunk() + "data: [DONE]\n\n"));
    try (LlmClient client = scripted(first, second).build();
        ResponseStream<ChatChunk> stream = client.chatStream(ChatRequest.builder("m")
            .message(ChatMessage.user("hi")).build())) {
      assertThat(read(stream, new ArrayList<>())).isEqualTo("ab");
      assertThat(stream.resumptions()).isEqualTo(1);
    }
  }

  @Test
  void aStreamCutInsideAnEventAndAMultiByteCharacterContinuesAfterTheLastWholeEvent()
      throws Exception {
    String next = chunk(" w\u00f6rld");
    byte[] whole = (chunk("h\u00e9llo") + next).getBytes(StandardCharsets.UTF_8);
    // Cut after the first of the two bytes of \u00f6, inside the second event.
    int cut = chunk("h\u00e9llo").getBytes(StandardCharsets.UTF_8).length
        + next.substring(0, next.indexOf('\u00f6')).getBytes(StandardCharsets.UTF_8).length + 1;
    first.enqueue(new MockResponse.Builder().code(200)
        .setHeader("Content-Type", "text/event-stream")
        .body(new Buffer().write(whole, 0, cut)).build());
    second.enqueue(sse(chunk(" w\u00f6rld") + finalChunk() + "data: [DONE]\n\n"));
    try (LlmClient client = scripted(first, second).build();
        ResponseStream<ChatChunk> stream = client.chatStream(ChatRequest.builder("m")
            .message(ChatMessage.user("hi")).build())) {
      assertThat(read(stream, new ArrayList<>())).isEqualTo("h\u00e9llo w\u00f6rld");
      assertThat(stream.resumptions()).isEqualTo(1);
    }
  }

  @Test
  void aStreamThatGoesSilentPastItsIdleTimeoutContinuesElsewhere() {
    EmulatedReplica frozen = EmulatedReplica.builder().id("frozen").instant()
        .decodeInterval(Duration.ofMillis(20)).build().start();
    emulated.add(frozen);
    EmulatedReplica other = start("other");
    String whole;
    try (LlmClient reference = client(other).build();
        ResponseStream<ChatChunk> s = reference.chatStream(story())) {
      whole = read(s, new ArrayList<>());
    }
    try (LlmClient client = client(frozen, other).streamIdleTimeout(Duration.ofMillis(300))
        .build();
        ResponseStream<ChatChunk> stream = client.chatStream(story())) {
      StringBuilder text = new StringBuilder();
      java.util.Iterator<ChatChunk> chunks = stream.iterator();
      for (int i = 0; i < 3 && chunks.hasNext(); i++) text.append(chunks.next().text());
      frozen.freeze();
      while (chunks.hasNext()) text.append(chunks.next().text());
      assertThat(text.toString()).isEqualTo(whole);
      assertThat(stream.resumptions()).isEqualTo(1);
      assertThat(stream.replicaId()).isEqualTo("other");
    } finally {
      frozen.thaw();
    }
  }
}
