package io.github.llmrouter.openai;

import com.openai.core.http.Headers;
import com.openai.core.http.HttpResponse;
import io.github.llmrouter.api.LlmException;
import io.github.llmrouter.internal.transport.SdkErrors;
import java.io.ByteArrayInputStream;
import java.io.InputStream;

/**
 * A router's failure that stands for an error status, as the SDK reads one: the status, a JSON
 * error body ({@link SdkErrors#body}) and {@code X-Should-Retry: false} (the router has done the
 * retrying). Immutable.
 */
final class ErrorResponse implements HttpResponse {
  private static final Headers HEADERS = Headers.builder()
      .put("Content-Type", "application/json").put("X-Should-Retry", "false").build();

  private final int status;
  private final byte[] body;

  /**
   * @param status from {@link SdkErrors#status}
   * @param e the router's failure
   */
  ErrorResponse(int status, LlmException e) {
    this.status = status;
    this.body = SdkErrors.body(e);
  }

  @Override
  public int statusCode() {
    return status;
  }

  @Override
  public Headers headers() {
    return HEADERS;
  }

  @Override
  public InputStream body() {
    return new ByteArrayInputStream(body);
  }

  @Override
  public void close() {
    // nothing held
  }
}
