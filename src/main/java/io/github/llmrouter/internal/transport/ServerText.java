package io.github.llmrouter.internal.transport;

import io.github.llmrouter.api.ReplicaHttpException;
import io.github.llmrouter.internal.load.LoadHeaders;
import io.github.llmrouter.replica.Replica;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.function.IntPredicate;
import okhttp3.Headers;
import okhttp3.Request;
import org.jspecify.annotations.Nullable;

/**
 * What a replica sends back as text, made fit to keep: error answers become {@link
 * ReplicaHttpException}s and parse failures become causes, both without any secret the client sent
 * to that replica (servers and proxies echo requests in their error pages). One per client;
 * immutable and thread-safe.
 */
final class ServerText {
  /** Request headers whose values are never secret, and common enough to read in a message. */
  private static final Set<String> PUBLIC = Set.of("content-type", "accept", "user-agent",
      LoadHeaders.ENDPOINT_LOAD_METRICS_FORMAT, "traceparent", "tracestate", "baggage");

  /** The client's own secrets: its API key. */
  private final Redactor secrets;
  private final IntPredicate retryableStatus;

  /**
   * @param apiKey the client's API key, or null
   * @param retryableStatus which HTTP statuses are worth another attempt (the retry policy's)
   */
  ServerText(@Nullable String apiKey, IntPredicate retryableStatus) {
    this.secrets = apiKey == null ? Redactor.NONE : Redactor.of(List.of(apiKey));
    this.retryableStatus = retryableStatus;
  }

  /**
   * An error answer, from a response's status or a stream's error event: retryable exactly when
   * the retry policy lists its status. The body loses every secret sent to the replica first, so
   * that neither the message nor the excerpt carries one.
   */
  ReplicaHttpException httpError(Replica replica, Request sent, int status, String body,
      @Nullable Duration retryAfter) {
    String clean = secretsOf(replica, sent).redact(body);
    return new ReplicaHttpException(replica.id(), status, ErrorBodies.message(clean), clean,
        retryableStatus.test(status), retryAfter);
  }

  /**
   * A parse failure of what {@code replica} sent, fit to be a cause: a parser's message quotes
   * the text it choked on, so the failure is replaced by one whose message has no secret in it
   * (its stack trace kept).
   */
  IOException scrubbed(Replica replica, Request sent, Exception parseFailure) {
    String message = parseFailure.getMessage();
    IOException scrubbed = new IOException(parseFailure.getClass().getSimpleName() + ": "
        + (message == null ? "" : secretsOf(replica, sent).redact(message)));
    scrubbed.setStackTrace(parseFailure.getStackTrace());
    return scrubbed;
  }

  /** {@code text} without the secrets sent to {@code replica}. */
  String redact(Replica replica, String text) {
    return secretsOf(replica).redact(text);
  }

  /**
   * The secrets in {@code sent}: the client's and the replica's header values, and those of a
   * raw request's own headers but the few that say only what the request is ({@link #PUBLIC}).
   */
  private Redactor secretsOf(Replica replica, Request sent) {
    Redactor known = secretsOf(replica);
    Headers headers = sent.headers();
    List<String> more = null;
    for (int i = 0; i < headers.size(); i++) {
      String name = headers.name(i).toLowerCase(Locale.ROOT);
      if (PUBLIC.contains(name) || name.startsWith("x-stainless-")) continue;
      if (more == null) more = new ArrayList<>();
      String value = headers.value(i);
      more.add(value);
      int space = value.indexOf(' ');
      if (space > 0) more.add(value.substring(space + 1)); // the key of "Bearer <key>"
    }
    return more == null ? known : known.plus(more);
  }

  /** The secrets sent to {@code replica}: the client's and the replica's header values. */
  private Redactor secretsOf(Replica replica) {
    Map<String, String> headers = replica.headers();
    return headers.isEmpty() ? secrets : secrets.plus(headers.values());
  }
}
