package io.github.llmrouter;

import static io.github.llmrouter.Fixtures.CHAT_JSON;
import static io.github.llmrouter.Fixtures.chat;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.github.llmrouter.api.ChatResponse;
import io.github.llmrouter.api.CompletionRequest;
import io.github.llmrouter.api.EmbeddingRequest;
import io.github.llmrouter.api.FailedAttempt;
import io.github.llmrouter.api.MalformedResponseException;
import io.github.llmrouter.api.RetriesExhaustedException;
import io.github.llmrouter.dispatch.RetryPolicy;
import io.github.llmrouter.load.LoadMonitoring;
import io.github.llmrouter.testing.ScriptedServer;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A 200 whose body is {@code null}, {@code {}} or the wrong shape for its endpoint is a malformed
 * answer: a replica failure that fails over like any other. No call returns null.
 */
class MalformedAnswersTest {
  private static final RetryPolicy FAST = RetryPolicy.builder().initialBackoff(Duration.ZERO)
      .maxBackoff(Duration.ZERO).build();

  private static final Map<String, String> JSON = Map.of("Content-Type", "application/json");

  private final ScriptedServer bad = new ScriptedServer();
  private final ScriptedServer good = new ScriptedServer();

  @BeforeEach
  void start() {
    good.answer(200, JSON, CHAT_JSON);
  }

  @AfterEach
  void stop() {
    bad.close();
    good.close();
  }

  private LlmClient client(ScriptedServer... servers) {
    LlmClientBuilder b = LlmClient.builder().retryPolicy(FAST)
        .loadMonitoring(LoadMonitoring.disabled());
    for (ScriptedServer s : servers) b.replicas(s.url());
    return b.build();
  }

  @ParameterizedTest
  @ValueSource(strings = {"null", "{}", "{\"choices\":null}", "{\"choices\":[]}",
      "{\"choices\":[null]}", "{\"object\":\"chat.completion\",\"data\":[]}", "[]", "\"ok\"", "42",
      ""})
  void aMalformedAnswerFailsOverAndNoCallReturnsNull(String body) throws Exception {
    bad.answer(200, JSON, body);
    try (LlmClient client = client(bad, good)) {
      for (int i = 0; i < 20; i++) {
        ChatResponse sync = client.chat(chat("question " + i));
        assertThat(sync).isNotNull();
        assertThat(sync.text()).isEqualTo("hello");
        ChatResponse async = client.chatAsync(chat("async " + i)).get(10, TimeUnit.SECONDS);
        assertThat(async).isNotNull();
        assertThat(async.text()).isEqualTo("hello");
      }
    }
    assertThat(bad.requests()).as("the bad replica was asked").isPositive();
  }

  @ParameterizedTest
  @ValueSource(strings = {"null", "{}", "{\"choices\":[]}"})
  void aFleetOfMalformedAnswersGivesUpWithTheMalformedAttempts(String body) {
    bad.answer(200, JSON, body);
    try (LlmClient client = client(bad)) {
      assertThatThrownBy(() -> client.chat(chat("x")))
          .isInstanceOfSatisfying(RetriesExhaustedException.class, e -> assertThat(e.attempts())
              .hasSize(3).extracting(FailedAttempt::failure)
              .allSatisfy(f -> assertThat(f).isInstanceOfSatisfying(
                  MalformedResponseException.class, m -> {
                    assertThat(m.replicaId()).isEqualTo(client.replicas().get(0).id());
                    assertThat(m.isRetryable()).isTrue();
                    assertThat(m.getMessage()).startsWith(
                        "replica " + m.replicaId() + " sent a malformed JSON body");
                  })));
      assertThatThrownBy(() -> client.chatAsync(chat("x")).get(10, TimeUnit.SECONDS))
          .isInstanceOf(ExecutionException.class)
          .hasCauseInstanceOf(RetriesExhaustedException.class);
    }
  }

  @ParameterizedTest
  @ValueSource(strings = {"{}", "{\"object\":\"list\"}", "{\"data\":null}", "null"})
  void embeddingsWithoutDataAndCompletionsWithoutChoicesAreMalformed(String body) {
    bad.answer(200, JSON, body);
    try (LlmClient client = client(bad)) {
      assertThatThrownBy(() -> client.embeddings(
          EmbeddingRequest.builder("e", List.of("a")).build()))
          .isInstanceOf(RetriesExhaustedException.class)
          .hasCauseInstanceOf(MalformedResponseException.class);
      assertThatThrownBy(() -> client.completion(CompletionRequest.builder("m", "p").build()))
          .isInstanceOf(RetriesExhaustedException.class)
          .hasCauseInstanceOf(MalformedResponseException.class);
    }
  }
}
