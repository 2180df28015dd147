package io.github.llmrouter;

import io.github.llmrouter.api.ChatMessage;
import io.github.llmrouter.api.ChatRequest;
import io.github.llmrouter.dispatch.RetryPolicy;
import io.github.llmrouter.load.LoadMonitoring;
import io.github.llmrouter.routing.RoutingPolicy;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import mockwebserver3.MockResponse;
import mockwebserver3.MockWebServer;

/** Shared request and response bodies for client tests. */
final class Fixtures {
  private Fixtures() {}

  static final String CHAT_JSON = "{\"id\":\"chatcmpl-1\",\"object\":\"chat.completion\","
      + "\"created\":1700000000,\"model\":\"m\",\"choices\":[{\"index\":0,\"message\":"
      + "{\"role\":\"assistant\",\"content\":\"hello\",\"reasoning_content\":\"hmm\"},"
      + "\"finish_reason\":\"stop\",\"logprobs\":null}],\"usage\":{\"prompt_tokens\":12,"
      + "\"completion_tokens\":3,\"total_tokens\":15,\"prompt_tokens_details\":"
      + "{\"cached_tokens\":8}},\"system_fingerprint\":\"fp\",\"kv_transfer_params\":{\"x\":[1,2]}}";

  static ChatRequest chat(String userText) {
    return ChatRequest.builder("m")
        .message(ChatMessage.system("be brief"))
        .message(ChatMessage.user(userText))
        .build();
  }

  /** {@return which emulated replica answered {@code r} (its {@code x_emulated_replica} field)} */
  static String answeredBy(io.github.llmrouter.api.ChatResponse r) {
    return String.valueOf(r.extra().get("x_emulated_replica"));
  }

  static MockResponse ok(String json) {
    return new MockResponse.Builder().code(200).setHeader("Content-Type", "application/json")
        .body(json).build();
  }

  static MockResponse status(int code) {
    return new MockResponse.Builder().code(code).body("{\"error\":{\"message\":\"nope\"}}").build();
  }

  static MockResponse sse(String body) {
    return new MockResponse.Builder().code(200).setHeader("Content-Type", "text/event-stream")
        .body(body).build();
  }

  static String chunk(String text) {
    return "data: {\"id\":\"c\",\"object\":\"chat.completion.chunk\",\"choices\":[{\"index\":0,"
        + "\"delta\":{\"content\":\"" + text + "\"},\"finish_reason\":null}]}\n\n";
  }

  static String finalChunk() {
    return "data: {\"id\":\"c\",\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}]}\n\n";
  }

  /**
   * A client of scripted replicas, each started on loopback: round robin from the first, so the
   * order of attempts is obvious; retries at once; no load reports and no model listings (every
   * exchange is scripted).
   */
  static LlmClientBuilder scripted(MockWebServer... servers) throws IOException {
    LlmClientBuilder b = LlmClient.builder().routingPolicy(RoutingPolicy.roundRobin())
        .retryPolicy(RetryPolicy.builder().initialBackoff(Duration.ZERO)
            .maxBackoff(Duration.ZERO).build())
        .loadMonitoring(LoadMonitoring.disabled()).modelDiscoveryInterval(Duration.ZERO);
    for (MockWebServer s : servers) {
      s.start(InetAddress.getLoopbackAddress(), 0);
      b.replicas(s.url("/").toString());
    }
    return b;
  }

  /**
   * A loopback URL on which nothing listens, and nothing can: the port stays bound to a socket
   * that never listens (connecting to it is refused) until the test JVM exits, so no other server
   * can take it meanwhile.
   */
  static String closedPortUrl() throws IOException {
    Socket holder = new Socket();
    holder.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
    HELD_PORTS.add(holder);
    return "http://127.0.0.1:" + holder.getLocalPort();
  }

  private static final List<Socket> HELD_PORTS = new CopyOnWriteArrayList<>();
}
