package io.github.llmrouter.openai;

import com.openai.core.http.Headers;
import com.openai.core.http.HttpResponse;
import io.github.llmrouter.api.RawResponse;
import java.io.InputStream;
import java.util.List;
import java.util.Map;

/**
 * The router's answer as the SDK's response. A stream's body is the replica's live event stream:
 * the SDK closing the response (or its stream) closes the router's, which lets go of the replica.
 */
final class RoutedResponse implements HttpResponse {
  private final RawResponse raw;
  private final Headers headers;

  RoutedResponse(RawResponse raw) {
    this.raw = raw;
    Headers.Builder b = Headers.builder();
    for (Map.Entry<String, List<String>> h : raw.headers().entrySet()) {
      b.put(h.getKey(), h.getValue());
    }
    this.headers = b.build();
  }

  @Override
  public int statusCode() {
    return raw.status();
  }

  @Override
  public Headers headers() {
    return headers;
  }

  @Override
  public InputStream body() {
    return raw.body();
  }

  @Override
  public void close() {
    raw.close();
  }
}
