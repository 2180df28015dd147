package io.github.llmrouter.internal.transport;

import io.github.llmrouter.api.ReportsUsage;
import io.github.llmrouter.api.Usage;
import org.jspecify.annotations.Nullable;
import tools.jackson.core.JsonParser;
import tools.jackson.core.JsonToken;

/**
 * What a raw answer reported of itself, read as it passed: its usage (prompt tokens, cached prompt
 * tokens) and the model that answered. Routing feedback and events read it as they read a typed
 * answer's. Immutable.
 *
 * @param usage the usage, or null if the answer reported none
 * @param model the model, or null
 */
public record Reported(@Nullable Usage usage, @Nullable String model) implements ReportsUsage {
  /** Nothing reported. */
  static final Reported NOTHING = new Reported(null, null);

  /**
   * What the JSON object in {@code json} reports: its top-level {@code model} and {@code usage},
   * or those of its {@code response} object (a Responses API stream event).
   *
   * @param json one JSON object: a whole answer, or a stream event's data
   * @return what it reports
   * @throws tools.jackson.core.JacksonException if {@code json} is not valid JSON
   */
  static Reported scan(byte[] json) {
    try (JsonParser p = Json.MAPPER.createParser(json)) {
      return p.nextToken() == JsonToken.START_OBJECT ? read(p) : NOTHING;
    }
  }

  /** Reads the object the parser has just entered, to its end. */
  private static Reported read(JsonParser p) {
    Usage usage = null;
    String model = null;
    Reported inner = null;
    while (p.nextToken() == JsonToken.PROPERTY_NAME) {
      String name = p.currentName();
      JsonToken t = p.nextToken();
      if (name.equals("usage") && t == JsonToken.START_OBJECT) {
        usage = p.readValueAs(Usage.class);
      } else if (name.equals("model") && t == JsonToken.VALUE_STRING) {
        model = p.getString();
      } else if (name.equals("response") && t == JsonToken.START_OBJECT) {
        inner = read(p);
      } else {
        p.skipChildren();
      }
    }
    if (inner != null && usage == null && model == null) return inner;
    return usage == null && model == null ? NOTHING : new Reported(usage, model);
  }
}
