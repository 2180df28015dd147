package io.github.llmrouter.sim;

import static java.util.Objects.requireNonNull;

import java.util.Arrays;
import org.jspecify.annotations.Nullable;

/**
 * One request of a trace: when it arrives, how long its prompt and answer are, and which prompt
 * blocks it shares with other requests.
 *
 * <p>{@code blockIds} follow the Mooncake convention: one id per {@link Trace#blockTokens()} prompt
 * tokens (the last block may be partial), and two requests with equal ids at position {@code i}
 * have identical prompts up to the end of block {@code i}. The simulator chains the ids anyway, so
 * a trace whose ids identify block contents alone is read correctly too.
 *
 * @param arrivalSeconds arrival time, seconds from the start of the trace
 * @param inputTokens prompt length in tokens, at least 1
 * @param outputTokens answer length in tokens, at least 1
 * @param blockIds prompt block ids, at least one; the array is not copied: do not modify it
 * @param sessionId a conversation or user id when the trace has one, usable as a routing key
 * @param model the model the request names, when the fleet serves several; null for the one
 *     model of a fleet that serves one
 * @param baseModel when {@code model} is a LoRA adapter, the base model it runs on (the replicas
 *     of that base model serve it); else null
 */
public record TraceRequest(
    double arrivalSeconds, int inputTokens, int outputTokens, long[] blockIds,
    @Nullable String sessionId, @Nullable String model, @Nullable String baseModel) {
  /** A request of a fleet that serves one model. */
  public TraceRequest(double arrivalSeconds, int inputTokens, int outputTokens, long[] blockIds,
      @Nullable String sessionId) {
    this(arrivalSeconds, inputTokens, outputTokens, blockIds, sessionId, null, null);
  }

  public TraceRequest {
    requireNonNull(blockIds, "blockIds");
    if (!(arrivalSeconds >= 0) || Double.isInfinite(arrivalSeconds)) {
      throw new IllegalArgumentException("arrivalSeconds must be finite and >= 0, got "
          + arrivalSeconds);
    }
    if (inputTokens < 1) throw new IllegalArgumentException("inputTokens must be >= 1, got " + inputTokens);
    if (outputTokens < 1) {
      throw new IllegalArgumentException("outputTokens must be >= 1, got " + outputTokens);
    }
    if (blockIds.length == 0) throw new IllegalArgumentException("blockIds must not be empty");
    if (baseModel != null && model == null) {
      throw new IllegalArgumentException("a baseModel needs the model (adapter) that runs on it");
    }
  }

  /** The model whose replicas serve this request: its base model, else its model; or null. */
  public @Nullable String servedBy() {
    return baseModel != null ? baseModel : model;
  }

  /** The same request arriving at {@code seconds}. */
  public TraceRequest withArrival(double seconds) {
    return new TraceRequest(seconds, inputTokens, outputTokens, blockIds, sessionId, model,
        baseModel);
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof TraceRequest r && r.arrivalSeconds == arrivalSeconds
        && r.inputTokens == inputTokens && r.outputTokens == outputTokens
        && Arrays.equals(r.blockIds, blockIds) && java.util.Objects.equals(r.sessionId, sessionId)
        && java.util.Objects.equals(r.model, model)
        && java.util.Objects.equals(r.baseModel, baseModel);
  }

  @Override
  public int hashCode() {
    return Double.hashCode(arrivalSeconds) * 31 + Arrays.hashCode(blockIds);
  }

  @Override
  public String toString() {
    return "TraceRequest{t=" + arrivalSeconds + "s, in=" + inputTokens + ", out=" + outputTokens
        + ", blocks=" + blockIds.length + (sessionId == null ? "" : ", session=" + sessionId)
        + (model == null ? "" : ", model=" + model)
        + (baseModel == null ? "" : " on " + baseModel) + '}';
  }
}
