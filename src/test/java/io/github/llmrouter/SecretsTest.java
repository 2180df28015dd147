package io.github.llmrouter;

import io.github.llmrouter.load.LoadMonitoring;
import static io.github.llmrouter.Fixtures.chat;
import static org.assertj.core.api.Assertions.assertThat;

import io.github.llmrouter.dispatch.RetryPolicy;
import io.github.llmrouter.observe.AttemptFailedEvent;
import io.github.llmrouter.observe.RoutingListener;
import io.github.llmrouter.replica.Replica;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import mockwebserver3.MockWebServer;
import org.junit.jupiter.api.Test;

/** The API key, replica header values and prompt text never appear in logs, messages or toString. */
class SecretsTest {
  private static final String KEY = "sk-very-secret-123";
  private static final String HEADER_SECRET = "tenant-token-456";
  private static final String PROMPT = "my confidential prompt";

  @Test
  void secretsStayOutOfToStringMessagesAndLogs() throws Exception {
    PrintStream originalErr = System.err;
    ByteArrayOutputStream captured = new ByteArrayOutputStream();
    List<String> texts = new ArrayList<>();
    try (MockWebServer server = new MockWebServer()) {
      server.start(InetAddress.getLoopbackAddress(), 0);
      server.enqueue(Fixtures.status(500));
      server.enqueue(Fixtures.status(500));
      System.setErr(new PrintStream(captured, true, StandardCharsets.UTF_8));
      Replica replica = Replica.builder(server.url("/").toString())
          .header("X-Tenant-Token", HEADER_SECRET).build();
      LlmClientBuilder builder = LlmClient.builder().replica(replica).apiKey(KEY)
          .loadMonitoring(LoadMonitoring.disabled()).modelDiscoveryInterval(Duration.ZERO)
          .retryPolicy(RetryPolicy.builder().maxAttempts(2).initialBackoff(Duration.ZERO)
              .maxBackoff(Duration.ZERO).build())
          .listener(new RoutingListener() {
            @Override
            public void onAttemptFailed(AttemptFailedEvent e) {
              texts.add(e.toString());
              throw new IllegalStateException("listener bug"); // logged, must not leak secrets
            }
          });
      texts.add(builder.toString());
      try (LlmClient client = builder.build()) {
        texts.add(client.toString());
        texts.add(replica.toString());
        texts.add(chat(PROMPT).toString());
        try {
          client.chat(chat(PROMPT));
        } catch (RuntimeException e) {
          for (Throwable t = e; t != null; t = t.getCause()) {
            texts.add(t.toString());
            for (Throwable s : t.getSuppressed()) texts.add(s.toString());
          }
        }
      }
    } finally {
      System.setErr(originalErr);
    }
    texts.add(captured.toString(StandardCharsets.UTF_8));

    assertThat(texts).hasSizeGreaterThan(5).allSatisfy(text -> assertThat(text)
        .doesNotContain(KEY).doesNotContain(HEADER_SECRET).doesNotContain(PROMPT));
    assertThat(texts.get(texts.size() - 1)).contains("threw in onAttemptFailed");
  }
}
