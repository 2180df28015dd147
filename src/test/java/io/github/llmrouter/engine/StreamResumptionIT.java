package io.github.llmrouter.engine;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.llmrouter.LlmClient;
import io.github.llmrouter.api.ChatChunk;
import io.github.llmrouter.api.ChatMessage;
import io.github.llmrouter.api.ChatRequest;
import io.github.llmrouter.api.ResponseStream;
import io.github.llmrouter.api.Usage;
import io.github.llmrouter.routing.RoutingPolicy;
import io.github.llmrouter.testing.EventRecorder;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Streams cut by a replica killed with SIGKILL continue on the others: against three real
 * llama.cpp servers of their own (one of them is killed), twenty streams of 200 tokens with greedy
 * sampling, one client shared by twenty callers.
 */
@Timeout(value = 5, unit = TimeUnit.MINUTES)
class StreamResumptionIT {
  private static final int STREAMS = 20;
  private static final int MAX_TOKENS = 200;
  private final List<LlamaServers.Server> servers = new ArrayList<>();
  private final ExecutorService callers = Executors.newFixedThreadPool(STREAMS);

  @AfterEach
  void stop() throws InterruptedException {
    callers.shutdownNow();
    callers.awaitTermination(30, TimeUnit.SECONDS);
    servers.forEach(LlamaServers.Server::close);
  }

  /** What one caller read. */
  private static final class Read {
    final List<String> texts = new CopyOnWriteArrayList<>();
    /** The number of chunks read before the stream was first continued, or -1. */
    volatile int resumedAt = -1;
    volatile @Nullable String firstReplica;
    volatile @Nullable String finishReason;
    volatile @Nullable Usage usage;
    volatile int resumptions;
    @Nullable ChatRequest request;
    @Nullable String reference;
  }

  @Test
  void streamsCutBySigkillOfTheirReplicaEndAsOneAnswerEach() throws Exception {
    servers.addAll(LlamaServers.start(3, "k"));
    LlamaServers.Server victim = servers.get(0);
    List<Read> reads = new ArrayList<>();
    List<CompletableFuture<Void>> done = new ArrayList<>();
    try (LlmClient client = LlmClient.builder().replicas(LlamaServers.replicas(servers))
        .routingPolicy(RoutingPolicy.roundRobin()).build()) {
      for (int i = 0; i < STREAMS; i++) {
        Read read = new Read();
        reads.add(read);
        ChatRequest request = ChatRequest.builder("tiny").temperature(0)
            .message(ChatMessage.system("You are a test."))
            .message(ChatMessage.user("stream " + i + ": tell me a long story")).maxTokens(MAX_TOKENS)
            .build();
        read.request = request;
        done.add(CompletableFuture.runAsync(() -> {
          try (ResponseStream<ChatChunk> stream = client.chatStream(request)) {
            read.firstReplica = stream.replicaId();
            for (ChatChunk c : stream) {
              if (read.resumedAt < 0 && stream.resumptions() > 0) read.resumedAt = read.texts.size();
              read.texts.add(c.text());
              if (c.finishReason() != null) read.finishReason = c.finishReason();
              if (c.usage() != null) read.usage = c.usage();
            }
            read.resumptions = stream.resumptions();
          }
        }, callers));
      }
      EventRecorder.await("a stream on the victim partway through", Duration.ofSeconds(120),
          () -> reads.stream().anyMatch(r -> victim.name.equals(r.firstReplica)
              && r.texts.size() >= 20));
      victim.close(); // SIGKILL
      CompletableFuture.allOf(done.toArray(new CompletableFuture<?>[0])).get(4, TimeUnit.MINUTES);
      // Greedy sampling on replicas of one model: an uninterrupted answer, for comparison.
      for (Read r : reads) {
        if (r.resumptions > 0) {
          r.reference = client.chat(r.request.toBuilder().build()).text();
        }
      }
    }

    int resumed = 0;
    int whole = 0;
    int same = 0;
    for (Read r : reads) {
      assertThat(r.finishReason).as("every stream ends with a finish reason").isNotNull();
      assertThat(r.usage).isNotNull();
      assertThat(r.usage.completionTokens()).as("both parts within max_tokens")
          .isLessThanOrEqualTo(MAX_TOKENS);
      if (r.resumptions == 0) continue;
      resumed++;
      String before = String.join("", r.texts.subList(0, r.resumedAt));
      String after = String.join("", r.texts.subList(r.resumedAt, r.texts.size()));
      assertThat(before).isNotEmpty();
      assertThat(after).as("no repeated prefix").doesNotStartWith(before);
      if (r.usage.completionTokens() == MAX_TOKENS) whole++;
      if ((before + after).equals(r.reference)) same++;
    }
    assertThat(resumed).as("streams cut by the kill").isPositive();
    System.out.printf(Locale.ROOT, "SIGKILL mid-stream: %d streams of %d tokens, %d resumed, "
        + "0 exceptions, %d of the resumed ended with all %d tokens, %d equal to an uninterrupted "
        + "answer%n", STREAMS, MAX_TOKENS, resumed, whole, MAX_TOKENS, same);
  }
}
