package io.github.llmrouter;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.openai.client.OpenAIClient;
import com.openai.client.OpenAIClientImpl;
import com.openai.core.ClientOptions;
import com.openai.core.http.StreamResponse;
import com.openai.errors.BadRequestException;
import com.openai.errors.InternalServerException;
import com.openai.errors.NotFoundException;
import com.openai.errors.OpenAIIoException;
import com.openai.errors.OpenAIServiceException;
import com.openai.errors.RateLimitException;
import com.openai.errors.UnauthorizedException;
import com.openai.models.chat.completions.ChatCompletion;
import com.openai.models.chat.completions.ChatCompletionChunk;
import com.openai.models.chat.completions.ChatCompletionCreateParams;
import com.openai.models.embeddings.EmbeddingCreateParams;
import com.openai.models.responses.Response;
import com.openai.models.responses.ResponseCreateParams;
import io.github.llmrouter.dispatch.RetryPolicy;
import io.github.llmrouter.emulator.EmulatedReplica;
import io.github.llmrouter.load.LoadMonitoring;
import io.github.llmrouter.observe.AttemptEndedEvent;
import io.github.llmrouter.observe.RoutedEvent;
import io.github.llmrouter.openai.LlmRouterOpenAI;
import io.github.llmrouter.testing.EventRecorder;
import java.net.InetAddress;
import java.time.Duration;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import mockwebserver3.MockResponse;
import mockwebserver3.MockWebServer;
import mockwebserver3.RecordedRequest;
import org.junit.jupiter.api.Test;

/** openai-java 4 routed through {@link LlmRouterOpenAI}, against replicas on loopback. */
class OpenAiAdapterTest {
  private static final String SYSTEM = "You are a support agent for ACME routers. "
      + "Answer in one sentence. ".repeat(30);

  private final EventRecorder events = new EventRecorder();

  private static ChatCompletionCreateParams.Builder turn(int turns) {
    ChatCompletionCreateParams.Builder b = ChatCompletionCreateParams.builder()
        .model("emulated-model").maxCompletionTokens(4).addSystemMessage(SYSTEM);
    for (int i = 0; i < turns; i++) {
      if (i > 0) b.addAssistantMessage("Answer " + i + ".");
      b.addUserMessage("Question " + i + " about my router's firmware?");
    }
    return b;
  }

  private static long requests(EmulatedReplica... replicas) {
    long n = 0;
    for (EmulatedReplica r : replicas) n += r.stats().requests();
    return n;
  }

  @Test
  void aConversationStaysOnItsReplicaAndFailsOverWhenItStops() {
    try (EmulatedReplica a = EmulatedReplica.builder().id("a").build().start();
        EmulatedReplica b = EmulatedReplica.builder().id("b").build().start();
        EmulatedReplica c = EmulatedReplica.builder().id("c").build().start();
        LlmClient router = LlmClient.builder().replicas(a.baseUrl(), b.baseUrl(), c.baseUrl())
            .listener(events).build()) {
      OpenAIClient openai = LlmRouterOpenAI.client(router);
      for (int turns = 1; turns <= 3; turns++) {
        ChatCompletion answer = openai.chat().completions().create(turn(turns).build());
        assertThat(answer.choices()).isNotEmpty();
        assertThat(answer.choices().get(0).message().content()).isPresent();
      }
      assertThat(events.routed).hasSize(3).extracting(RoutedEvent::replicaId)
          .containsOnly(events.routed.get(0).replicaId());

      // Its replica stops: the fourth turn fails over, and the SDK sees an answer.
      String home = events.routed.get(0).replicaId();
      EmulatedReplica stopped = List.of(a, b, c).stream()
          .filter(r -> router.replicas().stream().anyMatch(
              x -> x.id().equals(home) && x.baseUrl().toString().contains(":" + r.port())))
          .findFirst().orElseThrow();
      stopped.close();
      ChatCompletion fourth = openai.chat().completions().create(turn(4).build());
      assertThat(fourth.choices()).isNotEmpty();
      assertThat(events.routed.get(events.routed.size() - 1).replicaId()).isNotEqualTo(home);
    }
  }

  @Test
  void everyRouterAttemptIsOneHttpRequestAndTheSdkNeverRetries() {
    try (EmulatedReplica a = EmulatedReplica.builder().id("a").instant().build().start();
        EmulatedReplica b = EmulatedReplica.builder().id("b").instant().build().start();
        LlmClient router = LlmClient.builder().replicas(a.baseUrl(), b.baseUrl())
            .loadMonitoring(LoadMonitoring.disabled()).modelDiscoveryInterval(Duration.ZERO)
            .retryPolicy(RetryPolicy.builder().initialBackoff(Duration.ZERO)
                .maxBackoff(Duration.ZERO).build())
            .listener(events).build()) {
      // The SDK left at its default of two retries: the adapter's error answers say not to.
      OpenAIClient withSdkRetries = new OpenAIClientImpl(ClientOptions.builder()
          .httpClient(LlmRouterOpenAI.httpClient(router)).baseUrl("http://x/v1").apiKey("k")
          .build());
      OpenAIClient openai = LlmRouterOpenAI.client(router);
      openai.chat().completions().create(turn(1).build());
      openai.embeddings().create(EmbeddingCreateParams.builder().model("emulated-model")
          .input("hello").build());
      a.faults().failNext(1, 503);
      b.faults().failNext(1, 503);
      // Both fail once: two failovers, then an answer from the first again.
      openai.chat().completions().create(turn(2).build());
      assertThat(requests(a, b)).isEqualTo(events.routed.size()).isEqualTo(1 + 1 + 3);

      // Every attempt fails: the router gives up after its attempts; the SDK adds none.
      a.faults().failNext(10, 500);
      b.faults().failNext(10, 500);
      assertThatThrownBy(() -> withSdkRetries.chat().completions().create(turn(3).build()))
          .isInstanceOf(InternalServerException.class);
      assertThat(requests(a, b)).isEqualTo(events.routed.size()).isEqualTo(5 + 3);
    }
  }

  @Test
  void aStreamTheCallerStopsReadingIsClosedAtTheReplica() throws Exception {
    try (EmulatedReplica a = EmulatedReplica.builder().id("a")
            .decodeInterval(Duration.ofMillis(20)).build().start();
        LlmClient router = LlmClient.builder().replicas(a.baseUrl()).listener(events).build()) {
      OpenAIClient openai = LlmRouterOpenAI.client(router);
      // A whole stream, read to its end.
      StringBuilder text = new StringBuilder();
      try (StreamResponse<ChatCompletionChunk> stream = openai.chat().completions()
          .createStreaming(turn(1).maxCompletionTokens(3).build())) {
        stream.stream().forEach(chunk -> chunk.choices().forEach(
            choice -> choice.delta().content().ifPresent(text::append)));
      }
      assertThat(text).isNotEmpty();
      assertThat(events.ended).singleElement().extracting(AttemptEndedEvent::outcome)
          .isEqualTo(AttemptEndedEvent.Outcome.ANSWERED);

      // A long stream, closed after its first chunk: the router lets go of the replica.
      try (StreamResponse<ChatCompletionChunk> stream = openai.chat().completions()
          .createStreaming(turn(1).maxCompletionTokens(4_000).build())) {
        Iterator<ChatCompletionChunk> chunks = stream.stream().iterator();
        assertThat(chunks.hasNext()).isTrue();
        chunks.next();
      }
      EventRecorder.await("the stream's attempt to end", Duration.ofSeconds(10),
          () -> events.ended.size() == 2);
      assertThat(events.ended.get(1).outcome()).isEqualTo(AttemptEndedEvent.Outcome.ABANDONED);
      assertThat(router.inFlight(events.ended.get(1).replicaId())).isZero();
      // The replica stops decoding it: its running count drops back to zero.
      EventRecorder.await("the replica to drop the stream", Duration.ofSeconds(10),
          () -> a.stats().running() == 0);
    }
  }

  @Test
  void errorStatusesComeOutAsTheSdksOwnTypesWithoutTheKey() throws Exception {
    String key = "sk-adapter-secret-0042";
    try (MockWebServer server = new MockWebServer()) {
      server.start(InetAddress.getLoopbackAddress(), 0);
      try (LlmClient router = LlmClient.builder().replicas(server.url("/").toString())
              .loadMonitoring(LoadMonitoring.disabled()).modelDiscoveryInterval(Duration.ZERO)
              .retryPolicy(RetryPolicy.builder().maxAttempts(1).build()).build()) {
        OpenAIClient openai = LlmRouterOpenAI.client(router, o -> o.apiKey(key));
        int[] statuses = {400, 401, 404, 429, 500, 503};
        List<Class<? extends OpenAIServiceException>> types = List.of(BadRequestException.class,
            UnauthorizedException.class, NotFoundException.class, RateLimitException.class,
            InternalServerException.class, InternalServerException.class);
        for (int i = 0; i < statuses.length; i++) {
          int status = statuses[i];
          server.enqueue(new MockResponse.Builder().code(status)
              .setHeader("Content-Type", "application/json")
              .body("{\"error\":{\"message\":\"refused Bearer " + key + "\",\"type\":\"t" + status
                  + "\",\"code\":\"c" + status + "\"}}").build());
          assertThatThrownBy(() -> openai.chat().completions().create(turn(1).build()))
              .as("HTTP %d", status).isInstanceOf(types.get(i))
              .satisfies(e -> {
                OpenAIServiceException s = (OpenAIServiceException) e;
                assertThat(s.statusCode()).isEqualTo(status);
                assertThat(s.getMessage()).doesNotContain(key);
                assertThat(s.body().toString()).doesNotContain(key).contains("<redacted>");
                assertThat(s.type()).contains("t" + status);
              });
          // The key reached the replica (it is the SDK's, passed through).
          assertThat(server.takeRequest(5, TimeUnit.SECONDS).getHeaders().get("Authorization"))
              .isEqualTo("Bearer " + key);
        }
      }
    }
    // No replica to reach: an I/O failure, with the router's exception inside.
    try (LlmClient router = LlmClient.builder().replicas(Fixtures.closedPortUrl())
            .loadMonitoring(LoadMonitoring.disabled()).modelDiscoveryInterval(Duration.ZERO)
            .retryPolicy(RetryPolicy.builder().maxAttempts(1).build()).build()) {
      OpenAIClient openai = LlmRouterOpenAI.client(router);
      assertThatThrownBy(() -> openai.chat().completions().create(turn(1).build()))
          .isInstanceOf(OpenAIIoException.class)
          .hasCauseInstanceOf(io.github.llmrouter.api.LlmException.class);
    }
  }

  @Test
  void theResponsesApiRoutesWithItsUsageReadBack() throws Exception {
    try (MockWebServer server = new MockWebServer()) {
      server.start(InetAddress.getLoopbackAddress(), 0);
      server.enqueue(new MockResponse.Builder().code(200)
          .setHeader("Content-Type", "application/json")
          .body("{\"id\":\"resp_1\",\"object\":\"response\",\"created_at\":1,"
              + "\"model\":\"m\",\"status\":\"completed\",\"output\":[],\"usage\":"
              + "{\"input_tokens\":30,\"output_tokens\":2,\"total_tokens\":32,"
              + "\"input_tokens_details\":{\"cached_tokens\":24},"
              + "\"output_tokens_details\":{\"reasoning_tokens\":0}}}").build());
      try (LlmClient router = LlmClient.builder().replicas(server.url("/").toString())
          .loadMonitoring(LoadMonitoring.disabled())
          .modelDiscoveryInterval(Duration.ZERO).listener(events).build()) {
        OpenAIClient openai = LlmRouterOpenAI.client(router);
        Response response = openai.responses().create(ResponseCreateParams.builder()
            .model("m").instructions("be brief").input("hello").build());
        assertThat(response.id()).isEqualTo("resp_1");
      }
      RecordedRequest sent = server.takeRequest(5, TimeUnit.SECONDS);
      assertThat(sent.getTarget()).isEqualTo("/v1/responses");
      assertThat(sent.getBody().utf8()).contains("\"input\":\"hello\"");
    }
    assertThat(events.routed).singleElement()
        .satisfies(e -> assertThat(e.operation()).isEqualTo("responses"));
    assertThat(events.ended).singleElement().satisfies(e -> {
      assertThat(e.usage().promptTokens()).isEqualTo(30);
      assertThat(e.usage().cachedTokens()).isEqualTo(24);
    });
  }

  @Test
  void asyncCallsAndStreamsRouteToo() throws Exception {
    try (EmulatedReplica a = EmulatedReplica.builder().id("a").instant().build().start();
        LlmClient router = LlmClient.builder().replicas(a.baseUrl()).listener(events).build()) {
      OpenAIClient openai = LlmRouterOpenAI.client(router);
      ChatCompletion answer = openai.async().chat().completions().create(turn(1).build())
          .get(10, TimeUnit.SECONDS);
      assertThat(answer.choices()).isNotEmpty();
      assertThat(events.routed).hasSize(1);

      // An error status reaches the async caller as the SDK's type too.
      a.faults().failNext(1, 400);
      assertThat(openai.async().chat().completions().create(turn(1).build()))
          .failsWithin(10, TimeUnit.SECONDS).withThrowableThat()
          .havingCause().isInstanceOf(BadRequestException.class);
    }
  }
}
