package io.github.llmrouter.api;

import com.fasterxml.jackson.annotation.JsonAnyGetter;
import com.fasterxml.jackson.annotation.JsonAnySetter;
import java.util.Map;

/**
 * An object of the OpenAI-compatible API as a server sent it: typed fields for what this library
 * models, and {@link #extra()} for everything else (vLLM's {@code prompt_logprobs}, a message's
 * {@code tool_calls} or {@code reasoning_content}, fields of future API versions). Extra fields
 * keep their order and are written back unchanged, so responses round-trip. Only this package's
 * types extend it.
 *
 * @since 0.2.0
 */
public abstract class ApiObject {
  private Map<String, Object> extra = JsonExtras.none();

  ApiObject() {}

  /**
   * {@return the fields the typed API does not model, in the order received; unmodifiable, empty if
   * none}
   */
  @JsonAnyGetter
  public final Map<String, Object> extra() {
    return JsonExtras.view(extra);
  }

  @JsonAnySetter
  final void putExtra(String field, Object value) {
    extra = JsonExtras.put(extra, field, value);
  }

  /** Replaces the extra fields with a copy of {@code fields} (for values built in code). */
  final void setExtra(Map<String, Object> fields) {
    extra = JsonExtras.copy(fields);
  }

  /** Whether any extra field is present. */
  final boolean hasExtra() {
    return !extra.isEmpty();
  }
}
