package io.github.llmrouter.api;

import java.util.List;

/**
 * A stream broke after at least one chunk reached the caller. It is never retried (the caller has
 * already seen part of an answer that a replay would not reproduce); what was received is attached.
 */
public final class StreamInterruptedException extends LlmException {
  private final transient List<?> received;
  /** The first choice's text delivered before the break. */
  private final String receivedText;

  /**
   * Creates the exception; the client throws it, applications construct it in tests of their own
   * error handling.
   *
   * @param replicaId the replica whose stream broke; not null
   * @param received the chunks delivered before the break; copied
   * @param receivedText the first choice's text delivered before the break
   * @param cause the failure that broke the stream
   */
  public StreamInterruptedException(String replicaId, List<?> received, String receivedText,
      Throwable cause) {
    super("stream from replica " + replicaId + " broke after " + received.size() + " chunks",
        replicaId, cause);
    this.received = List.copyOf(received);
    this.receivedText = receivedText;
  }

  /**
   * The chunks delivered before the break, in order ({@link ChatChunk} or {@link
   * CompletionResponse}).
   *
   * @return the chunks, immutable ({@link ChatChunk} or {@link CompletionResponse}); empty after
   *     deserialization
   */
  public List<?> receivedChunks() {
    return received;
  }

  /**
   * {@return the concatenated text of the first choice delivered before the break, possibly empty}
   */
  public String receivedText() {
    return receivedText;
  }
}
