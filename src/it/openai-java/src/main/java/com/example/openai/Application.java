package com.example.openai;

import com.example.calls.RoutedCalls;
import com.openai.client.OpenAIClient;
import com.openai.client.okhttp.OpenAIOkHttpClient;
import com.openai.core.http.StreamResponse;
import com.openai.models.chat.completions.ChatCompletion;
import com.openai.models.chat.completions.ChatCompletionChunk;
import com.openai.models.chat.completions.ChatCompletionCreateParams;
import io.github.llmrouter.LlmClient;
import io.github.llmrouter.emulator.EmulatedReplica;
import io.github.llmrouter.openai.LlmRouterOpenAI;

/**
 * openai-java and llm-router in one application, on one OkHttp: llm-router makes the routed calls
 * to two emulated replicas on loopback, openai-java calls one of them directly, and then calls
 * through llm-router ({@code LlmRouterOpenAI}), a chat completion and a stream. Exits non-zero if
 * any call fails.
 */
public final class Application {
  private Application() {}

  public static void main(String[] args) throws Exception {
    try (EmulatedReplica a = EmulatedReplica.builder().id("a").build().start();
        EmulatedReplica b = EmulatedReplica.builder().id("b").build().start();
        LlmClient client = LlmClient.builder().replicas(a.baseUrl(), b.baseUrl()).build()) {
      String text = RoutedCalls.make(client);

      OpenAIClient openai = OpenAIOkHttpClient.builder()
          .baseUrl(a.baseUrl() + "/v1")
          .apiKey("not-used-by-the-emulated-replica")
          .build();
      try {
        ChatCompletion completion = openai.chat().completions().create(
            ChatCompletionCreateParams.builder()
                .model(EmulatedReplica.DEFAULT_MODEL)
                .addUserMessage(RoutedCalls.PROMPT)
                .build());
        String direct = completion.choices().get(0).message().content().orElse("");
        if (!direct.equals(text)) {
          throw new IllegalStateException("openai-java got '" + direct + "', llm-router '" + text
              + "'");
        }
      } finally {
        openai.close();
      }

      OpenAIClient routed = LlmRouterOpenAI.client(client);
      ChatCompletionCreateParams params = ChatCompletionCreateParams.builder()
          .model(EmulatedReplica.DEFAULT_MODEL)
          .addUserMessage(RoutedCalls.PROMPT)
          .build();
      String viaRouter = routed.chat().completions().create(params).choices().get(0).message()
          .content().orElse("");
      StringBuilder streamed = new StringBuilder();
      try (StreamResponse<ChatCompletionChunk> stream =
          routed.chat().completions().createStreaming(params)) {
        stream.stream().forEach(chunk -> chunk.choices()
            .forEach(choice -> choice.delta().content().ifPresent(streamed::append)));
      }
      if (!viaRouter.equals(text) || !streamed.toString().equals(text)) {
        throw new IllegalStateException("openai-java through llm-router got '" + viaRouter
            + "' and streamed '" + streamed + "', llm-router '" + text + "'");
      }
      System.out.println("openai-java and llm-router on OkHttp "
          + okhttp3.OkHttp.class.getField("VERSION").get(null)
          + ", Java " + System.getProperty("java.version")
          + ": blocking, async and streaming calls routed, openai-java's too (" + text + ")");
    }
  }
}
