package io.github.llmrouter.internal.transport;

import com.fasterxml.jackson.annotation.JsonAutoDetect.Visibility;
import com.fasterxml.jackson.annotation.JsonSetter;
import com.fasterxml.jackson.annotation.Nulls;
import com.fasterxml.jackson.annotation.PropertyAccessor;
import io.github.llmrouter.api.LlmException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.DeserializationFeature;
import tools.jackson.databind.json.JsonMapper;

/**
 * The client's JSON codec: one Jackson mapper with field-based binding of the {@code api} types,
 * unknown fields kept (the types collect them), nulls omitted. A JSON {@code null} where a list or
 * a vector is expected reads as empty, and null list elements are dropped, so that a response
 * object never holds a null list: {@code "choices": null} reads as no choices.
 */
public final class Json {
  /** Thread-safe and immutable, as every Jackson 3 mapper is. */
  public static final JsonMapper MAPPER = JsonMapper.builder()
      .changeDefaultVisibility(v -> v
          .withVisibility(PropertyAccessor.GETTER, Visibility.NONE)
          .withVisibility(PropertyAccessor.IS_GETTER, Visibility.NONE)
          .withVisibility(PropertyAccessor.SETTER, Visibility.NONE)
          .withVisibility(PropertyAccessor.CREATOR, Visibility.ANY))
      .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
      .disable(DeserializationFeature.FAIL_ON_NULL_FOR_PRIMITIVES)
      .withConfigOverride(List.class,
          o -> o.setNullHandling(JsonSetter.Value.construct(Nulls.AS_EMPTY, Nulls.SKIP)))
      .withConfigOverride(float[].class,
          o -> o.setNullHandling(JsonSetter.Value.forValueNulls(Nulls.AS_EMPTY)))
      .build();

  /** What a streaming request adds in front of its fields. */
  private static final byte[] STREAM_PREFIX =
      "{\"stream\":true,\"stream_options\":{\"include_usage\":true},".getBytes(
          StandardCharsets.US_ASCII);

  private Json() {}

  /**
   * {@code request} as a JSON request body; with {@code stream}, asking for an event stream that
   * ends with the usage.
   */
  static byte[] requestBody(Object request, boolean stream) {
    byte[] json;
    try {
      json = MAPPER.writeValueAsBytes(request);
    } catch (JacksonException e) {
      throw new LlmException("request could not be written as JSON: " + e.getOriginalMessage(),
          null, e);
    }
    if (!stream) return json;
    // Splice the stream flags in after the opening brace: no tree copy of the request.
    byte[] spliced = new byte[STREAM_PREFIX.length + json.length - 1];
    System.arraycopy(STREAM_PREFIX, 0, spliced, 0, STREAM_PREFIX.length);
    System.arraycopy(json, 1, spliced, STREAM_PREFIX.length, json.length - 1);
    if (json.length == 2) spliced[STREAM_PREFIX.length - 1] = '}';
    return spliced;
  }
}
