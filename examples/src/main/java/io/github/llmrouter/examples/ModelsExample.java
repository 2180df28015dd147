package io.github.llmrouter.examples;

import io.github.llmrouter.LlmClient;
import io.github.llmrouter.api.ChatMessage;
import io.github.llmrouter.api.ChatRequest;
import io.github.llmrouter.api.ChatResponse;
import io.github.llmrouter.emulator.EmulatedReplica;
import io.github.llmrouter.observe.FleetSnapshot;
import io.github.llmrouter.replica.LoraAdapter;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * One client for a fleet of two models and two LoRA adapters, given as plain URLs: the client asks
 * each replica which models it serves ({@code GET /v1/models}) and sends every request to a
 * replica of its model. One adapter is loaded on a replica already; the client loads the other on
 * demand, on a replica of its base model, when the first call asks for it. The emulated replicas
 * answer as vLLM does: 404 for a model they do not serve, adapters listed with their base model.
 */
public final class ModelsExample {
  private ModelsExample() {}

  public static void main(String[] args) {
    System.out.print(run());
  }

  /**
   * Runs the example and returns what it prints: per model, the replicas that answered its calls
   * and the replicas the fleet view counts for it.
   */
  static String run() {
    try (EmulatedReplica small0 = vllm("small-0", "llama-8b");
        EmulatedReplica small1 = vllm("small-1", "llama-8b", "sql-lora"); // an adapter loaded
        EmulatedReplica big0 = vllm("big-0", "llama-70b");
        LlmClient client = LlmClient.builder()
            .replicas(small0.baseUrl(), small1.baseUrl(), big0.baseUrl()) // no models declared
            .loadAdaptersOnDemand(LoraAdapter.of("chat-lora", "llama-8b", "/adapters/chat"))
            .build()) {
      String[] models = {"llama-8b", "llama-70b", "sql-lora", "chat-lora"};
      Map<String, TreeSet<String>> answeredBy = new TreeMap<>();
      for (int i = 0; i < 40; i++) {
        String model = models[i % models.length];
        ChatResponse answer = client.chat(ChatRequest.builder(model)
            .message(ChatMessage.user("question " + i)).maxTokens(4).build());
        answeredBy.computeIfAbsent(model, m -> new TreeSet<>())
            .add(String.valueOf(answer.extra().get("x_emulated_replica")));
      }
      FleetSnapshot fleet = client.fleet();
      StringBuilder out = new StringBuilder();
      answeredBy.forEach((model, replicas) -> out.append(model).append(": answered by ")
          .append(String.join(", ", replicas)).append("; ")
          .append(fleet.forModel(model).replicas().size()).append(" replica(s) serve it\n"));
      return out.toString();
    }
  }

  /** A vLLM-like replica of {@code model}, with {@code adapters} loaded, room for eight. */
  private static EmulatedReplica vllm(String id, String model, String... adapters) {
    return EmulatedReplica.builder().id(id).model(model).rejectUnknownModels()
        .loraAdapters(8, adapters).build().start();
  }
}
