package io.github.llmrouter.api;

import java.util.List;

/**
 * A stream broke after at least one chunk reached the caller. It is never retried (the caller has
 * already seen part of an answer that a replay would not reproduce); what was received is attached.
 */
public final class StreamInterruptedException extends LlmException {
  private final transient List<?> received;
  private final String receivedText;

  public StreamInterruptedException(String replicaId, List<?> received, String receivedText,
      Throwable cause) {
    super("stream from replica " + replicaId + " broke after " + received.size() + " chunks",
        replicaId, cause);
    this.received = List.copyOf(received);
    this.receivedText = receivedText;
  }

  /** The chunks delivered before the break, in order ({@link ChatChunk} or {@link CompletionResponse}). */
  public List<?> receivedChunks() {
    return received;
  }

  /** The concatenated text of the first choice delivered before the break. */
  public String receivedText() {
    return receivedText;
  }
}
