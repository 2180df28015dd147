package io.github.llmrouter.openai;

import com.openai.core.RequestOptions;
import com.openai.core.http.Headers;
import com.openai.core.http.HttpClient;
import com.openai.core.http.HttpRequest;
import com.openai.core.http.HttpRequestBody;
import com.openai.core.http.HttpResponse;
import com.openai.core.http.QueryParams;
import com.openai.errors.OpenAIException;
import com.openai.errors.OpenAIIoException;
import io.github.llmrouter.LlmClient;
import io.github.llmrouter.api.LlmException;
import io.github.llmrouter.api.RawRequest;
import io.github.llmrouter.api.RawResponse;
import io.github.llmrouter.internal.transport.SdkErrors;
import java.io.ByteArrayOutputStream;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import okhttp3.HttpUrl;

/**
 * openai-java's HTTP client over {@link LlmClient#send}: the SDK's request becomes a {@link
 * RawRequest} (the path of its base URL and its path segments, its query, headers and body), the
 * router's answer the SDK's response, and the router's failures either an error response the SDK
 * turns into its own exception types or an {@link OpenAIIoException}. Thread-safe.
 */
final class RoutedHttpClient implements HttpClient {
  /** Any absolute URL: only the path and query it builds are used. */
  private static final HttpUrl LOCAL = HttpUrl.get("http://localhost/");

  private final LlmClient router;

  RoutedHttpClient(LlmClient router) {
    this.router = router;
  }

  @Override
  public HttpResponse execute(HttpRequest request, RequestOptions options) {
    RawRequest raw = toRaw(request);
    try {
      return new RoutedResponse(router.send(raw));
    } catch (LlmException e) {
      return failure(e);
    }
  }

  @Override
  public CompletableFuture<HttpResponse> executeAsync(HttpRequest request,
      RequestOptions options) {
    RawRequest raw;
    try {
      raw = toRaw(request);
    } catch (OpenAIException e) {
      return CompletableFuture.failedFuture(e);
    }
    CompletableFuture<RawResponse> sent = router.sendAsync(raw);
    CompletableFuture<HttpResponse> answer = sent.handle((response, failure) -> {
      if (failure == null) return new RoutedResponse(response);
      Throwable cause = SdkErrors.unwrap(failure);
      if (cause instanceof LlmException e) return failure(e);
      throw new CompletionException(cause);
    });
    // The SDK cancelling its future cancels the router's call, and the exchange in progress.
    answer.whenComplete((r, t) -> {
      if (answer.isCancelled()) sent.cancel(true);
    });
    return answer;
  }

  @Override
  public void close() {
    // The LlmClient belongs to the application.
  }

  /**
   * The router's final failure as the SDK should see it: an error status as a response (the SDK
   * throws its type for the status), anything else as an I/O failure.
   */
  private static HttpResponse failure(LlmException e) {
    int status = SdkErrors.status(e);
    if (status > 0) return new ErrorResponse(status, e);
    throw new OpenAIIoException(e.getMessage() == null ? "the call failed" : e.getMessage(), e);
  }

  /** The SDK's request as the router's. */
  static RawRequest toRaw(HttpRequest request) {
    try {
      RawRequest.Builder b = RawRequest.builder(request.method().name(), pathOf(request));
      Headers headers = request.headers();
      for (String name : headers.names()) {
        for (String value : headers.values(name)) b.header(name, value);
      }
      HttpRequestBody body = request.body();
      if (body != null) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream(
            (int) Math.max(64, Math.min(body.contentLength(), 1 << 20)));
        body.writeTo(bytes);
        String type = body.contentType();
        b.body(bytes.toByteArray(), type == null ? "application/json" : type);
      }
      return b.build();
    } catch (IllegalArgumentException e) {
      // RawRequest's messages name a bad header but never show its value.
      throw new OpenAIException("llm-router cannot send this request: " + e.getMessage());
    }
  }

  /** The base URL's path, then the request's path segments and query, encoded. */
  private static String pathOf(HttpRequest request) {
    HttpUrl base = HttpUrl.parse(request.baseUrl());
    HttpUrl.Builder url = LOCAL.newBuilder().encodedPath("/");
    if (base != null) {
      for (String segment : base.pathSegments()) {
        if (!segment.isEmpty()) url.addPathSegment(segment);
      }
    }
    for (String segment : request.pathSegments()) url.addPathSegment(segment);
    QueryParams query = request.queryParams();
    for (String key : query.keys()) {
      for (String value : query.values(key)) url.addQueryParameter(key, value);
    }
    HttpUrl built = url.build();
    String q = built.encodedQuery();
    return q == null ? built.encodedPath() : built.encodedPath() + '?' + q;
  }
}
