package io.github.llmrouter.api;

import java.util.List;

/**
 * A stream broke after at least one chunk reached the caller: the connection failed, the server
 * sent an error event (the cause is then a {@link ReplicaHttpException}) or a malformed event. It
 * is never retried (the caller has already seen part of an answer that a replay would not
 * reproduce); what was received is attached. A stream that went idle instead is an {@link
 * LlmTimeoutException}, which carries what was received too.
 *
 * @since 0.2.0
 */
public final class StreamInterruptedException extends LlmException {
  /** The chunks delivered before the break; not serialized. */
  private final transient List<?> received;
  /** The first choice's text delivered before the break. */
  private final String receivedText;

  /**
   * A stream that broke.
   *
   * @param replicaId the replica that served the stream
   * @param received the chunks delivered before the break, in order
   * @param receivedText the concatenated text of the first choice delivered before it
   * @param cause what broke it
   */
  public StreamInterruptedException(String replicaId, List<?> received, String receivedText,
      Throwable cause) {
    super("stream from replica " + replicaId + " broke after " + received.size() + " chunks",
        replicaId, cause);
    this.received = List.copyOf(received);
    this.receivedText = receivedText;
  }

  /**
   * {@return the chunks delivered before the break, in order ({@link ChatChunk} or {@link
   * CompletionResponse})}
   */
  public List<?> receivedChunks() {
    return received;
  }

  /** {@return the concatenated text of the first choice delivered before the break} */
  public String receivedText() {
    return receivedText;
  }
}
