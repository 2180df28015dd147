package io.github.llmrouter.internal.transport;

import static java.util.Objects.requireNonNull;

import io.github.llmrouter.api.MalformedResponseException;
import io.github.llmrouter.api.RawResponse;
import io.github.llmrouter.api.ReportsUsage;
import io.github.llmrouter.api.Usage;
import io.github.llmrouter.replica.Replica;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.util.List;
import java.util.Map;
import okhttp3.Headers;
import okhttp3.Response;
import org.jspecify.annotations.Nullable;
import tools.jackson.core.JacksonException;

/**
 * A raw answer read whole: its status, headers and body bytes, the connection released. A JSON
 * body is checked to be JSON (a 2xx with a broken body is a malformed answer, failed over) and
 * read for its usage and model as it is checked. Immutable.
 */
public final class WholeAnswer implements RawResponse, ReportsUsage {
  private final String replicaId;
  private final int status;
  private final Headers headers;
  private final byte[] body;
  private final Reported reported;

  private WholeAnswer(String replicaId, int status, Headers headers, byte[] body,
      Reported reported) {
    this.replicaId = replicaId;
    this.status = status;
    this.headers = headers;
    this.body = body;
    this.reported = reported;
  }

  /**
   * Reads {@code response}'s body whole; the caller closes the response.
   *
   * @throws IOException if reading the body fails
   * @throws MalformedResponseException if a JSON body is not JSON
   */
  static WholeAnswer read(Replica replica, Response response, ServerText serverText)
      throws IOException {
    byte[] body = response.body().bytes();
    Reported reported = Reported.NOTHING;
    String type = response.header("Content-Type");
    if (type != null && type.startsWith("application/json") && body.length > 0) {
      try {
        reported = Reported.scan(body);
      } catch (JacksonException e) {
        throw new MalformedResponseException(replica.id(), "JSON body",
            serverText.scrubbed(replica, response.request(), e));
      }
    }
    return new WholeAnswer(replica.id(), response.code(), RetryAfter.restored(response.headers()),
        body, reported);
  }

  /** {@return what the body reported: usage and model} */
  public Reported reported() {
    return reported;
  }

  @Override
  public @Nullable Usage usage() {
    return reported.usage();
  }

  @Override
  public @Nullable String model() {
    return reported.model();
  }

  @Override
  public String replicaId() {
    return replicaId;
  }

  @Override
  public int status() {
    return status;
  }

  @Override
  public Map<String, List<String>> headers() {
    return headers.toMultimap();
  }

  @Override
  public @Nullable String header(String name) {
    return headers.get(requireNonNull(name, "name"));
  }

  @Override
  public boolean streaming() {
    return false;
  }

  @Override
  public InputStream body() {
    return new ByteArrayInputStream(body);
  }

  @Override
  public byte[] bodyBytes() {
    return body.clone();
  }

  @Override
  public void close() {
    // Nothing is held: the body was read whole.
  }

  @Override
  public String toString() {
    return "RawResponse{replica=" + replicaId + ", status=" + status + ", body=" + body.length
        + " bytes}";
  }
}
