package io.github.llmrouter.routing;

import static io.github.llmrouter.routing.Fleets.fleet;
import static org.assertj.core.api.Assertions.assertThat;

import io.github.llmrouter.api.Ticker;
import io.github.llmrouter.internal.load.LocalLoad;
import io.github.llmrouter.replica.ReplicaSet;
import java.time.Duration;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicLong;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Whatever the answers report, {@link CacheAware} keeps routing: every learnt estimate stays within
 * its documented bounds, finite, and a healthy fleet always has a replica to try.
 */
class DegenerateAnswersTest {
  private static final int ANSWERS = 50_000;
  private static final String PROMPT = Fleets.randomText(new SplittableRandom(5), 3_000);

  /** Kinds of usage a replica may report, each sent 50,000 times in a row. */
  enum Degenerate {
    NO_USAGE(-1, -1),
    NO_CACHED_TOKENS(1_000, -1),
    ZERO_PROMPT_TOKENS(0, 0),
    CACHED_EQUALS_PROMPT(1_000, 1_000),
    CACHED_ABOVE_PROMPT(1_000, 5_000),
    NEAR_LONG_MAX(Long.MAX_VALUE - 1, Long.MAX_VALUE - 2),
    NEAR_LONG_MAX_NOTHING_CACHED(Long.MAX_VALUE, 0),
    NEGATIVE(-7, -3);

    final long prompt;
    final long cached;

    Degenerate(long prompt, long cached) {
      this.prompt = prompt;
      this.cached = cached;
    }
  }

  private final AtomicLong nanos = new AtomicLong(1_000_000_000L);
  private final Ticker ticker = nanos::get;

  @ParameterizedTest
  @EnumSource(Degenerate.class)
  void fiftyThousandAnswersOfOneDegenerateKindLeaveRoutingWorking(Degenerate kind) {
    CacheAware policy = CacheAware.builder().build();
    ReplicaSet replicas = fleet(4);
    ReplicaPicker picker = policy.newPicker(replicas);
    LocalLoad load = LocalLoad.of(replicas, ticker, Duration.ofSeconds(3));
    RoutingRequest request = RoutingRequest.builder("m").message("user", PROMPT).build();
    for (int call = 0; call < ANSWERS; call++) {
      boolean streamed = (call & 1) == 0;
      int replica = sendAndAnswer(picker, load, request, streamed, kind.prompt, kind.cached, 1_000);
      assertThat(replica).as("call %d", call).isNotNegative();
    }
    assertWithinBounds(policy.memory());
  }

  @Property(tries = 40)
  void anyStreamOfAnswersLeavesEstimatesBoundedAndRoutingWorking(
      @ForAll("answers") List<Answer> answers) {
    CacheAware policy = CacheAware.builder().build();
    ReplicaSet replicas = fleet(3);
    ReplicaPicker picker = policy.newPicker(replicas);
    LocalLoad load = LocalLoad.of(replicas, ticker, Duration.ofSeconds(3));
    for (Answer answer : answers) {
      RoutingRequest request = RoutingRequest.builder("m")
          .message("system", PROMPT.substring(0, 1_000))
          .message("user", PROMPT.substring(0, answer.promptChars())).build();
      int replica = sendAndAnswer(picker, load, request, answer.streamed(), answer.prompt(),
          answer.cached(), answer.firstTokenNanos());
      assertThat(replica).isNotNegative();
      assertWithinBounds(policy.memory());
    }
  }

  record Answer(long prompt, long cached, long firstTokenNanos, boolean streamed,
      int promptChars) {}

  @Provide
  Arbitrary<List<Answer>> answers() {
    Arbitrary<Long> tokens = Arbitraries.oneOf(
        Arbitraries.longs().between(-10, 200_000),
        Arbitraries.of(0L, -1L, Long.MAX_VALUE, Long.MIN_VALUE, Long.MAX_VALUE - 1),
        Arbitraries.longs());
    Arbitrary<Long> delays = Arbitraries.oneOf(
        Arbitraries.longs().between(0, 10_000_000_000L),
        Arbitraries.of(0L, 1L, 3_600_000_000_000L));
    Arbitrary<Answer> answer = Combinators.combine(tokens, tokens, delays,
        Arbitraries.of(true, false), Arbitraries.integers().between(1, PROMPT.length()))
        .as(Answer::new);
    return answer.list().ofMinSize(1).ofMaxSize(300);
  }

  /** Ranks, sends rank 0, answers after {@code delay} nanos; returns the replica sent to. */
  private int sendAndAnswer(ReplicaPicker picker, LocalLoad load, RoutingRequest request,
      boolean streamed, long prompt, long cached, long delay) {
    Ranking ranking = picker.rank(request, load);
    int i = ranking.next();
    if (i < 0) return i;
    load.counter(i).acquire();
    RoutedAttempt attempt = ranking.sent(i, nanos.get(), streamed);
    nanos.addAndGet(delay);
    if (streamed) attempt.firstToken(nanos.get());
    attempt.completed(prompt, cached, nanos.get());
    load.counter(i).release();
    // Decisions also read the estimates: every one of them must explain itself in figures.
    assertThat(ranking.estimatedWaitSeconds()).isFinite().isNotNegative();
    assertThat(ranking.predictedCachedTokens()).isNotNegative();
    return i;
  }

  private static void assertWithinBounds(FleetMemory memory) {
    Calibration cal = memory.calibration;
    assertThat(cal.tokenRatio()).isBetween(Calibration.MIN_TOKEN_RATIO, Calibration.MAX_TOKEN_RATIO);
    assertThat(cal.prefillRate()).isBetween(Calibration.MIN_PREFILL_TOKENS_PER_SECOND,
        Calibration.MAX_PREFILL_TOKENS_PER_SECOND);
    assertThat(cal.typicalUncached()).isBetween(Calibration.MIN_UNCACHED_TOKENS,
        Calibration.MAX_UNCACHED_TOKENS);
    assertThat(cal.foreignShare()).isBetween(0.0, 1.0);
    assertThat(memory.meanWait).isFinite().isNotNegative();
    assertThat(memory.leastWait).isFinite().isNotNegative();
    for (ReplicaState state : memory.statesForDebug()) {
      assertThat(state.conversationConfidence).isBetween(ReplicaState.MIN_CONFIDENCE, 1.0);
      assertThat(state.systemConfidence).isBetween(ReplicaState.MIN_CONFIDENCE, 1.0);
      assertThat(state.ownWait(0)).isFinite().isNotNegative();
    }
  }
}
