package io.github.llmrouter;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.llmrouter.api.ChatMessage;
import io.github.llmrouter.api.ChatRequest;
import io.github.llmrouter.api.CompletionRequest;
import io.github.llmrouter.api.EmbeddingRequest;
import io.github.llmrouter.api.ReplicaHttpException;
import io.github.llmrouter.api.ResponseStream;
import io.github.llmrouter.dispatch.CircuitBreakerPolicy;
import io.github.llmrouter.dispatch.RetryPolicy;
import io.github.llmrouter.load.LoadMonitoring;
import io.github.llmrouter.replica.OutlierDetection;
import io.github.llmrouter.replica.Replica;
import io.github.llmrouter.testing.EventRecorder;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.InetAddress;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import java.util.stream.Stream;
import mockwebserver3.Dispatcher;
import mockwebserver3.MockResponse;
import mockwebserver3.MockWebServer;
import mockwebserver3.RecordedRequest;
import okhttp3.Headers;
import org.junit.jupiter.api.Test;

/**
 * A server that echoes every request header and the body in its error page, in the forms servers
 * and gateways use (as sent, JSON-escaped, URL-encoded, HTML-escaped, wrapped), for every operation
 * and every error status the client maps: neither the API key nor a replica's header value reaches
 * an exception's message, {@code toString}, stack trace or server message, a listener event or a
 * log line.
 */
class EchoedSecretsTest {
  private static final String KEY = "sk-live/Key+with=odd&chars<42>";
  private static final String HEADER_SECRET = "tenant token \"7f3a9c\" 0042/x+y";
  private static final int[] STATUSES = {400, 401, 403, 404, 408, 413, 422, 429, 500, 502, 503,
      504};
  /** How the echo is written: each form a server or a proxy in front of it might use. */
  private static final List<Function<String, String>> FORMS = List.of(
      text -> "{\"error\":{\"message\":\"" + jsonEscaped(text) + "\",\"code\":400}}",
      text -> "<html><body><pre>" + htmlEscaped(text) + "</pre></body></html>",
      text -> "bad request: " + URLEncoder.encode(text, StandardCharsets.UTF_8),
      text -> "echo: " + wrapped(text, 5),
      text -> "{\"detail\":\"" + jsonEscaped(text).replace("/", "\\/")
          .chars().mapToObj(c -> c > 0x7e ? String.format("\\u%04x", c) : String.valueOf((char) c))
          .reduce("", String::concat) + "\"}",
      text -> "plain echo " + text);

  private final AtomicInteger served = new AtomicInteger();
  private volatile int status = 500;

  @Test
  void noSecretReachesAnyTextWhateverTheServerEchoes() throws Exception {
    PrintStream originalErr = System.err;
    ByteArrayOutputStream log = new ByteArrayOutputStream();
    EventRecorder events = new EventRecorder();
    List<String> texts = new ArrayList<>();
    List<String> serverMessages = new ArrayList<>();
    try (MockWebServer server = new MockWebServer()) {
      server.setDispatcher(new Dispatcher() {
        @Override
        public MockResponse dispatch(RecordedRequest request) {
          return echo(request);
        }
      });
      server.start(InetAddress.getLoopbackAddress(), 0);
      System.setErr(new PrintStream(log, true, StandardCharsets.UTF_8));
      Replica replica = Replica.builder(server.url("/v1").toString())
          .header("X-Tenant-Token", HEADER_SECRET).build();
      try (LlmClient client = LlmClient.builder().replica(replica).apiKey(KEY)
          .loadMonitoring(LoadMonitoring.disabled())
          .modelDiscoveryInterval(Duration.ZERO).listener(events)
          .outlierDetection(OutlierDetection.disabled())
          .circuitBreaker(CircuitBreakerPolicy.disabled())
          .retryPolicy(RetryPolicy.builder().maxAttempts(2).initialBackoff(Duration.ZERO)
              .maxBackoff(Duration.ZERO).build()).build()) {
        for (int s : STATUSES) {
          status = s;
          for (Operation op : Operation.values()) {
            try {
              op.call(client);
              texts.add("no failure for " + op + " " + s);
            } catch (Exception e) {
              Throwable failure = e instanceof ExecutionException ? e.getCause() : e;
              texts.add(failure.getMessage());
              texts.add(failure.toString());
              StringWriter trace = new StringWriter();
              failure.printStackTrace(new PrintWriter(trace));
              texts.add(trace.toString());
              for (Throwable t = failure; t != null; t = t.getCause()) {
                if (t instanceof ReplicaHttpException h) {
                  serverMessages.add(String.valueOf(h.serverMessage()));
                  texts.add(String.valueOf(h.serverMessage()));
                  texts.add(h.bodyExcerpt());
                }
                for (Throwable suppressed : t.getSuppressed()) texts.add(suppressed.toString());
              }
            }
          }
        }
      }
    } finally {
      System.setErr(originalErr);
    }
    Stream.of(events.failedAttempts, events.failedCalls, events.routed, events.ejections,
        events.breakers).flatMap(List::stream).forEach(e -> texts.add(e.toString()));
    texts.add(log.toString(StandardCharsets.UTF_8));

    assertThat(served.get()).as("every operation and status reached the server")
        .isGreaterThanOrEqualTo(STATUSES.length * Operation.values().length);
    assertThat(events.failedAttempts).isNotEmpty();
    assertThat(serverMessages).as("the servers' messages are kept, less the secrets")
        .anySatisfy(m -> assertThat(m).containsIgnoringCase("authorization").contains("<redacted>"));
    assertThat(texts).allSatisfy(text -> assertThat(text)
        .doesNotContain("sk-live").doesNotContain("Key+with").doesNotContain("Key%2Bwith")
        .doesNotContain("7f3a9c").doesNotContain("odd&chars").doesNotContain("odd&amp;chars")
        .doesNotContain("odd\\u0026chars"));
  }

  private MockResponse echo(RecordedRequest request) {
    int n = served.getAndIncrement();
    StringBuilder echoed = new StringBuilder();
    Headers headers = request.getHeaders();
    for (int i = 0; i < headers.size(); i++) {
      echoed.append(headers.name(i)).append(": ").append(headers.value(i)).append('\n');
    }
    echoed.append(request.getBody() == null ? "" : request.getBody().utf8());
    String body = FORMS.get(n % FORMS.size()).apply(echoed.toString());
    boolean stream = "text/event-stream".equals(headers.get("Accept"));
    if (stream && n % 4 == 3) {
      // An error reported inside the stream: a 200 whose first event is the echo.
      return new MockResponse.Builder().code(200).setHeader("Content-Type", "text/event-stream")
          .body("event: error\ndata: " + body.replace("\n", " ") + "\n\n").build();
    }
    return new MockResponse.Builder().code(status).body(body).build();
  }

  private enum Operation {
    CHAT {
      @Override
      void call(LlmClient client) {
        client.chat(chat());
      }
    },
    CHAT_ASYNC {
      @Override
      void call(LlmClient client) throws Exception {
        client.chatAsync(chat()).get(30, TimeUnit.SECONDS);
      }
    },
    CHAT_STREAM {
      @Override
      void call(LlmClient client) {
        try (ResponseStream<?> s = client.chatStream(chat())) {
          s.forEach(c -> { });
        }
      }
    },
    COMPLETION {
      @Override
      void call(LlmClient client) {
        client.completion(CompletionRequest.builder("m", "say hi").build());
      }
    },
    COMPLETION_STREAM {
      @Override
      void call(LlmClient client) {
        try (ResponseStream<?> s = client.completionStream(
            CompletionRequest.builder("m", "say hi").build())) {
          s.forEach(c -> { });
        }
      }
    },
    EMBEDDINGS {
      @Override
      void call(LlmClient client) {
        client.embeddings(EmbeddingRequest.builder("m", List.of("embed me")).build());
      }
    };

    abstract void call(LlmClient client) throws Exception;

    private static ChatRequest chat() {
      return ChatRequest.builder("m").message(ChatMessage.user("hello")).build();
    }
  }

  private static String jsonEscaped(String s) {
    StringBuilder b = new StringBuilder();
    for (char c : s.toCharArray()) {
      switch (c) {
        case '"' -> b.append("\\\"");
        case '\\' -> b.append("\\\\");
        case '\n' -> b.append("\\n");
        case '&', '<', '>' -> b.append(String.format("\\u%04x", (int) c)); // as Go escapes them
        default -> b.append(c);
      }
    }
    return b.toString();
  }

  private static String htmlEscaped(String s) {
    return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
        .replace("\"", "&quot;").replace("+", "&#43;").replace("/", "&#x2F;");
  }

  /** A line break every {@code width} characters, as a page that wraps long lines. */
  private static String wrapped(String s, int width) {
    StringBuilder b = new StringBuilder();
    for (int i = 0; i < s.length(); i += width) {
      b.append(s, i, Math.min(s.length(), i + width)).append("\n  ");
    }
    return b.toString();
  }
}
