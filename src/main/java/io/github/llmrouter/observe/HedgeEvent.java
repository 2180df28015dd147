package io.github.llmrouter.observe;

import java.time.Duration;

/**
 * A call sent a hedge (a second attempt while its first was still waiting, see {@code
 * HedgePolicy}), and the race is decided: reported once, when the first of the two answers or
 * both have failed.
 *
 * @param callId as in {@link CallStartedEvent#callId()}
 * @param operation as in {@link RoutedEvent#operation()}
 * @param model the requested model
 * @param replicaId the replica of the attempt that was waiting
 * @param hedgeReplicaId the replica the hedge went to
 * @param delay how long the first attempt had waited when the hedge went
 * @param winner which of the two delivered first
 *
 * @since 0.3.0
 */
public record HedgeEvent(long callId, String operation, String model, String replicaId,
    String hedgeReplicaId, Duration delay, Winner winner) {
  /** Which attempt of a hedged call delivered first. */
  public enum Winner {
    /** The attempt that was waiting; the hedge was cancelled. */
    FIRST,
    /** The hedge; the attempt that was waiting was cancelled. */
    HEDGE,
    /** Neither: both failed (the call then retries or fails as any call does). */
    NEITHER
  }
}
