import io.github.llmrouter.LlmClient;
import io.github.llmrouter.api.ChatChunk;
import io.github.llmrouter.api.ChatMessage;
import io.github.llmrouter.api.ChatRequest;
import io.github.llmrouter.api.ChatResponse;
import io.github.llmrouter.api.ResponseStream;
import java.util.Arrays;

public class QuickStart {
  // java QuickStart MODEL BASE_URL...
  // e.g. java QuickStart meta-llama/Llama-3.1-8B-Instruct http://10.0.0.7:8000 http://10.0.0.8:8000
  public static void main(String[] args) {
    String model = args[0];
    String[] replicas = Arrays.copyOfRange(args, 1, args.length);

    // One client per application: thread-safe, holds the connection pools; close it on shutdown.
    try (LlmClient client = LlmClient.builder().replicas(replicas).build()) {
      ChatRequest request = ChatRequest.builder(model)
          .message(ChatMessage.system("You are a concise assistant."))
          .message(ChatMessage.user("What does a KV cache store?"))
          .maxTokens(64)
          .build();

      // Blocking: routed to the replica most likely to hold this prompt's prefix in its cache.
      ChatResponse response = client.chat(request);
      System.out.println("blocking:  " + response.text());

      // Asynchronous: never blocks the calling thread.
      client.chatAsync(request)
          .thenAccept(r -> System.out.println("async:     " + r.text()))
          .join();

      // Streaming: returned once the first token has arrived; close it to free the connection.
      try (ResponseStream<ChatChunk> stream = client.chatStream(request)) {
        System.out.print("streaming: ");
        for (ChatChunk chunk : stream) System.out.print(chunk.text());
        System.out.println();
      }
    }
  }
}
