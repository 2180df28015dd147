package io.github.llmrouter.transport;

import org.jspecify.annotations.Nullable;

/**
 * What a JSON answer of one endpoint must be: the type it binds to, and the parts it cannot do
 * without. A body that binds but lacks them ({@code null}, {@code {}}, a chat completion without
 * {@code choices}) is a malformed answer, failed over like any other replica failure, never
 * returned to the caller. Internal; not part of the public API.
 *
 * @param <T> the response type
 */
public interface ResponseShape<T> {
  /**
   * The type the body binds to.
   *
   * @return the response class
   */
  Class<T> type();

  /**
   * What an answer lacks for its endpoint.
   *
   * @param value the parsed answer, not null
   * @return a short phrase for an error message ({@code "no choices"}), or null if it is complete
   */
  @Nullable String defect(T value);
}
