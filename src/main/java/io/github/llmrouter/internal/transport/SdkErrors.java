package io.github.llmrouter.internal.transport;

import io.github.llmrouter.api.FleetSaturatedException;
import io.github.llmrouter.api.LlmException;
import io.github.llmrouter.api.NoReplicaAvailableException;
import io.github.llmrouter.api.ReplicaHttpException;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.CompletionException;
import org.jspecify.annotations.Nullable;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * How the SDK adapters show a call's final failure to an SDK that reads error statuses: the
 * status it stands for and an OpenAI-style JSON error body. One rule for every adapter. Stateless.
 */
public final class SdkErrors {
  private SdkErrors() {}

  /**
   * The HTTP status {@code e} stands for: the replica's error status (the failure itself, or the
   * last attempt's when the router gave up), 429 when admission control refused the call, 503
   * when the fleet had no replica; -1 for a failure that is not a status (a replica unreachable,
   * a timeout, a malformed answer), which an adapter reports as an I/O failure.
   *
   * @param e the call's failure
   * @return the status, or -1
   */
  public static int status(LlmException e) {
    ReplicaHttpException replica = replicaStatus(e);
    if (replica != null) return replica.status();
    if (e instanceof FleetSaturatedException) return 429;
    if (e instanceof NoReplicaAvailableException) return 503;
    return -1;
  }

  /**
   * An OpenAI-style error body for {@code e}: the replica's own JSON error when the router kept
   * it whole (its secrets already removed), else {@code {"error": {"message": ..., "type":
   * ...}}} made of the router's message, which never holds a secret.
   *
   * @param e the call's failure
   * @return UTF-8 JSON
   */
  public static byte[] body(LlmException e) {
    ReplicaHttpException replica = replicaStatus(e);
    if (replica != null) {
      String excerpt = replica.bodyExcerpt().strip();
      if (excerpt.startsWith("{")) {
        try {
          JsonNode node = Json.MAPPER.readTree(excerpt);
          if (node != null && node.isObject() && node.has("error")) {
            return excerpt.getBytes(StandardCharsets.UTF_8);
          }
        } catch (JacksonException cutShort) {
          // a body longer than the excerpt: the router's message stands for it
        }
      }
    }
    ObjectNode error = Json.MAPPER.createObjectNode();
    String message = e.getMessage();
    error.put("message", message == null ? e.getClass().getSimpleName() : message);
    error.put("type", e.getClass().getSimpleName());
    ObjectNode body = Json.MAPPER.createObjectNode();
    body.set("error", error);
    return Json.MAPPER.writeValueAsBytes(body);
  }

  /**
   * What a failed future of the router failed with: the failure itself, or the one a {@link
   * CompletionException} wraps.
   *
   * @param failure from {@code whenComplete} or {@code handle}
   * @return the failure to report
   */
  public static Throwable unwrap(Throwable failure) {
    return failure instanceof CompletionException && failure.getCause() != null
        ? failure.getCause() : failure;
  }

  /** The replica's error status behind {@code e}, or null. */
  private static @Nullable ReplicaHttpException replicaStatus(LlmException e) {
    if (e instanceof ReplicaHttpException r) return r;
    return e.getCause() instanceof ReplicaHttpException r ? r : null;
  }
}
