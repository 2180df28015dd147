package io.github.llmrouter.api;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Fields a server sent (or a caller set) that the typed API does not model. Kept in order, so
 * they round-trip untouched. Package-private: each type exposes them as an unmodifiable map.
 */
final class JsonExtras {
  private static final Map<String, Object> NONE = Collections.emptyMap();

  private JsonExtras() {}

  static Map<String, Object> put(Map<String, Object> extras, String name, Object value) {
    Map<String, Object> m = extras == NONE ? new LinkedHashMap<>() : extras;
    m.put(name, value);
    return m;
  }

  static Map<String, Object> none() {
    return NONE;
  }

  static Map<String, Object> copy(Map<String, Object> extras) {
    return extras.isEmpty() ? NONE : Collections.unmodifiableMap(new LinkedHashMap<>(extras));
  }

  static Map<String, Object> view(Map<String, Object> extras) {
    return extras.isEmpty() ? NONE : Collections.unmodifiableMap(extras);
  }
}
