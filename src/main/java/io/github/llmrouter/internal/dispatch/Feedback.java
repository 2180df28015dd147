package io.github.llmrouter.internal.dispatch;

import io.github.llmrouter.api.ReportsUsage;
import io.github.llmrouter.api.Usage;
import io.github.llmrouter.routing.Ranking;
import io.github.llmrouter.routing.RoutedAttempt;
import io.github.llmrouter.routing.RoutingPolicy;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Tells a policy what became of an attempt it ranked: that it was sent, its first token, and the
 * usage the replica reported (prompt tokens and cached prompt tokens; any answer is a {@link
 * ReportsUsage}), or its failure. A policy
 * that throws is logged and ignored: learning is advice, and the call's outcome must not depend on
 * it. The {@link AttemptLoop} calls these where an attempt is sent, succeeds or fails; a stream's
 * usage is what it reported when it ends.
 */
final class Feedback {
  private static final Logger log = LoggerFactory.getLogger(Feedback.class);

  private Feedback() {}

  /**
   * The attempt on {@code pick}, of {@code ranking}, is being sent ({@code streamed}: its first
   * token will be seen). Only the ranking's own pick is its to account for (not a replica
   * revisited after a pause); otherwise, or if the policy fails to say, {@link
   * RoutedAttempt#IGNORED}.
   */
  static RoutedAttempt sent(Ranking ranking, Pick pick, long now, boolean streamed,
      RoutingPolicy policy) {
    if (!pick.fromRanking()) return RoutedAttempt.IGNORED;
    try {
      RoutedAttempt routed = ranking.sent(pick.index(), now, streamed);
      return routed == null ? RoutedAttempt.IGNORED : routed;
    } catch (RuntimeException e) {
      log.warn("RoutingPolicy {} failed to record a sent request; ignoring", policy.name(), e);
      return RoutedAttempt.IGNORED;
    }
  }

  static void firstToken(RoutedAttempt routed, long now) {
    if (routed == RoutedAttempt.IGNORED) return;
    try {
      routed.firstToken(now);
    } catch (RuntimeException e) {
      log.warn("RoutedAttempt.firstToken threw; ignoring", e);
    }
  }

  /** The replica answered with {@code value} (a response, or a stream's last chunk; or null). */
  static void answered(RoutedAttempt routed, @Nullable Object value, long now) {
    if (routed == RoutedAttempt.IGNORED) return;
    Usage usage = usageOf(value);
    long prompt = usage == null || usage.promptTokens() <= 0 ? -1 : usage.promptTokens();
    long cached = usage == null ? -1 : usage.cachedTokens();
    try {
      routed.completed(prompt, cached, now);
    } catch (RuntimeException e) {
      log.warn("RoutedAttempt.completed threw; ignoring", e);
    }
  }

  static void failed(RoutedAttempt routed, long now) {
    if (routed == RoutedAttempt.IGNORED) return;
    try {
      routed.failed(now);
    } catch (RuntimeException e) {
      log.warn("RoutedAttempt.failed threw; ignoring", e);
    }
  }

  /** The usage an answer (a response, or what a stream reported) reports, or null. */
  static @Nullable Usage usageOf(@Nullable Object value) {
    return value instanceof ReportsUsage r ? r.usage() : null;
  }

  /** The model an answer says answered, or null. */
  static @Nullable String modelOf(@Nullable Object value) {
    return value instanceof ReportsUsage r ? r.model() : null;
  }
}
