package io.github.llmrouter.examples;

import dev.langchain4j.data.message.SystemMessage;
import dev.langchain4j.data.message.UserMessage;
import dev.langchain4j.model.chat.ChatModel;
import dev.langchain4j.model.chat.StreamingChatModel;
import dev.langchain4j.model.chat.response.ChatResponse;
import dev.langchain4j.model.chat.response.StreamingChatResponseHandler;
import dev.langchain4j.model.openai.OpenAiChatModel;
import dev.langchain4j.model.openai.OpenAiStreamingChatModel;
import io.github.llmrouter.LlmClient;
import io.github.llmrouter.emulator.EmulatedReplica;
import io.github.llmrouter.langchain4j.LlmRouterLangChain4j;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * LangChain4j's OpenAI models routed by llm-router: a chat model and a streaming chat model whose
 * requests go to the best of three emulated replicas.
 */
public final class LangChain4jExample {
  private LangChain4jExample() {}

  public static void main(String[] args) throws Exception {
    System.out.print(run());
  }

  /** Runs the example and returns what it prints: the blocking answer, then the streamed one. */
  static String run() throws InterruptedException, ExecutionException, TimeoutException {
    try (EmulatedReplica a = EmulatedReplica.builder().id("a").build().start();
        EmulatedReplica b = EmulatedReplica.builder().id("b").build().start();
        EmulatedReplica c = EmulatedReplica.builder().id("c").build().start();
        LlmClient router = LlmClient.builder()
            .replicas(a.baseUrl(), b.baseUrl(), c.baseUrl())
            .build()) {
      ChatModel model = OpenAiChatModel.builder()
          .httpClientBuilder(LlmRouterLangChain4j.httpClientBuilder(router))  // routed
          .baseUrl("http://llm-router/v1").apiKey("unused").modelName("emulated-model")
          .maxRetries(0)                                                       // the router retries
          .maxTokens(8)
          .build();
      StreamingChatModel streaming = OpenAiStreamingChatModel.builder()
          .httpClientBuilder(LlmRouterLangChain4j.httpClientBuilder(router))
          .baseUrl("http://llm-router/v1").apiKey("unused").modelName("emulated-model")
          .maxTokens(8)
          .build();

      SystemMessage system = SystemMessage.from("You are a support agent for ACME routers.");
      String answer = model.chat(List.of(system, UserMessage.from("How do I reset my router?")))
          .aiMessage().text();

      CompletableFuture<ChatResponse> streamed = new CompletableFuture<>();
      streaming.chat(List.of(system, UserMessage.from("How do I update its firmware?")),
          new StreamingChatResponseHandler() {
            @Override
            public void onPartialResponse(String partial) {
              // each token as it arrives
            }

            @Override
            public void onCompleteResponse(ChatResponse response) {
              streamed.complete(response);
            }

            @Override
            public void onError(Throwable error) {
              streamed.completeExceptionally(error);
            }
          });
      return "chat: " + answer + "\nstreamed: "
          + streamed.get(30, TimeUnit.SECONDS).aiMessage().text() + "\n";
    }
  }
}
