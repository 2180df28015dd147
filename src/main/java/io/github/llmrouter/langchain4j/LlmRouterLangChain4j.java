package io.github.llmrouter.langchain4j;

import static java.util.Objects.requireNonNull;

import dev.langchain4j.http.client.HttpClientBuilder;
import io.github.llmrouter.LlmClient;
import io.github.llmrouter.internal.transport.DaemonThreads;
import java.time.Duration;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/**
 * LangChain4j's HTTP client SPI over an {@link LlmClient}: a model built with it sends every
 * request through the router (routing key from the request body, ranking, retries, failover,
 * breakers, load feedback, events).
 *
 * <pre>{@code
 * ChatModel model = OpenAiChatModel.builder()
 *     .httpClientBuilder(LlmRouterLangChain4j.httpClientBuilder(router))
 *     .baseUrl("http://llm-router/v1").apiKey("unused").modelName("llama-3.1-8b")
 *     .maxRetries(0)
 *     .build();
 * }</pre>
 *
 * <p><b>Retries.</b> The router retries and fails over; set the model's {@code maxRetries(0)} so
 * that LangChain4j does not multiply its attempts.
 *
 * <p><b>Errors.</b> An error status a replica answered (after the router's retries) is thrown as
 * LangChain4j's {@code HttpException} with that status, which its models map to their own types
 * ({@code InvalidRequestException} for 400, {@code AuthenticationException} for 401, {@code
 * ModelNotFoundException} for 404, {@code RateLimitException} for 429, {@code
 * InternalServerException} for 5xx). The body is the server's JSON error when it was whole, else
 * one made of the router's message, without any secret the request carried. Admission control
 * refusing the call is a 429, an empty fleet a 503, a timeout LangChain4j's {@code
 * TimeoutException}; any other failure is a {@code LangChain4jException} whose cause is the
 * router's {@link io.github.llmrouter.api.LlmException}.
 *
 * <p><b>URLs and timeouts.</b> Only the path and query of a request's URL are used (the base URL's
 * host is never called); the router's own timeouts apply, not the builder's {@code
 * connectTimeout} and {@code readTimeout}.
 *
 * <p><b>Streams</b> are read on a thread of the adapter's own (daemon threads, kept for a minute
 * when idle) unless the builder is given an executor; a listener that cancels its parsing handle
 * closes the stream at the replica.
 *
 * @since 0.3.0
 */
public final class LlmRouterLangChain4j {
  private LlmRouterLangChain4j() {}

  /**
   * A builder of LangChain4j HTTP clients that send through {@code router}.
   *
   * @param router the client that routes; never closed by the adapter
   * @return a new builder
   */
  public static Builder httpClientBuilder(LlmClient router) {
    return new Builder(requireNonNull(router, "router"));
  }

  /**
   * Builds a LangChain4j HTTP client over an {@link LlmClient}. Not thread-safe; the clients it
   * builds are.
   */
  public static final class Builder implements HttpClientBuilder {
    private final LlmClient router;
    private Duration connectTimeout = Duration.ZERO;
    private Duration readTimeout = Duration.ZERO;
    private Executor executor = StreamThreads.POOL;

    private Builder(LlmClient router) {
      this.router = router;
    }

    /** {@return what was set; the router's own connect timeout applies} */
    @Override
    public Duration connectTimeout() {
      return connectTimeout;
    }

    /**
     * Kept for LangChain4j's sake; the router's own connect timeout applies.
     *
     * @param timeout ignored by the router
     * @return this builder
     */
    @Override
    public Builder connectTimeout(Duration timeout) {
      this.connectTimeout = requireNonNull(timeout, "timeout");
      return this;
    }

    /** {@return what was set; the router's own timeouts apply} */
    @Override
    public Duration readTimeout() {
      return readTimeout;
    }

    /**
     * Kept for LangChain4j's sake; the router's own timeouts apply (time to first byte, stream
     * idle timeout, call deadline).
     *
     * @param timeout ignored by the router
     * @return this builder
     */
    @Override
    public Builder readTimeout(Duration timeout) {
      this.readTimeout = requireNonNull(timeout, "timeout");
      return this;
    }

    /**
     * Where streams are read (each holds a thread while it lasts); default: the adapter's own
     * daemon threads.
     *
     * @param executor runs each stream's reading
     * @return this builder
     */
    public Builder executor(Executor executor) {
      this.executor = requireNonNull(executor, "executor");
      return this;
    }

    /** {@return a client that sends through the router} */
    @Override
    public dev.langchain4j.http.client.HttpClient build() {
      return new RoutedHttpClient(router, executor);
    }
  }

  /** The default stream readers: daemon threads, made as needed, gone after a minute idle. */
  private static final class StreamThreads {
    static final ExecutorService POOL;

    static {
      POOL = new ThreadPoolExecutor(0, Integer.MAX_VALUE, 60, TimeUnit.SECONDS,
          new SynchronousQueue<>(), DaemonThreads.named("langchain4j-llm-router-stream"));
    }

    private StreamThreads() {}
  }
}
