package com.example.openai;

import com.openai.client.OpenAIClient;
import com.openai.client.okhttp.OpenAIOkHttpClient;
import com.openai.models.chat.completions.ChatCompletion;
import com.openai.models.chat.completions.ChatCompletionCreateParams;
import io.github.llmrouter.LlmClient;
import io.github.llmrouter.api.ChatChunk;
import io.github.llmrouter.api.ChatMessage;
import io.github.llmrouter.api.ChatRequest;
import io.github.llmrouter.api.ChatResponse;
import io.github.llmrouter.api.ResponseStream;
import io.github.llmrouter.emulator.EmulatedReplica;
import java.util.concurrent.TimeUnit;

/**
 * openai-java and llm-router in one application, on one OkHttp: llm-router makes one blocking, one
 * asynchronous and one streamed routed call to two emulated replicas on loopback, and openai-java
 * calls one of them directly. Exits non-zero if any call fails.
 */
public final class Application {
  private Application() {}

  public static void main(String[] args) throws Exception {
    try (EmulatedReplica a = EmulatedReplica.builder().id("a").build().start();
        EmulatedReplica b = EmulatedReplica.builder().id("b").build().start();
        LlmClient client = LlmClient.builder().replicas(a.baseUrl(), b.baseUrl()).build()) {
      ChatRequest request = ChatRequest.builder(EmulatedReplica.DEFAULT_MODEL)
          .message(ChatMessage.user("Which replica holds my prefix?"))
          .build();
      ChatResponse blocking = client.chat(request);
      ChatResponse async = client.chatAsync(request).get(60, TimeUnit.SECONDS);
      StringBuilder streamed = new StringBuilder();
      try (ResponseStream<ChatChunk> stream = client.chatStream(request)) {
        for (ChatChunk chunk : stream) streamed.append(chunk.text());
      }
      String text = blocking.text();
      if (text == null || text.isEmpty() || !text.equals(async.text())
          || !text.equals(streamed.toString())) {
        throw new IllegalStateException("calls disagree: '" + text + "', '" + async.text()
            + "', '" + streamed + "'");
      }

      OpenAIClient openai = OpenAIOkHttpClient.builder()
          .baseUrl(a.baseUrl() + "/v1")
          .apiKey("not-used-by-the-emulated-replica")
          .build();
      try {
        ChatCompletion completion = openai.chat().completions().create(
            ChatCompletionCreateParams.builder()
                .model(EmulatedReplica.DEFAULT_MODEL)
                .addUserMessage("Which replica holds my prefix?")
                .build());
        String direct = completion.choices().get(0).message().content().orElse("");
        if (!direct.equals(text)) {
          throw new IllegalStateException("openai-java got '" + direct + "', llm-router '" + text
              + "'");
        }
      } finally {
        openai.close();
      }
      System.out.println("openai-java and llm-router on OkHttp "
          + okhttp3.OkHttp.class.getField("VERSION").get(null)
          + ", Java " + System.getProperty("java.version")
          + ": blocking, async and streaming calls routed (" + text + ")");
    }
  }
}
