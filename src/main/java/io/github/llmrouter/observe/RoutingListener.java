package io.github.llmrouter.observe;

/**
 * Receives routing events: every replica choice with the reason for it, every failed attempt, and
 * the end of every call. Methods are called on the request's thread (or an OkHttp thread for
 * asynchronous calls) and must return quickly; an exception thrown by a listener is logged and
 * otherwise ignored.
 *
 * <pre>{@code
 * LlmClient client = LlmClient.builder()
 *     .replicas("http://10.0.0.7:8000", "http://10.0.0.8:8000")
 *     .listener(new RoutingListener() {
 *       public void onRouted(RoutedEvent e) { log.debug("{} -> {} ({})", e.model(), e.replicaId(), e.reason()); }
 *     })
 *     .build();
 * }</pre>
 */
public interface RoutingListener {
  /** A listener that ignores everything. */
  RoutingListener NONE = new RoutingListener() {};

  /** A replica was chosen for an attempt. */
  default void onRouted(RoutedEvent event) {}

  /** An attempt failed; {@link AttemptFailedEvent#willRetry()} says whether another follows. */
  default void onAttemptFailed(AttemptFailedEvent event) {}

  /** A call ended, successfully or not (for streams: when the first chunk arrived or all failed). */
  default void onCallFinished(CallFinishedEvent event) {}
}
