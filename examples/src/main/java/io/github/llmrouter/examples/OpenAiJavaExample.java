package io.github.llmrouter.examples;

import com.openai.client.OpenAIClient;
import com.openai.core.http.StreamResponse;
import com.openai.models.chat.completions.ChatCompletion;
import com.openai.models.chat.completions.ChatCompletionChunk;
import com.openai.models.chat.completions.ChatCompletionCreateParams;
import io.github.llmrouter.LlmClient;
import io.github.llmrouter.emulator.EmulatedReplica;
import io.github.llmrouter.openai.LlmRouterOpenAI;

/**
 * openai-java routed by llm-router: an {@code OpenAIClient} whose every request goes to the best
 * of three emulated replicas, a chat completion and then a streamed one of the same conversation.
 */
public final class OpenAiJavaExample {
  private OpenAiJavaExample() {}

  public static void main(String[] args) {
    System.out.print(run());
  }

  /** Runs the example and returns what it prints: two lines, each naming the answer's replica. */
  static String run() {
    try (EmulatedReplica a = EmulatedReplica.builder().id("a").build().start();
        EmulatedReplica b = EmulatedReplica.builder().id("b").build().start();
        EmulatedReplica c = EmulatedReplica.builder().id("c").build().start();
        LlmClient router = LlmClient.builder()
            .replicas(a.baseUrl(), b.baseUrl(), c.baseUrl())
            .build()) {
      OpenAIClient openai = LlmRouterOpenAI.client(router);   // the line it takes
      ChatCompletionCreateParams first = ChatCompletionCreateParams.builder()
          .model("emulated-model")
          .addSystemMessage("You are a support agent for ACME routers.")
          .addUserMessage("How do I reset my router?")
          .maxCompletionTokens(8)
          .build();
      ChatCompletion answer = openai.chat().completions().create(first);
      String text = answer.choices().get(0).message().content().orElse("");

      ChatCompletionCreateParams second = first.toBuilder()
          .addAssistantMessage(text)
          .addUserMessage("And how do I update its firmware?")
          .build();
      StringBuilder streamed = new StringBuilder();
      try (StreamResponse<ChatCompletionChunk> stream =
          openai.chat().completions().createStreaming(second)) {
        stream.stream().forEach(chunk -> chunk.choices()
            .forEach(choice -> choice.delta().content().ifPresent(streamed::append)));
      }
      return "chat: " + text + "\nstreamed: " + streamed + "\n";
    }
  }
}
