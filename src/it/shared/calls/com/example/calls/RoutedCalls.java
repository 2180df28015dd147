package com.example.calls;

import io.github.llmrouter.LlmClient;
import io.github.llmrouter.api.ChatChunk;
import io.github.llmrouter.api.ChatMessage;
import io.github.llmrouter.api.ChatRequest;
import io.github.llmrouter.api.ChatResponse;
import io.github.llmrouter.api.ResponseStream;
import io.github.llmrouter.emulator.EmulatedReplica;
import java.util.concurrent.TimeUnit;

/**
 * What every consumer application checks: one blocking, one asynchronous and one streamed routed
 * call through the client, which must all return the emulated replicas' answer.
 */
public final class RoutedCalls {
  /** The prompt every call sends. */
  public static final String PROMPT = "Which replica holds my prefix?";

  private RoutedCalls() {}

  /**
   * Makes the three calls and returns the text they agreed on.
   *
   * @throws IllegalStateException if a call returned nothing or the calls disagree
   */
  public static String make(LlmClient client) throws Exception {
    ChatRequest request = ChatRequest.builder(EmulatedReplica.DEFAULT_MODEL)
        .message(ChatMessage.user(PROMPT))
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
      throw new IllegalStateException("calls disagree: '" + text + "', '" + async.text() + "', '"
          + streamed + "'");
    }
    return text;
  }
}
