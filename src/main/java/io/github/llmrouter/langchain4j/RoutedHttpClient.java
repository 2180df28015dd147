package io.github.llmrouter.langchain4j;

import dev.langchain4j.exception.HttpException;
import dev.langchain4j.exception.LangChain4jException;
import dev.langchain4j.exception.TimeoutException;
import dev.langchain4j.http.client.FormDataFile;
import dev.langchain4j.http.client.HttpClient;
import dev.langchain4j.http.client.HttpRequest;
import dev.langchain4j.http.client.SuccessfulHttpResponse;
import dev.langchain4j.http.client.sse.ServerSentEventListener;
import dev.langchain4j.http.client.sse.ServerSentEventListenerUtils;
import dev.langchain4j.http.client.sse.ServerSentEventParser;
import io.github.llmrouter.LlmClient;
import io.github.llmrouter.api.LlmException;
import io.github.llmrouter.api.LlmTimeoutException;
import io.github.llmrouter.api.RawRequest;
import io.github.llmrouter.api.RawResponse;
import io.github.llmrouter.internal.transport.SdkErrors;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import okhttp3.HttpUrl;
import okhttp3.MediaType;
import okhttp3.MultipartBody;
import okhttp3.RequestBody;
import okio.Buffer;

/**
 * LangChain4j's HTTP client over {@link LlmClient#send}: its request becomes a {@link RawRequest}
 * (the URL's path and query, headers, the body or form data), the router's answer its response,
 * and the router's failures the exceptions LangChain4j's models map to their own types.
 * Thread-safe.
 */
final class RoutedHttpClient implements HttpClient {
  private final LlmClient router;
  private final Executor streams;

  RoutedHttpClient(LlmClient router, Executor streams) {
    this.router = router;
    this.streams = streams;
  }

  @Override
  public SuccessfulHttpResponse execute(HttpRequest request) {
    RawRequest raw = toRaw(request);
    try (RawResponse response = router.send(raw)) {
      return SuccessfulHttpResponse.builder().statusCode(response.status())
          .headers(response.headers()).body(response.bodyBytes()).build();
    } catch (LlmException e) {
      throw failure(e);
    }
  }

  @Override
  public void execute(HttpRequest request, ServerSentEventParser parser,
      ServerSentEventListener listener) {
    RawRequest raw;
    try {
      raw = toRaw(request);
    } catch (RuntimeException e) {
      ServerSentEventListenerUtils.ignoringExceptions(() -> listener.onError(e));
      return;
    }
    router.sendAsync(raw).whenComplete((response, failure) -> {
      if (failure != null) {
        Throwable cause = SdkErrors.unwrap(failure);
        RuntimeException error = cause instanceof LlmException e ? failure(e)
            : new LangChain4jException(cause);
        ServerSentEventListenerUtils.ignoringExceptions(() -> listener.onError(error));
        return;
      }
      try {
        // The stream holds a thread while it lasts: not one of OkHttp's.
        streams.execute(() -> read(response, parser, listener));
      } catch (RejectedExecutionException e) {
        response.close();
        ServerSentEventListenerUtils.ignoringExceptions(() -> listener.onError(e));
      }
    });
  }

  /** Reads a stream to its end, or until the listener cancels; closes it either way. */
  private static void read(RawResponse response, ServerSentEventParser parser,
      ServerSentEventListener listener) {
    try (response) {
      SuccessfulHttpResponse opened = SuccessfulHttpResponse.builder()
          .statusCode(response.status()).headers(response.headers()).build();
      ServerSentEventListenerUtils.ignoringExceptions(() -> listener.onOpen(opened));
      parser.parse(response.body(), listener);
      ServerSentEventListenerUtils.ignoringExceptions(listener::onClose);
    } catch (RuntimeException e) {
      ServerSentEventListenerUtils.ignoringExceptions(() -> listener.onError(e));
    }
  }

  /** The router's final failure as LangChain4j reads one. */
  private static RuntimeException failure(LlmException e) {
    int status = SdkErrors.status(e);
    if (status > 0) {
      return new HttpException(status, new String(SdkErrors.body(e), StandardCharsets.UTF_8));
    }
    if (e instanceof LlmTimeoutException) return new TimeoutException(e.getMessage(), e);
    return new LangChain4jException(e.getMessage(), e);
  }

  /** LangChain4j's request as the router's. */
  static RawRequest toRaw(HttpRequest request) {
    HttpUrl url = HttpUrl.parse(request.url());
    if (url == null) {
      throw new LangChain4jException("llm-router cannot send this request: its URL is not an "
          + "http(s) URL");
    }
    String query = url.encodedQuery();
    try {
      RawRequest.Builder b = RawRequest.builder(request.method().name(),
          query == null ? url.encodedPath() : url.encodedPath() + '?' + query);
      for (Map.Entry<String, List<String>> h : request.headers().entrySet()) {
        for (String value : h.getValue()) b.header(h.getKey(), value);
      }
      if (!request.formDataFields().isEmpty() || !request.formDataFiles().isEmpty()) {
        multipart(request, b);
      } else if (request.body() != null) {
        b.body(request.body().getBytes(StandardCharsets.UTF_8), "application/json");
      }
      return b.build();
    } catch (IllegalArgumentException e) {
      // RawRequest's messages name a bad header but never show its value.
      throw new LangChain4jException("llm-router cannot send this request: " + e.getMessage());
    }
  }

  /** Form data (an audio transcription, a file) as a multipart body. */
  private static void multipart(HttpRequest request, RawRequest.Builder b) {
    MultipartBody.Builder form = new MultipartBody.Builder().setType(MultipartBody.FORM);
    request.formDataFields().forEach(form::addFormDataPart);
    for (Map.Entry<String, FormDataFile> f : request.formDataFiles().entrySet()) {
      FormDataFile file = f.getValue();
      form.addFormDataPart(f.getKey(), file.fileName(), RequestBody.create(file.content(),
          MediaType.parse(file.contentType())));
    }
    MultipartBody body = form.build();
    Buffer bytes = new Buffer();
    try {
      body.writeTo(bytes);
    } catch (IOException impossible) {
      throw new LangChain4jException(impossible); // a Buffer does not fail
    }
    b.body(bytes.readByteArray(), String.valueOf(body.contentType()));
  }
}
