package io.github.llmrouter.api;

import static java.util.Objects.requireNonNull;

/** Checks shared by the request builders. */
final class Requests {
  private Requests() {}

  static void checkExtra(String field, Object value) {
    requireNonNull(field, "field");
    requireNonNull(value, "value");
    if (field.equals("stream")) {
      throw new IllegalArgumentException(
          "'stream' is set by the client: call chatStream()/completionStream() to stream");
    }
  }
}
