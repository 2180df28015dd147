package io.github.llmrouter;

import static io.github.llmrouter.Fixtures.chat;
import static org.assertj.core.api.Assertions.assertThat;

import io.github.llmrouter.api.ChatChunk;
import io.github.llmrouter.api.ChatResponse;
import io.github.llmrouter.api.LlmException;
import io.github.llmrouter.api.ResponseStream;
import io.github.llmrouter.dispatch.RetryPolicy;
import io.github.llmrouter.load.LoadMonitoring;
import io.github.llmrouter.testing.ScriptedServer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.Map;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.lifecycle.AfterContainer;
import net.jqwik.api.lifecycle.BeforeContainer;

/**
 * Property-based fuzzing of what replicas send back: response bodies, SSE frames and {@code
 * Retry-After} values. Whatever arrives, a call returns a complete answer or throws an {@link
 * LlmException}, never null and never anything else, and ends within its timeouts. Tries are
 * bounded so the suite stays fast.
 */
class FuzzedAnswersTest {
  private static final Duration CALL_TIMEOUT = Duration.ofSeconds(5);
  /** A call may take its deadline and then some for a busy machine; never more. */
  private static final long BOUND_SECONDS = CALL_TIMEOUT.toSeconds() + 10;

  private static ScriptedServer server;
  private static LlmClient client;

  @BeforeContainer
  static void start() {
    server = new ScriptedServer();
    client = LlmClient.builder().replicas(server.url())
        .retryPolicy(RetryPolicy.builder().maxAttempts(2).initialBackoff(Duration.ZERO)
            .maxBackoff(Duration.ZERO).maxRetryAfter(Duration.ofMillis(20)).build())
        .outlierDetection(io.github.llmrouter.replica.OutlierDetection.disabled())
        .circuitBreaker(io.github.llmrouter.dispatch.CircuitBreakerPolicy.disabled())
        .firstByteTimeout(Duration.ofSeconds(2)).streamIdleTimeout(Duration.ofSeconds(2))
        .callTimeout(CALL_TIMEOUT).loadMonitoring(LoadMonitoring.disabled()).build();
  }

  @AfterContainer
  static void stop() {
    client.close();
    server.close();
  }

  // ---- Response bodies ----

  @Property(tries = 300)
  void aChatCallReturnsACompleteAnswerOrThrowsAnLlmException(
      @ForAll("bodies") String body, @ForAll("statuses") int status) throws Exception {
    server.answer(status, Map.of("Content-Type", "application/json"), body);
    try {
      ChatResponse response = client.chat(chat("fuzz"));
      assertThat(response).isNotNull();
      assertThat(response.choices()).isNotEmpty().doesNotContainNull();
      response.text(); // never throws
    } catch (LlmException expected) {
      assertThat(expected.getMessage()).isNotBlank();
    }
    try {
      ChatResponse async = client.chatAsync(chat("fuzz")).get(BOUND_SECONDS, TimeUnit.SECONDS);
      assertThat(async).isNotNull();
      assertThat(async.choices()).isNotEmpty();
    } catch (ExecutionException e) {
      assertThat(e.getCause()).isInstanceOf(LlmException.class);
    }
  }

  @Provide
  Arbitrary<Integer> statuses() {
    return Arbitraries.frequency(Tuple2s.of(8, 200), Tuple2s.of(1, 400), Tuple2s.of(1, 503))
        .map(i -> i);
  }

  @Provide
  Arbitrary<String> bodies() {
    String valid = Fixtures.CHAT_JSON;
    Arbitrary<String> truncated = Arbitraries.integers().between(0, valid.length())
        .map(n -> valid.substring(0, n));
    Arbitrary<String> mutated = Combinators.combine(Arbitraries.integers().between(0,
        valid.length() - 1), Arbitraries.chars().ascii()).as((i, c) ->
        valid.substring(0, i) + c + valid.substring(i + 1));
    return Arbitraries.oneOf(json(3), truncated, mutated,
        Arbitraries.strings().ofMaxLength(64),
        Arbitraries.of("null", "{}", "[]", "\"\"", "{\"choices\":null}", "{\"choices\":[null]}",
            "{\"choices\":[{}]}", "{\"choices\":[{\"message\":null}]}",
            "{\"choices\":[{\"message\":{\"content\":[1,{\"text\":2}]}}]}",
            "{\"choices\":{}}", "{\"usage\":{\"prompt_tokens\":\"x\"}}", valid));
  }

  /** Random JSON values over the field names of the API, nested up to {@code depth}. */
  static Arbitrary<String> json(int depth) {
    Arbitrary<String> leaf = Arbitraries.oneOf(Arbitraries.of("null", "true", "0", "-1", "1e999",
            "3.5", "\"\"", "\"stop\"", "[]", "{}"),
        Arbitraries.strings().alpha().ofMaxLength(8).map(s -> '"' + s + '"'));
    if (depth == 0) return leaf;
    Arbitrary<String> key = Arbitraries.of("choices", "message", "content", "delta", "text",
        "finish_reason", "index", "usage", "prompt_tokens", "data", "embedding", "error", "object",
        "id", "model", "code", "extra");
    Arbitrary<String> value = Arbitraries.lazy(() -> json(depth - 1));
    Arbitrary<String> object = Combinators.combine(key, value).as((k, v) -> '"' + k + "\":" + v)
        .list().ofMaxSize(4).map(fields -> "{" + String.join(",", fields) + "}");
    Arbitrary<String> array = value.list().ofMaxSize(3).map(vs -> "[" + String.join(",", vs) + "]");
    return Arbitraries.frequencyOf(Tuple2s.of(1, leaf), Tuple2s.of(3, object),
        Tuple2s.of(1, array));
  }

  // ---- SSE frames ----

  @Property(tries = 300)
  void aStreamYieldsChunksOrThrowsAnLlmExceptionAndAlwaysEnds(
      @ForAll("frames") List<String> lines, @ForAll("lineEndings") String eol) {
    server.answer(200, Map.of("Content-Type", "text/event-stream"), String.join(eol, lines) + eol);
    List<ChatChunk> received = new ArrayList<>();
    try (ResponseStream<ChatChunk> stream = client.chatStream(chat("fuzz"))) {
      for (ChatChunk c : stream) {
        assertThat(c).isNotNull();
        c.text(); // never throws
        received.add(c);
      }
    } catch (LlmException expected) {
      assertThat(expected.getMessage()).isNotBlank();
    }
    assertThat(received.size()).isLessThanOrEqualTo(lines.size());
  }

  @Provide
  Arbitrary<List<String>> frames() {
    Arbitrary<String> chunk = json(3).map(j -> "data: " + j);
    Arbitrary<String> fixed = Arbitraries.of("data: [DONE]", "", "", ": keep-alive",
        "event: error", "event: message", "data: null", "data: {", "id: 7", "retry: 100",
        "data:" + Fixtures.chunk("x").strip().substring(5),
        Fixtures.chunk("hi").strip(), Fixtures.finalChunk().strip(),
        "data: {\"error\":{\"message\":\"bad\",\"code\":400}}",
        "data: {\"object\":\"error\",\"message\":\"busy\",\"code\":503}",
        "data: {\"choices\":null}", "data: {\"choices\":[null]}");
    Arbitrary<String> garbage = Arbitraries.strings().ofMaxLength(40);
    return Arbitraries.frequencyOf(Tuple2s.of(4, fixed), Tuple2s.of(2, chunk),
        Tuple2s.of(1, garbage)).list().ofMaxSize(12);
  }

  @Provide
  Arbitrary<String> lineEndings() {
    return Arbitraries.of("\n", "\r\n", "\r");
  }

  // ---- Retry-After ----

  @Property(tries = 60)
  void anyRetryAfterEndsTheCallWithinItsTimeouts(@ForAll("retryAfters") String retryAfter)
      throws Exception {
    server.answer(503, Map.of("Retry-After", retryAfter), "busy");
    long start = System.nanoTime();
    try {
      client.chatAsync(chat("fuzz")).get(BOUND_SECONDS, TimeUnit.SECONDS);
    } catch (ExecutionException e) {
      assertThat(e.getCause()).isInstanceOf(LlmException.class);
    }
    assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(CALL_TIMEOUT);
  }

  @Provide
  Arbitrary<String> retryAfters() {
    return Arbitraries.oneOf(
        Arbitraries.longs().between(0, Long.MAX_VALUE).map(String::valueOf),
        Arbitraries.strings().numeric().ofMinLength(1).ofMaxLength(40),
        Arbitraries.strings().withCharRange(' ', '~').ofMaxLength(40),
        Arbitraries.of("Wed, 21 Oct 2015 07:28:00 GMT", "Fri, 31 Dec 9999 23:59:59 GMT",
            "-1", "+5", "1.5", "0x10", "", " 3 "));
  }

  /** jqwik's frequency pairs, spelled once. */
  private static final class Tuple2s {
    static <T> net.jqwik.api.Tuple.Tuple2<Integer, T> of(int weight, T value) {
      return net.jqwik.api.Tuple.of(weight, value);
    }
  }
}
