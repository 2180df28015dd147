package io.github.llmrouter.internal.transport;

import java.util.Map;
import org.jspecify.annotations.Nullable;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;

/**
 * Reads what a server says about an error, from an error response's body or from an error event
 * of a stream, in the shapes inference servers use: OpenAI's {@code {"error": {"message", "code"}}}
 * (vLLM, SGLang), vLLM's older flat {@code {"object": "error", "message", "code"}}, TGI's {@code
 * {"error": "..."}} and FastAPI's {@code {"detail": "..."}}; otherwise the first line of the text.
 */
final class ErrorBodies {
  private ErrorBodies() {}

  /** The server's explanation in {@code body} (JSON or text), or null if there is none. */
  static @Nullable String message(String body) {
    String trimmed = body.strip();
    if (trimmed.isEmpty()) return null;
    if (trimmed.charAt(0) == '{') {
      try {
        JsonNode node = Json.MAPPER.readTree(trimmed);
        if (node != null && node.isObject()) {
          String message = message(node.get("error"));
          if (message == null) message = text(node.get("message"));
          if (message == null) message = message(node.get("detail"));
          if (message != null) return message;
        }
      } catch (JacksonException notJson) {
        // a text body, or JSON cut short by the peek: its first line follows
      }
    }
    int end = trimmed.indexOf('\n');
    return end < 0 ? trimmed : trimmed.substring(0, end);
  }

  /** The message of an {@code error} or {@code detail} value: a string, or an object's message. */
  private static @Nullable String message(@Nullable JsonNode error) {
    if (error == null) return null;
    if (error.isString()) return error.stringValue();
    if (error.isObject()) return text(error.get("message"));
    if (error.isArray() && !error.isEmpty()) return message(error.get(0)); // FastAPI validation
    return null;
  }

  private static @Nullable String text(@Nullable JsonNode node) {
    return node != null && node.isString() ? node.stringValue() : null;
  }

  /**
   * Whether the fields of a stream event (the keys and values of its JSON object) make it an error
   * event: an {@code error} field, or {@code "object": "error"}.
   */
  static boolean isError(Map<String, Object> fields) {
    return fields.get("error") != null || "error".equals(fields.get("object"));
  }

  /**
   * The HTTP status an error event reports: its numeric {@code code} (in the error object or at
   * the top level) if it is an HTTP error status, else 500.
   */
  static int status(Map<String, Object> fields) {
    Object error = fields.get("error");
    Object code = error instanceof Map ? ((Map<?, ?>) error).get("code") : fields.get("code");
    if (code instanceof Number) {
      double c = ((Number) code).doubleValue();
      if (c >= 400 && c <= 599 && c == Math.rint(c)) return (int) c;
    }
    return 500;
  }
}
