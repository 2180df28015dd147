package io.github.llmrouter.emulator;

import static java.util.Objects.requireNonNull;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicLong;
import org.jspecify.annotations.Nullable;

/**
 * Scripted failures of one {@link EmulatedReplica}, for tests of retries, failover and health
 * checking. Thread-safe; every method returns {@code this} so a script reads as one statement.
 *
 * <pre>{@code
 * replica.faults()
 *     .failNext(1, 503, "2")   // first request: 503 with Retry-After: 2
 *     .resetNext(1);           // second request: connection dropped, no response
 * }</pre>
 *
 * <p>Faults apply to the inference endpoints only ({@code /v1/chat/completions},
 * {@code /v1/completions}, {@code /v1/embeddings}). {@link #failNext}, {@link #resetNext},
 * {@link #delayNext} and {@link #hangNext} form one FIFO script: each request takes one step from
 * the head, so {@code failNext(1, 503).resetNext(1)} fails the first request and resets the
 * second, whatever their timing. {@link #breakStreamAfter} is a separate script consumed only by
 * streaming requests, because a non-streaming request has no stream to break; it combines with a
 * step of the first script (a delayed request can also have its stream broken).
 *
 * <p>Besides the scripts, {@link #randomly} makes every inference request that the script leaves
 * alone fail, reset or hang at given rates, drawn from a seeded generator: a chaos test's steady
 * background of faults.
 */
public final class EmulatedFaults {
  /** What {@code /health} answers until {@link #healthStatus(int)} says otherwise: {@value}. */
  public static final int DEFAULT_HEALTH_STATUS = 200;
  /** The longest accepted {@link #delayNext} delay, in seconds: {@value}. */
  public static final long MAX_DELAY_SECONDS = 600;

  private final Deque<Step> script = new ArrayDeque<>(); // guarded by this
  private final Deque<Step> streamBreaks = new ArrayDeque<>(); // guarded by this
  private volatile int healthStatus = DEFAULT_HEALTH_STATUS;
  private volatile int modelsStatus = 200;
  private final AtomicLong injected = new AtomicLong();
  // Random faults, guarded by this: the rates and the generator they are drawn from.
  private double failRate;
  private int failStatus = 503;
  private double resetRate;
  private double hangRate;
  private SplittableRandom random = new SplittableRandom(0);

  EmulatedFaults() {}

  /**
   * The next {@code count} requests are answered with {@code status} and a small OpenAI-style
   * JSON error body.
   *
   * @param status an HTTP status in [400, 599]
   */
  public EmulatedFaults failNext(int count, int status) {
    return failNext(count, status, null);
  }

  /**
   * The next {@code count} requests are answered with {@code status}, a small OpenAI-style JSON
   * error body and, when {@code retryAfter} is not null, a {@code Retry-After} header with that
   * exact value (seconds or an HTTP date; it is not validated, so tests can send malformed ones).
   *
   * <p>Beware {@code failNext(n, 503, "0")} with OkHttp: OkHttp itself silently repeats a 503
   * that carries {@code Retry-After: 0} once, to the same server, whatever
   * {@code retryOnConnectionFailure} says, so one client call may consume two steps.
   *
   * @param status an HTTP status in [400, 599]
   */
  public EmulatedFaults failNext(int count, int status, @Nullable String retryAfter) {
    if (status < 400 || status > 599) {
      throw new IllegalArgumentException("failure status must be in [400, 599], got " + status);
    }
    return add(script, count, new Fault(Kind.FAIL, status, retryAfter, Duration.ZERO, 0));
  }

  /**
   * The next {@code count} requests are read and then their connection is closed without any
   * response, so the client sees an {@link java.io.IOException} (unexpected end of stream).
   */
  public EmulatedFaults resetNext(int count) {
    return add(script, count, new Fault(Kind.RESET, 0, null, Duration.ZERO, 0));
  }

  /**
   * The next {@code count} requests wait {@code delay} before they enter the replica's queue,
   * and are then served normally; the client sees nothing, not even headers, until then.
   *
   * @param delay in [0, {@value #MAX_DELAY_SECONDS}] seconds; cut short by
   *     {@link EmulatedReplica#close()}
   */
  public EmulatedFaults delayNext(int count, Duration delay) {
    requireNonNull(delay, "delay");
    if (delay.isNegative() || delay.compareTo(Duration.ofSeconds(MAX_DELAY_SECONDS)) > 0) {
      throw new IllegalArgumentException("delay must be in [0, " + MAX_DELAY_SECONDS + "s], got "
          + delay);
    }
    return add(script, count, new Fault(Kind.DELAY, 0, null, delay, 0));
  }

  /**
   * The next {@code count} requests are read and never answered until the replica is closed;
   * the client's own timeout is what ends them.
   */
  public EmulatedFaults hangNext(int count) {
    return add(script, count, new Fault(Kind.HANG, 0, null, Duration.ZERO, 0));
  }

  /**
   * The next {@code count} requests are read and then stall until the replica is closed, as they
   * do on a server whose HTTP front still works while its engine is wedged: a streaming request
   * gets its status line and headers at once (as vLLM sends them before any token) and then
   * nothing; a whole answer gets nothing. Load scrapes and health checks are answered meanwhile.
   */
  public EmulatedFaults stallNext(int count) {
    return add(script, count, new Fault(Kind.STALL, 0, null, Duration.ZERO, 0));
  }

  /**
   * The next {@code count} streaming requests send {@code chunks} {@code data:} events and then
   * the connection is closed abruptly: no {@code [DONE]} and no terminating HTTP chunk, so the
   * client sees an {@link java.io.IOException} after the events it received. If the stream has
   * fewer events than {@code chunks}, all of them are sent and {@code [DONE]} is still withheld.
   *
   * @param chunks the number of events to send before breaking, at least 0
   */
  public EmulatedFaults breakStreamAfter(int count, int chunks) {
    if (chunks < 0) throw new IllegalArgumentException("chunks must be >= 0, got " + chunks);
    return add(streamBreaks, count, new Fault(Kind.BREAK_STREAM, 0, null, Duration.ZERO, chunks));
  }

  /**
   * What {@code GET /health} answers from now on (not counted down).
   *
   * @param status an HTTP status in [200, 599]
   */
  public EmulatedFaults healthStatus(int status) {
    if (status < 200 || status > 599) {
      throw new IllegalArgumentException("health status must be in [200, 599], got " + status);
    }
    healthStatus = status;
    return this;
  }

  /**
   * From now on, every inference request that the script leaves alone draws one fault at random:
   * with probability {@code failRate} it is answered with {@code status} (as {@link #failNext}),
   * with {@code resetRate} its connection is dropped (as {@link #resetNext}), with {@code
   * hangRate} it hangs until the replica closes (as {@link #hangNext}); otherwise it is served.
   * Zero rates turn random faults off. The draws come from a generator seeded with {@code seed},
   * so a replica serving requests in the same order injects the same faults.
   *
   * @param seed seeds the draws
   * @param failRate in [0, 1]
   * @param status an HTTP status in [400, 599]
   * @param resetRate in [0, 1]
   * @param hangRate in [0, 1]; the three rates add up to at most 1
   * @return this
   */
  public EmulatedFaults randomly(long seed, double failRate, int status, double resetRate,
      double hangRate) {
    checkRate("failRate", failRate);
    checkRate("resetRate", resetRate);
    checkRate("hangRate", hangRate);
    if (failRate + resetRate + hangRate > 1.0) {
      throw new IllegalArgumentException("failRate + resetRate + hangRate must be at most 1, got "
          + (failRate + resetRate + hangRate));
    }
    if (status < 400 || status > 599) {
      throw new IllegalArgumentException("failure status must be in [400, 599], got " + status);
    }
    synchronized (this) {
      this.failRate = failRate;
      this.failStatus = status;
      this.resetRate = resetRate;
      this.hangRate = hangRate;
      this.random = new SplittableRandom(seed);
    }
    return this;
  }

  private static void checkRate(String name, double rate) {
    if (!(rate >= 0 && rate <= 1)) {
      throw new IllegalArgumentException(name + " must be in [0, 1], got " + rate);
    }
  }

  /** Forgets every pending fault, turns random faults off and makes {@code /health} answer 200. */
  public EmulatedFaults clear() {
    synchronized (this) {
      script.clear();
      streamBreaks.clear();
      failRate = 0;
      resetRate = 0;
      hangRate = 0;
    }
    healthStatus = DEFAULT_HEALTH_STATUS;
    modelsStatus = 200;
    return this;
  }

  /** How many requests the pending scripts will still affect (both scripts counted). */
  public synchronized int pending() {
    int n = 0;
    for (Step s : script) n += s.remaining;
    for (Step s : streamBreaks) n += s.remaining;
    return n;
  }

  /** How many faults this replica has injected so far (a delay counts as one). */
  public long injected() {
    return injected.get();
  }

  int currentHealthStatus() {
    return healthStatus;
  }

  /**
   * What {@code GET /v1/models} answers from now on (not counted down): 200 with the model list,
   * or this status with an error body.
   *
   * @param status an HTTP status in [200, 599]
   */
  public EmulatedFaults modelsStatus(int status) {
    if (status < 200 || status > 599) {
      throw new IllegalArgumentException("models status must be in [200, 599], got " + status);
    }
    modelsStatus = status;
    return this;
  }

  int currentModelsStatus() {
    return modelsStatus;
  }

  /** Takes the next step of the main script, else a random fault if one is drawn, else null. */
  @Nullable Fault takeNext() {
    Fault scripted = take(script);
    return scripted != null ? scripted : drawRandom();
  }

  private @Nullable Fault drawRandom() {
    Fault f;
    synchronized (this) {
      if (failRate + resetRate + hangRate == 0) return null;
      double u = random.nextDouble();
      if (u < failRate) {
        f = new Fault(Kind.FAIL, failStatus, null, Duration.ZERO, 0);
      } else if (u < failRate + resetRate) {
        f = new Fault(Kind.RESET, 0, null, Duration.ZERO, 0);
      } else if (u < failRate + resetRate + hangRate) {
        f = new Fault(Kind.HANG, 0, null, Duration.ZERO, 0);
      } else {
        return null;
      }
    }
    injected.incrementAndGet();
    return f;
  }

  /** Takes the next stream break, or null when none is pending. */
  @Nullable Fault takeStreamBreak() {
    return take(streamBreaks);
  }

  private @Nullable Fault take(Deque<Step> steps) {
    Fault f;
    synchronized (this) {
      Step head = steps.peekFirst();
      if (head == null) return null;
      f = head.fault;
      if (--head.remaining == 0) steps.removeFirst();
    }
    injected.incrementAndGet();
    return f;
  }

  private EmulatedFaults add(Deque<Step> steps, int count, Fault fault) {
    if (count < 0) throw new IllegalArgumentException("count must be >= 0, got " + count);
    if (count == 0) return this;
    synchronized (this) {
      steps.addLast(new Step(fault, count));
    }
    return this;
  }

  enum Kind { FAIL, RESET, DELAY, HANG, STALL, BREAK_STREAM }

  /** One scripted misbehaviour; the fields a kind does not use are zero or null. */
  record Fault(Kind kind, int status, @Nullable String retryAfter, Duration delay, int chunks) {}

  private static final class Step {
    final Fault fault;
    int remaining;

    Step(Fault fault, int remaining) {
      this.fault = fault;
      this.remaining = remaining;
    }
  }
}
