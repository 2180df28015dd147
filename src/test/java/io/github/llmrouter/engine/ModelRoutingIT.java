package io.github.llmrouter.engine;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.llmrouter.LlmClient;
import io.github.llmrouter.api.ChatMessage;
import io.github.llmrouter.api.ChatRequest;
import io.github.llmrouter.api.ChatResponse;
import io.github.llmrouter.replica.Replica;
import io.github.llmrouter.testing.EventRecorder;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A fleet of two models on llama.cpp: two servers run model {@code alpha}, one {@code beta}
 * ({@code --alias}); llama.cpp's server answers a request for any model with its own, so only
 * routing by the models the replicas declare keeps each call on a server of its model.
 */
@Timeout(value = 5, unit = TimeUnit.MINUTES)
class ModelRoutingIT {
  private final List<LlamaServers.Server> servers = new ArrayList<>();

  @AfterEach
  void stop() {
    servers.forEach(LlamaServers.Server::close);
  }

  @Test
  void everyCallIsAnsweredByAServerOfItsModel() {
    LlamaServers.engine();
    servers.add(LlamaServers.Server.start("alpha0", "--alias", "alpha"));
    servers.add(LlamaServers.Server.start("alpha1", "--alias", "alpha"));
    servers.add(LlamaServers.Server.start("beta0", "--alias", "beta"));
    List<Replica> fleet = new ArrayList<>();
    for (LlamaServers.Server s : servers) {
      fleet.add(Replica.builder(s.baseUrl()).id(s.name).model(s.name.substring(0, s.name.length() - 1))
          .build());
    }
    EventRecorder events = new EventRecorder();
    int wrong = 0;
    try (LlmClient client = LlmClient.builder().replicas(fleet).listener(events).build()) {
      for (int i = 0; i < 60; i++) {
        String model = i % 2 == 0 ? "alpha" : "beta";
        ChatResponse answer = client.chat(ChatRequest.builder(model)
            .message(ChatMessage.user("call " + i)).maxTokens(4).build());
        if (!model.equals(answer.model())) wrong++;
      }
    }
    assertThat(wrong).as("calls answered by a server of the other model").isZero();
    assertThat(events.failedCalls).isEmpty();
    assertThat(events.ended).allSatisfy(e ->
        assertThat(e.replicaId()).startsWith(e.model()));
    System.out.printf(Locale.ROOT, "two models on llama.cpp: 60 calls, %d answered by the other "
        + "model, %d failed%n", wrong, events.failedCalls.size());
  }
}
