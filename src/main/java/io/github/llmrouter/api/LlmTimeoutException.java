package io.github.llmrouter.api;

import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * A timeout of the call itself: its deadline ({@code callTimeout}) expired, or a stream received
 * nothing for longer than the stream idle timeout after its first chunk. Catching this type catches
 * every way a call can run out of time.
 *
 * <p>A replica that times out before answering (connect or first-byte timeout) is one failed
 * attempt like any other: it is reported as this type in attempt events and in {@link
 * RetriesExhaustedException#attempts()}, with {@link #isRetryable()} true, and the call fails over.
 *
 * <p>When a stream times out after its first chunk, {@link #receivedChunks()} and {@link
 * #receivedText()} hold what reached the caller before, as {@link StreamInterruptedException}'s do
 * for a stream that broke.
 *
 * @since 0.2.0
 */
public final class LlmTimeoutException extends LlmException {
  /** Whether another replica may answer in time. */
  private final boolean retryable;
  private final transient List<?> received;
  /** The text of the first choice received before the timeout. */
  private final String receivedText;

  /**
   * A timeout before any chunk of an answer reached the caller.
   *
   * @param message what timed out, and after how long
   * @param replicaId the replica concerned, or null for the call's deadline
   * @param cause the I/O timeout, or the failure the deadline cut short; or null
   * @param retryable whether another replica may answer in time (a timeout of one replica, not
   *     the call's deadline)
   */
  public LlmTimeoutException(String message, @Nullable String replicaId, @Nullable Throwable cause,
      boolean retryable) {
    this(message, replicaId, cause, retryable, List.of(), "");
  }

  /**
   * A stream that timed out after {@code received} reached the caller; never retryable.
   *
   * @param message what timed out, and after how many chunks
   * @param replicaId the replica that served the stream
   * @param cause the I/O timeout or the deadline's failure, or null
   * @param received the chunks delivered before the timeout, in order
   * @param receivedText the concatenated text of the first choice delivered before it
   */
  public LlmTimeoutException(String message, String replicaId, @Nullable Throwable cause,
      List<?> received, String receivedText) {
    this(message, replicaId, cause, false, received, receivedText);
  }

  private LlmTimeoutException(String message, @Nullable String replicaId,
      @Nullable Throwable cause, boolean retryable, List<?> received, String receivedText) {
    super(message, replicaId, cause);
    this.retryable = retryable;
    this.received = List.copyOf(received);
    this.receivedText = receivedText;
  }

  @Override
  public boolean isRetryable() {
    return retryable;
  }

  /**
   * The chunks of a stream delivered before it timed out.
   *
   * @return the chunks in order ({@link ChatChunk} or {@link CompletionResponse}); empty if the
   *     timeout came before the first chunk or ended a non-streamed call
   */
  public List<?> receivedChunks() {
    return received;
  }

  /**
   * The text delivered before the timeout.
   *
   * @return the concatenated text of the first choice; empty if none
   */
  public String receivedText() {
    return receivedText;
  }
}
