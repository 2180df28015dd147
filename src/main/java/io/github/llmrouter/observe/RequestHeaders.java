package io.github.llmrouter.observe;

/**
 * Headers a listener adds to one attempt's HTTP request, such as the W3C {@code traceparent} that
 * joins a replica's own traces to the caller's. Given to {@link
 * RoutingListener#onRouted(RoutedEvent, RequestHeaders)}, valid only during that call, and not
 * thread-safe. A header set here replaces one of the same name that the replica's configuration
 * sets.
 *
 * @since 0.3.0
 */
public interface RequestHeaders {
  /**
   * Sets a header on the attempt's request.
   *
   * @param name the header's name: an HTTP token
   * @param value its value: printable ASCII (spaces and tabs allowed)
   * @throws IllegalArgumentException if the name or the value is not valid in an HTTP header (the
   *     message names the header, never its value)
   */
  void set(String name, String value);
}
