package io.github.llmrouter;

import static io.github.llmrouter.Fixtures.CHAT_JSON;
import static io.github.llmrouter.Fixtures.chat;
import static io.github.llmrouter.Fixtures.chunk;
import static io.github.llmrouter.Fixtures.finalChunk;
import static io.github.llmrouter.Fixtures.ok;
import static io.github.llmrouter.Fixtures.sse;
import static io.github.llmrouter.Fixtures.status;
import static org.assertj.core.api.Assertions.assertThat;

import io.github.llmrouter.api.ChatChunk;
import io.github.llmrouter.api.ResponseStream;
import io.github.llmrouter.dispatch.RetryPolicy;
import io.github.llmrouter.load.LoadMonitoring;
import io.github.llmrouter.load.LoadView;
import io.github.llmrouter.observe.RoutedEvent;
import io.github.llmrouter.observe.RoutingListener;
import io.github.llmrouter.replica.ReplicaSet;
import io.github.llmrouter.routing.Ranking;
import io.github.llmrouter.routing.ReplicaPicker;
import io.github.llmrouter.routing.RoutedAttempt;
import io.github.llmrouter.routing.RoutingPolicy;
import io.github.llmrouter.routing.RoutingRequest;
import java.net.InetAddress;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;
import mockwebserver3.MockWebServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The client tells the policy what became of every attempt it ranked (first token, prompt and
 * cached tokens, failure), and the routed event carries the policy's predictions.
 */
class RoutingFeedbackTest {
  private final MockWebServer first = new MockWebServer();
  private final MockWebServer second = new MockWebServer();
  private final AtomicLong now = new AtomicLong(1_000_000_000L);
  private final List<String> outcomes = new CopyOnWriteArrayList<>();
  private final List<RoutedEvent> routed = new CopyOnWriteArrayList<>();
  private LlmClient client;

  @BeforeEach
  void start() throws Exception {
    first.start(InetAddress.getLoopbackAddress(), 0);
    second.start(InetAddress.getLoopbackAddress(), 0);
    client = LlmClient.builder()
        .replicas(first.url("/").toString(), second.url("/").toString())
        .routingPolicy(new Recording())
        .retryPolicy(RetryPolicy.builder().initialBackoff(Duration.ZERO)
            .maxBackoff(Duration.ZERO).build())
        .ticker(now::get)
        .listener(new RoutingListener() {
          @Override
          public void onRouted(RoutedEvent event) {
            routed.add(event);
          }
        })
        .loadMonitoring(LoadMonitoring.disabled())
        .modelDiscoveryInterval(Duration.ZERO) // every exchange is scripted
        .build();
  }

  @AfterEach
  void stop() {
    client.close();
    first.close();
    second.close();
  }

  @Test
  void anAnswersUsageWithCachedTokensReachesThePolicy() {
    first.enqueue(ok(CHAT_JSON));

    client.chat(chat("hi"));

    assertThat(outcomes).containsExactly("sent 0 whole", "completed 12 prompt, 8 cached");
  }

  @Test
  void aStreamReportsItsFirstTokenAndTheUsageOfItsLastChunk() {
    first.enqueue(sse(chunk("Hel") + chunk("lo") + finalChunk()
        + "data: {\"id\":\"c\",\"choices\":[],\"usage\":{\"prompt_tokens\":40,"
        + "\"completion_tokens\":2,\"total_tokens\":42,"
        + "\"prompt_tokens_details\":{\"cached_tokens\":32}}}\n\ndata: [DONE]\n\n"));

    try (ResponseStream<ChatChunk> stream = client.chatStream(chat("hi"))) {
      for (ChatChunk ignored : stream) {
        // read to the end
      }
    }

    assertThat(outcomes).containsExactly("sent 0 streamed", "first token",
        "completed 40 prompt, 32 cached");
  }

  @Test
  void anAnswerWithoutUsageReportsUnknownCounts() {
    first.enqueue(ok("{\"id\":\"x\",\"choices\":[{\"index\":0,\"message\":{\"role\":\"assistant\","
        + "\"content\":\"hi\"},\"finish_reason\":\"stop\"}]}"));

    client.chat(chat("hi"));

    assertThat(outcomes).containsExactly("sent 0 whole", "completed -1 prompt, -1 cached");
  }

  @Test
  void aUsageWithoutPromptTokensReportsThemUnknown() {
    first.enqueue(ok("{\"id\":\"x\",\"choices\":[{\"index\":0,\"message\":{\"role\":\"assistant\","
        + "\"content\":\"hi\"},\"finish_reason\":\"stop\"}],\"usage\":{\"completion_tokens\":1,"
        + "\"total_tokens\":1,\"prompt_tokens_details\":{\"cached_tokens\":0}}}"));

    client.chat(chat("hi"));

    assertThat(outcomes).containsExactly("sent 0 whole", "completed -1 prompt, 0 cached");
  }

  @Test
  void aCompletionsUsageReachesThePolicy() {
    first.enqueue(ok("{\"id\":\"cmpl-1\",\"object\":\"text_completion\",\"model\":\"m\","
        + "\"choices\":[{\"index\":0,\"text\":\"hi\",\"finish_reason\":\"stop\"}],"
        + "\"usage\":{\"prompt_tokens\":20,\"completion_tokens\":1,\"total_tokens\":21,"
        + "\"prompt_tokens_details\":{\"cached_tokens\":16}}}"));

    client.completion(io.github.llmrouter.api.CompletionRequest.builder("m", "say hi").build());

    assertThat(outcomes).containsExactly("sent 0 whole", "completed 20 prompt, 16 cached");
  }

  @Test
  void anEmbeddingsUsageReachesThePolicy() {
    first.enqueue(ok("{\"object\":\"list\",\"model\":\"m\",\"data\":[{\"object\":\"embedding\","
        + "\"index\":0,\"embedding\":[0.5,0.25]}],\"usage\":{\"prompt_tokens\":5,"
        + "\"total_tokens\":5}}"));

    client.embeddings(io.github.llmrouter.api.EmbeddingRequest.builder("m", List.of("hi")).build());

    assertThat(outcomes).containsExactly("sent 0 whole", "completed 5 prompt, -1 cached");
  }

  @Test
  void aFailedAttemptIsReportedAndTheFailoverAttemptLearntFrom() {
    first.enqueue(status(503));
    second.enqueue(ok(CHAT_JSON));

    client.chat(chat("hi"));

    assertThat(outcomes).containsExactly("sent 0 whole", "failed", "sent 1 whole",
        "completed 12 prompt, 8 cached");
  }

  @Test
  void theRoutedEventCarriesThePolicysPredictions() {
    first.enqueue(ok(CHAT_JSON));

    client.chat(chat("hi"));

    RoutedEvent event = routed.get(0);
    assertThat(event.predictedCachedTokens()).isEqualTo(8);
    assertThat(event.estimatedWait()).isEqualTo(Duration.ofMillis(250));
    assertThat(event.versusRunnerUp()).isEqualTo("replica 0 beat replica 1");
  }

  /** Ranks replicas in snapshot order and records what it is told. */
  private final class Recording implements RoutingPolicy {
    @Override
    public ReplicaPicker newPicker(ReplicaSet replicas) {
      return (RoutingRequest request, LoadView load) -> new Ranking() {
        private int next;

        @Override
        public int next() {
          return next < replicas.size() ? next++ : -1;
        }

        @Override
        public String reason() {
          return "in order";
        }

        @Override
        public long predictedCachedTokens() {
          return 8;
        }

        @Override
        public double estimatedWaitSeconds() {
          return 0.25;
        }

        @Override
        public String versusRunnerUp() {
          return "replica " + (next - 1) + " beat replica " + next;
        }

        @Override
        public RoutedAttempt sent(int index, long nanos, boolean streamed) {
          outcomes.add("sent " + index + (streamed ? " streamed" : " whole"));
          return new RoutedAttempt() {
            @Override
            public void firstToken(long at) {
              outcomes.add("first token");
            }

            @Override
            public void completed(long promptTokens, long cachedTokens, long at) {
              outcomes.add("completed " + promptTokens + " prompt, " + cachedTokens + " cached");
            }

            @Override
            public void failed(long at) {
              outcomes.add("failed");
            }
          };
        }
      };
    }
  }
}
