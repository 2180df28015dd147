package io.github.llmrouter.internal.transport;

import io.github.llmrouter.replica.Replica;
import org.jspecify.annotations.Nullable;

/**
 * Where {@link ModelDiscovery} delivers what each replica says it serves. Called on OkHttp's
 * threads; implementations must be thread-safe and must not block or throw.
 */
public interface ModelListingSink {
  /**
   * {@code replica} answered a listing, or failed to.
   *
   * @param replica the replica asked
   * @param models what it listed (possibly no model), or null if the listing failed (no answer,
   *     an error status, a body that is not a model list)
   */
  void listed(Replica replica, @Nullable ModelList models);
}
