package io.github.llmrouter.internal.transport;

import io.github.llmrouter.internal.util.HeaderFields;
import io.github.llmrouter.observe.RequestHeaders;
import java.util.ArrayList;
import java.util.List;
import okhttp3.Request;

/**
 * The headers listeners set on one attempt's request (trace context, for instance), checked as
 * they are set, so that a listener's bad header fails the listener, never the request. Confined
 * to the attempt's thread while its listeners run.
 */
public final class AddedHeaders implements RequestHeaders {
  /** Names and values, alternating; allocated at the first header. */
  private List<String> fields = List.of();

  @Override
  public void set(String name, String value) {
    HeaderFields.checkName(name, "RequestHeaders.set");
    HeaderFields.checkValue(name, value, "RequestHeaders.set");
    if (fields.isEmpty()) fields = new ArrayList<>(4);
    fields.add(name);
    fields.add(value);
  }

  /** Sets the headers on {@code request}, after (so over) the replica's own. */
  void applyTo(Request.Builder request) {
    for (int i = 0; i < fields.size(); i += 2) request.header(fields.get(i), fields.get(i + 1));
  }
}
