package io.github.llmrouter;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.langchain4j.data.message.AiMessage;
import dev.langchain4j.data.message.ChatMessage;
import dev.langchain4j.data.message.SystemMessage;
import dev.langchain4j.data.message.UserMessage;
import dev.langchain4j.exception.AuthenticationException;
import dev.langchain4j.exception.InternalServerException;
import dev.langchain4j.exception.InvalidRequestException;
import dev.langchain4j.exception.LangChain4jException;
import dev.langchain4j.exception.ModelNotFoundException;
import dev.langchain4j.exception.RateLimitException;
import dev.langchain4j.model.chat.response.ChatResponse;
import dev.langchain4j.model.chat.response.PartialResponse;
import dev.langchain4j.model.chat.response.PartialResponseContext;
import dev.langchain4j.model.chat.response.StreamingChatResponseHandler;
import dev.langchain4j.model.openai.OpenAiChatModel;
import dev.langchain4j.model.openai.OpenAiStreamingChatModel;
import io.github.llmrouter.dispatch.RetryPolicy;
import io.github.llmrouter.emulator.EmulatedReplica;
import io.github.llmrouter.langchain4j.LlmRouterLangChain4j;
import io.github.llmrouter.load.LoadMonitoring;
import io.github.llmrouter.observe.AttemptEndedEvent;
import io.github.llmrouter.observe.RoutedEvent;
import io.github.llmrouter.testing.EventRecorder;
import java.net.InetAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import mockwebserver3.MockResponse;
import mockwebserver3.MockWebServer;
import org.junit.jupiter.api.Test;

/** LangChain4j's OpenAI models routed through {@link LlmRouterLangChain4j}, on loopback. */
class LangChain4jAdapterTest {
  private static final String SYSTEM = "You are a support agent for ACME routers. "
      + "Answer in one sentence. ".repeat(30);

  private final EventRecorder events = new EventRecorder();

  private static OpenAiChatModel chatModel(LlmClient router, String apiKey) {
    return OpenAiChatModel.builder()
        .httpClientBuilder(LlmRouterLangChain4j.httpClientBuilder(router))
        .baseUrl("http://llm-router/v1").apiKey(apiKey).modelName("emulated-model")
        .maxTokens(4).maxRetries(0).build();
  }

  private static OpenAiStreamingChatModel streamingModel(LlmClient router, int maxTokens) {
    return OpenAiStreamingChatModel.builder()
        .httpClientBuilder(LlmRouterLangChain4j.httpClientBuilder(router))
        .baseUrl("http://llm-router/v1").apiKey("k").modelName("emulated-model")
        .maxTokens(maxTokens).build();
  }

  private static List<ChatMessage> turn(int turns) {
    List<ChatMessage> messages = new ArrayList<>();
    messages.add(SystemMessage.from(SYSTEM));
    for (int i = 0; i < turns; i++) {
      if (i > 0) messages.add(AiMessage.from("Answer " + i + "."));
      messages.add(UserMessage.from("Question " + i + " about my router's firmware?"));
    }
    return messages;
  }

  @Test
  void aConversationStaysOnItsReplicaAndFailsOverWhenItStops() {
    try (EmulatedReplica a = EmulatedReplica.builder().id("a").build().start();
        EmulatedReplica b = EmulatedReplica.builder().id("b").build().start();
        EmulatedReplica c = EmulatedReplica.builder().id("c").build().start();
        LlmClient router = LlmClient.builder().replicas(a.baseUrl(), b.baseUrl(), c.baseUrl())
            .listener(events).build()) {
      OpenAiChatModel model = chatModel(router, "k");
      for (int turns = 1; turns <= 3; turns++) {
        assertThat(model.chat(turn(turns)).aiMessage().text()).isNotBlank();
      }
      assertThat(events.routed).hasSize(3).extracting(RoutedEvent::replicaId)
          .containsOnly(events.routed.get(0).replicaId());
      long[] before = {a.stats().requests(), b.stats().requests(), c.stats().requests()};
      assertThat(before[0] + before[1] + before[2]).isEqualTo(3); // one HTTP request each

      EmulatedReplica home = before[0] == 3 ? a : before[1] == 3 ? b : c;
      home.close();
      assertThat(model.chat(turn(4)).aiMessage().text()).isNotBlank();
      assertThat(events.routed.get(events.routed.size() - 1).replicaId())
          .isNotEqualTo(events.routed.get(0).replicaId());
    }
  }

  @Test
  void streamsAnswerAndOneTheCallerCancelsIsClosedAtTheReplica() throws Exception {
    try (EmulatedReplica a = EmulatedReplica.builder().id("a")
            .decodeInterval(Duration.ofMillis(20)).build().start();
        LlmClient router = LlmClient.builder().replicas(a.baseUrl()).listener(events).build()) {
      Streamed whole = Streamed.by(streamingModel(router, 3), false);
      assertThat(whole.end.get(10, TimeUnit.SECONDS).aiMessage().text())
          .isEqualTo(whole.text.toString()).isNotEmpty();
      EventRecorder.await("the stream's attempt to end", Duration.ofSeconds(10),
          () -> events.ended.size() == 1);
      assertThat(events.ended.get(0).outcome()).isEqualTo(AttemptEndedEvent.Outcome.ANSWERED);

      // A long stream the handler cancels at its first token.
      Streamed cancelled = Streamed.by(streamingModel(router, 4_000), true);
      assertThat(cancelled.end.get(10, TimeUnit.SECONDS)).as("cancelled: no response").isNull();
      EventRecorder.await("the cancelled stream's attempt to end", Duration.ofSeconds(10),
          () -> events.ended.size() == 2);
      assertThat(events.ended.get(1).outcome()).isEqualTo(AttemptEndedEvent.Outcome.ABANDONED);
      assertThat(router.inFlight(events.ended.get(1).replicaId())).isZero();
      EventRecorder.await("the replica to drop the stream", Duration.ofSeconds(10),
          () -> a.stats().running() == 0);
    }
  }

  @Test
  void errorStatusesComeOutAsLangChain4jTypesWithoutTheKey() throws Exception {
    String key = "sk-lc4j-secret-0042";
    try (MockWebServer server = new MockWebServer()) {
      server.start(InetAddress.getLoopbackAddress(), 0);
      try (LlmClient router = LlmClient.builder().replicas(server.url("/").toString())
          .loadMonitoring(LoadMonitoring.disabled()).modelDiscoveryInterval(Duration.ZERO)
          .retryPolicy(RetryPolicy.builder().maxAttempts(1).build()).build()) {
        OpenAiChatModel model = chatModel(router, key);
        int[] statuses = {400, 401, 404, 429, 500, 503};
        List<Class<? extends RuntimeException>> types = List.of(InvalidRequestException.class,
            AuthenticationException.class, ModelNotFoundException.class,
            RateLimitException.class, InternalServerException.class,
            InternalServerException.class);
        for (int i = 0; i < statuses.length; i++) {
          int status = statuses[i];
          server.enqueue(new MockResponse.Builder().code(status)
              .setHeader("Content-Type", "application/json")
              .body("{\"error\":{\"message\":\"refused Bearer " + key + "\"}}").build());
          assertThatThrownBy(() -> model.chat(turn(1))).as("HTTP %d", status)
              .isInstanceOf(types.get(i)).satisfies(e -> {
                for (Throwable t = e; t != null; t = t.getCause()) {
                  assertThat(String.valueOf(t.getMessage())).doesNotContain(key);
                }
              });
          assertThat(server.takeRequest(5, TimeUnit.SECONDS).getHeaders().get("Authorization"))
              .isEqualTo("Bearer " + key);
        }

        // A stream's error status reaches the handler, as the same type.
        server.enqueue(new MockResponse.Builder().code(404)
            .setHeader("Content-Type", "application/json")
            .body("{\"error\":{\"message\":\"no such model\"}}").build());
        Streamed failed = Streamed.by(streamingModel(router, 4), false);
        assertThat(failed.end).failsWithin(10, TimeUnit.SECONDS).withThrowableThat()
            .havingCause().isInstanceOf(ModelNotFoundException.class)
            .withMessageContaining("no such model");
      }
    }
    // No replica to reach: LangChain4j's own exception, the router's inside.
    try (LlmClient router = LlmClient.builder().replicas(Fixtures.closedPortUrl())
        .loadMonitoring(LoadMonitoring.disabled()).modelDiscoveryInterval(Duration.ZERO)
        .retryPolicy(RetryPolicy.builder().maxAttempts(1).build()).build()) {
      assertThatThrownBy(() -> chatModel(router, "k").chat(turn(1)))
          .isInstanceOf(LangChain4jException.class)
          .hasRootCauseInstanceOf(java.net.ConnectException.class);
    }
  }

  /**
   * One streamed chat of the first turn: its text as it came, and its end (the response; null if
   * the handler cancelled it at its first token; the error).
   */
  private static final class Streamed implements StreamingChatResponseHandler {
    final CompletableFuture<ChatResponse> end = new CompletableFuture<>();
    final StringBuilder text = new StringBuilder();
    private final boolean cancel;

    private Streamed(boolean cancel) {
      this.cancel = cancel;
    }

    static Streamed by(OpenAiStreamingChatModel model, boolean cancelAtFirstToken) {
      Streamed handler = new Streamed(cancelAtFirstToken);
      model.chat(turn(1), handler);
      return handler;
    }

    @Override
    public void onPartialResponse(PartialResponse partial, PartialResponseContext context) {
      text.append(partial.text());
      if (cancel) {
        context.streamingHandle().cancel();
        end.complete(null);
      }
    }

    @Override
    public void onCompleteResponse(ChatResponse response) {
      if (cancel) end.completeExceptionally(new AssertionError("a cancelled stream completed"));
      else end.complete(response);
    }

    @Override
    public void onError(Throwable error) {
      end.completeExceptionally(error);
    }
  }
}
