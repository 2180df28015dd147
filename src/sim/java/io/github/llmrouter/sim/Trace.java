package io.github.llmrouter.sim;

import static java.util.Objects.requireNonNull;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * An immutable request trace: requests in arrival order (ties keep their order in the source) and
 * the number of prompt tokens each block id stands for.
 *
 * <pre>{@code
 * Trace full = MooncakeTraceReader.read(Path.of("mooncake_conversation_trace.jsonl"));
 * Trace busy = full.window(0, 600).withRateMultiplier(2.0); // first 10 minutes, twice as fast
 * }</pre>
 */
public final class Trace {
  private final List<TraceRequest> requests;
  private final int blockTokens;

  private Trace(List<TraceRequest> requests, int blockTokens) {
    this.requests = requests;
    this.blockTokens = blockTokens;
  }

  /**
   * A trace of {@code requests}, stably sorted by arrival time.
   *
   * @param blockTokens prompt tokens per block id (512 for Mooncake traces), at least 1
   */
  public static Trace of(List<TraceRequest> requests, int blockTokens) {
    requireNonNull(requests, "requests");
    if (blockTokens < 1) throw new IllegalArgumentException("blockTokens must be >= 1, got " + blockTokens);
    List<TraceRequest> sorted = new ArrayList<>(requests);
    sorted.sort(Comparator.comparingDouble(TraceRequest::arrivalSeconds));
    return new Trace(List.copyOf(sorted), blockTokens);
  }

  /** The requests in arrival order. */
  public List<TraceRequest> requests() {
    return requests;
  }

  public int size() {
    return requests.size();
  }

  /** Prompt tokens per block id. */
  public int blockTokens() {
    return blockTokens;
  }

  /** Arrival time of the last request, or 0 for an empty trace. */
  public double durationSeconds() {
    return requests.isEmpty() ? 0 : requests.get(requests.size() - 1).arrivalSeconds();
  }

  /**
   * The requests arriving in {@code [fromSeconds, toSeconds)}, shifted so that the window starts at
   * time 0.
   */
  public Trace window(double fromSeconds, double toSeconds) {
    if (!(fromSeconds >= 0 && toSeconds > fromSeconds)) {
      throw new IllegalArgumentException("window must satisfy 0 <= from < to, got [" + fromSeconds
          + ", " + toSeconds + ")");
    }
    List<TraceRequest> out = new ArrayList<>();
    for (TraceRequest r : requests) {
      double t = r.arrivalSeconds();
      if (t >= fromSeconds && t < toSeconds) out.add(r.withArrival(t - fromSeconds));
    }
    return new Trace(List.copyOf(out), blockTokens);
  }

  /**
   * The same requests at {@code multiplier} times the trace's rate: every arrival time is divided by
   * {@code multiplier}, keeping the trace's burstiness. Accepts (0, 1000].
   */
  public Trace withRateMultiplier(double multiplier) {
    if (!(multiplier > 0 && multiplier <= 1000)) {
      throw new IllegalArgumentException("rate multiplier must be in (0, 1000], got " + multiplier);
    }
    if (multiplier == 1.0) return this;
    List<TraceRequest> out = new ArrayList<>(requests.size());
    for (TraceRequest r : requests) out.add(r.withArrival(r.arrivalSeconds() / multiplier));
    return new Trace(List.copyOf(out), blockTokens);
  }

  /** The first {@code n} requests (all if there are fewer). */
  public Trace first(int n) {
    if (n < 0) throw new IllegalArgumentException("n must be >= 0, got " + n);
    return n >= requests.size() ? this : new Trace(requests.subList(0, n), blockTokens);
  }

  @Override
  public String toString() {
    return "Trace{requests=" + requests.size() + ", blockTokens=" + blockTokens
        + ", duration=" + durationSeconds() + "s}";
  }
}
