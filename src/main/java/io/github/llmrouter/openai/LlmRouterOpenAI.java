package io.github.llmrouter.openai;

import static java.util.Objects.requireNonNull;

import com.openai.client.OpenAIClient;
import com.openai.client.OpenAIClientImpl;
import com.openai.core.ClientOptions;
import com.openai.core.http.HttpClient;
import io.github.llmrouter.LlmClient;
import java.util.function.Consumer;

/**
 * openai-java 4 on top of an {@link LlmClient}: every request the SDK makes goes through the
 * router (routing key from the request body, ranking, retries, failover, breakers, load feedback,
 * events), none of them directly to a server.
 *
 * <pre>{@code
 * LlmClient router = LlmClient.builder().replicas("http://10.0.0.7:8000", "http://10.0.0.8:8000")
 *     .build();
 * OpenAIClient openai = LlmRouterOpenAI.client(router);
 * ChatCompletion answer = openai.chat().completions().create(params);
 * }</pre>
 *
 * <p><b>Retries.</b> The router retries and fails over; the SDK's own retries would multiply its
 * attempts, so {@link #client} turns them off ({@code maxRetries(0)}), and every error answer the
 * adapter hands the SDK says {@code X-Should-Retry: false}. A client assembled from {@link
 * #httpClient} should set {@code maxRetries(0)} too.
 *
 * <p><b>Errors.</b> An error status a replica answered (after the router's retries) reaches the
 * SDK as that status, so it throws its own types: {@code BadRequestException} (400), {@code
 * UnauthorizedException} (401), {@code NotFoundException} (404), {@code RateLimitException}
 * (429), {@code InternalServerException} (5xx), and so on. The body is the server's JSON error
 * when it was whole, else one made of the router's message, without any secret the request
 * carried. The router refusing a call (admission control) is a 429; no replica in the fleet is a
 * 503; a call that could not reach a replica or ran out of time is an {@code OpenAIIoException}
 * whose cause is the router's {@link io.github.llmrouter.api.LlmException}.
 *
 * <p><b>URLs.</b> The SDK's base URL gives the path only (default {@code
 * https://api.openai.com/v1}: {@code /v1}); its host is never called. Each request's path is
 * resolved under every replica's base URL.
 *
 * <p><b>Lifecycle.</b> Closing the SDK's client leaves the {@code LlmClient} open: it belongs to
 * the application, and may serve other callers.
 *
 * @since 0.3.0
 */
public final class LlmRouterOpenAI {
  /** The base URL given to the SDK: only its path, {@code /v1}, is used. */
  static final String BASE_URL = "http://llm-router.invalid/v1";

  private LlmRouterOpenAI() {}

  /**
   * An {@code OpenAIClient} that sends every request through {@code router}, with the SDK's
   * retries off and its base URL's path {@code /v1}. The API key is the router's ({@link
   * io.github.llmrouter.LlmClientBuilder#apiKey}); the SDK's is a placeholder it never sends
   * when the router has one.
   *
   * @param router the client that routes; stays open when the SDK's client is closed
   * @return a new SDK client
   */
  public static OpenAIClient client(LlmClient router) {
    return client(router, options -> { });
  }

  /**
   * An {@code OpenAIClient} as {@link #client(LlmClient)} makes it, after {@code options} has set
   * what else the application wants (an API key, headers, a timeout, a base URL with another
   * path). Setting {@code maxRetries} or the HTTP client here is overridden.
   *
   * @param router the client that routes
   * @param options adjusts the SDK's options
   * @return a new SDK client
   */
  public static OpenAIClient client(LlmClient router, Consumer<ClientOptions.Builder> options) {
    requireNonNull(router, "router");
    requireNonNull(options, "options");
    ClientOptions.Builder b = ClientOptions.builder().baseUrl(BASE_URL).apiKey("llm-router");
    options.accept(b);
    return new OpenAIClientImpl(b.httpClient(httpClient(router)).maxRetries(0).build());
  }

  /**
   * The SDK's HTTP client over {@code router}, for an application that assembles its own {@code
   * ClientOptions}: set {@code maxRetries(0)} there. Thread-safe; closing it does nothing.
   *
   * @param router the client that routes
   * @return an HTTP client that sends every request with {@link LlmClient#send}
   */
  public static HttpClient httpClient(LlmClient router) {
    return new RoutedHttpClient(requireNonNull(router, "router"));
  }
}
