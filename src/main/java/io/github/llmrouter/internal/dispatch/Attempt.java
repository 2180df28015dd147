package io.github.llmrouter.internal.dispatch;

import io.github.llmrouter.api.LlmException;
import io.github.llmrouter.api.Ticker;
import io.github.llmrouter.internal.health.ReplicaStatus;
import io.github.llmrouter.internal.load.InFlightCounter;
import io.github.llmrouter.internal.transport.AddedHeaders;
import io.github.llmrouter.internal.transport.AnswerWatch;
import io.github.llmrouter.internal.transport.Reported;
import io.github.llmrouter.internal.transport.StreamEnd;
import io.github.llmrouter.observe.AttemptEndedEvent.Outcome;
import io.github.llmrouter.replica.Replica;
import io.github.llmrouter.routing.Ranking;
import io.github.llmrouter.routing.RoutedAttempt;
import io.github.llmrouter.routing.RoutingPolicy;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.LongSupplier;
import org.jspecify.annotations.Nullable;

/**
 * One attempt of a call, and the one owner of its lifecycle: the replica it went to (and that
 * replica's index in the call's {@link RoutingTable}), the in-flight count it holds, when it
 * started, whether it holds a circuit breaker's permission, and the policy's account of it
 * ({@link #routed}).
 *
 * <p>It ends exactly once, with its real outcome: answered (for a stream: the replica finished
 * it), failed (for a stream: broken by the replica after its first chunk), or abandoned by the
 * caller (cancelled, or a stream closed early), which says nothing of the replica. Ending releases
 * the in-flight count and tells the outcome to the policy, to outlier detection and to the
 * replica's breaker, and {@link Ended} is told how it ended. A later end is ignored.
 *
 * <p>Its {@link AttemptLoop}'s steps make and end it one at a time; a stream's end comes later, on
 * whichever thread ends the stream. The end is claimed atomically.
 */
final class Attempt implements StreamEnd, ReplicaStatus.InFlight, AnswerWatch {
  /** How an attempt's end is reported beyond the replica's health and the policy. */
  @FunctionalInterface
  interface Ended {
    /**
     * {@code attempt} ended at {@code now} with {@code outcome}; {@code value} is the answer (a
     * stream's last chunk, or null), {@code failure} the failure if it failed.
     */
    void ended(Attempt attempt, Outcome outcome, @Nullable Object value,
        @Nullable LlmException failure, long now);
  }

  /** The percentile of the times of calls like this one that the stall watchdog judges by. */
  static final double USUAL_WAIT_PERCENTILE = 0.99;

  /** The attempt's number in its call, 1 for the first. */
  final int number;
  final int index;
  private final Pick pick;
  final Replica replica;
  final InFlightCounter counter;
  private final Eligibility eligibility;
  private final Ticker ticker;
  private final long startNanos;
  private final Ended ended;
  /** The policy's account of the attempt, once it is sent; {@link RoutedAttempt#IGNORED} before. */
  RoutedAttempt routed = RoutedAttempt.IGNORED;
  /** The prompt tokens the policy predicted the replica held, -1 if it made no prediction. */
  long predictedCachedTokens = -1;
  /** When a stream's first chunk arrived, or {@link Long#MIN_VALUE} before (or for no stream). */
  private volatile long firstChunkAt = Long.MIN_VALUE;
  private final AtomicBoolean over = new AtomicBoolean();
  /** Cancels the exchange, once it is prepared. */
  private volatile @Nullable Runnable cancel;
  private volatile boolean answering;
  /** Whether a stream's first chunk has been read: its caller may have seen it. */
  private volatile boolean delivered;
  /**
   * The times of calls like this one, when the stall watchdog judges its replica by its wait for
   * a first chunk (a stream); else null.
   */
  private @Nullable AnswerTimes waitTimes;
  /** What calls like this one normally wait, once known; {@link #UNKNOWN} before. */
  private volatile long usualWait = UNKNOWN;
  /** What happened to the replica if the attempt was abandoned for it, else null. */
  private volatile @Nullable String lost;

  Attempt(int number, Pick pick, Replica replica, InFlightCounter counter,
      Eligibility eligibility, Ticker ticker, long startNanos, Ended ended) {
    this.number = number;
    this.index = pick.index();
    this.pick = pick;
    this.replica = replica;
    this.counter = counter;
    this.eligibility = eligibility;
    this.ticker = ticker;
    this.startNanos = startNanos;
    this.ended = ended;
  }

  /**
   * Sends the attempt: takes its replica's in-flight count, tells the policy through {@code
   * ranking} that its pick was sent (a stream, if {@code streamed}: its first token will be
   * seen), and prepares {@code exchange}, tracked by the replica's status until the attempt ends
   * so that it is cancelled if the replica stops accepting connections before answering. The
   * caller starts the exchange it returns.
   *
   * @param timeoutNanos what bounds the whole exchange (0 = none), read once the attempt holds its
   *     count; throws if the call's deadline has passed
   * @param headers the headers the listeners added, or null
   * @throws LlmException if the exchange cannot be prepared (the deadline passed, or the request
   *     cannot be built); the attempt, which holds its count, must then be failed
   */
  <R> Exchange.Prepared<R> send(Ranking ranking, boolean streamed, RoutingPolicy policy,
      Exchange<R> exchange, LongSupplier timeoutNanos, @Nullable AddedHeaders headers) {
    counter.acquire();
    routed = Feedback.sent(ranking, pick, ticker.read(), streamed, policy);
    Exchange.Prepared<R> prepared = exchange.prepare(this, timeoutNanos.getAsLong(), headers);
    cancel = prepared::cancel;
    if (!over.get()) eligibility.status(index).track(this);
    return prepared;
  }

  @Override
  public void answerBegan() {
    answering = true;
  }

  @Override
  public boolean answering() {
    return answering;
  }

  @Override
  public boolean delivered() {
    return delivered;
  }

  /**
   * Lets the stall watchdog judge the attempt's replica by how long this attempt waits for its
   * first chunk, against {@code times}, the times of calls like it. Set before the attempt is
   * sent.
   */
  void judgedBy(AnswerTimes times) {
    waitTimes = times;
  }

  @Override
  public long usualWaitNanos() {
    AnswerTimes times = waitTimes;
    if (times == null) return NOT_JUDGED;
    long usual = usualWait;
    if (usual == UNKNOWN && times.known()) {
      usualWait = usual = times.percentileNanos(USUAL_WAIT_PERCENTILE);
    }
    return usual;
  }

  @Override
  public void replicaLost(String why) {
    lost = why;
    Runnable c = cancel;
    if (c != null) c.run();
  }

  /**
   * What happened to the replica if the exchange was abandoned for it (it stopped accepting
   * connections or answering before this attempt got any answer), else null.
   */
  @Nullable String lost() {
    return lost;
  }

  /** How long the attempt ran until {@code now}, or 0 if it has ended. */
  long durationNanos(long now) {
    return over.get() ? 0 : now - startNanos;
  }

  @Override
  public long startNanos() {
    return startNanos;
  }

  /** {@return when a stream's first chunk arrived, or {@link Long#MIN_VALUE} if none did} */
  long firstChunkAt() {
    return firstChunkAt;
  }

  /**
   * The replica delivered at {@code now}: a stream's first chunk was read (its caller may see it
   * from now on), or a whole answer arrived. Tells the replica's status it is making progress.
   */
  void delivering(long now) {
    delivered = true;
    eligibility.status(index).delivered(now);
  }

  /**
   * A stream's first chunk, read at {@code now}, went to the caller: the attempt goes on until
   * the stream ends.
   */
  void firstChunk(long now) {
    firstChunkAt = now;
    Feedback.firstToken(routed, now);
  }

  /** The replica answered {@code value} (a whole answer, or a stream's last chunk, or null). */
  void answered(@Nullable Object value, long now) {
    if (!claimEnd()) return;
    counter.release();
    eligibility.status(index).delivered(now);
    Feedback.answered(routed, value, now);
    eligibility.record(index, pick.permitted(), now, now - startNanos, null);
    ended.ended(this, Outcome.ANSWERED, value, null, now);
  }

  /**
   * The attempt failed with {@code failure}, classified by the transport; {@return whether this
   * ended it}
   */
  boolean failed(LlmException failure, long now) {
    if (!claimEnd()) return false;
    counter.release();
    Feedback.failed(routed, now);
    eligibility.record(index, pick.permitted(), now, now - startNanos, failure);
    ended.ended(this, Outcome.FAILED, null, failure, now);
    return true;
  }

  /** The caller let go (cancelled, or closed a stream early): nothing is known of the replica. */
  void abandoned(long now) {
    if (!claimEnd()) return;
    counter.release();
    Feedback.failed(routed, now);
    eligibility.record(index, pick.permitted(), now, 0,
        new LlmException("cancelled by the caller"));
    ended.ended(this, Outcome.ABANDONED, null, null, now);
  }

  @Override
  public void completed(Reported reported) {
    answered(reported, ticker.read());
  }

  @Override
  public void broke(LlmException failure) {
    failed(failure, ticker.read());
  }

  @Override
  public void abandoned() {
    abandoned(ticker.read());
  }

  private boolean claimEnd() {
    if (!over.compareAndSet(false, true)) return false;
    eligibility.status(index).untrack(this);
    return true;
  }
}
