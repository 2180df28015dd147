package io.github.llmrouter.transport;

import com.fasterxml.jackson.annotation.JsonAutoDetect.Visibility;
import com.fasterxml.jackson.annotation.JsonSetter;
import com.fasterxml.jackson.annotation.Nulls;
import com.fasterxml.jackson.annotation.PropertyAccessor;
import java.util.List;
import tools.jackson.databind.DeserializationFeature;
import tools.jackson.databind.json.JsonMapper;

/**
 * The one Jackson mapper the client uses: field-based binding of the {@code api} types, unknown
 * fields kept (the types collect them), nulls omitted. A JSON {@code null} where a list or a vector
 * is expected reads as empty, and null list elements are dropped, so that a response object never
 * holds a null list: {@code "choices": null} reads as no choices. Internal; not part of the public
 * API.
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

  private Json() {}
}
