package io.github.llmrouter.internal.load;

import static java.util.Objects.requireNonNull;

import io.github.llmrouter.api.Ticker;
import io.github.llmrouter.load.LoadMonitoring;
import io.github.llmrouter.load.LoadReport;
import io.github.llmrouter.load.LoadView;
import io.github.llmrouter.replica.Replica;
import io.github.llmrouter.replica.ReplicaSet;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.jspecify.annotations.Nullable;

/**
 * The client's view of load, as a {@link LoadView} over one membership snapshot: its own
 * in-flight counts combined with the replicas' latest load reports.
 *
 * <p>Counters and reports are kept per replica id and carried into the next snapshot by {@link
 * #next}, so a replica that stays in the fleet keeps its count and its report, and a request in
 * flight across a membership change releases the counter it acquired.
 *
 * <p><b>Effective queue.</b> {@code max(0, waiting + dispatched since the report − completed since
 * the report)}: the replica's reported queue corrected by what this client did since. Both
 * corrections come from the atomic in-flight counter (dispatched − completed since the report is
 * the change of this client's in-flight count since then), so reading it costs one volatile read
 * of the report snapshot and one of the counter; policies read the ticker once per decision
 * ({@link #now()}). A report older than the
 * staleness limit is ignored: the effective queue and KV usage are unknown and policies fall back
 * to in-flight counts. A replica whose reports stop is never treated as down: its load is simply
 * unknown.
 */
public final class LocalLoad implements LoadView {
  /** Default staleness limit when none is given: 3 s (3 × the default scrape interval). */

  private final ReplicaSet replicas;
  private final InFlightCounter[] counters;
  private final Shared shared;
  private final Ticker ticker;
  private final long staleAfterNanos;
  /**
   * Sums over the replicas whose latest report gives both a queue and a running batch, redone on
   * every publish so that the routing decision reads the fleet's reported load in one volatile
   * read instead of a pass over the replicas.
   */
  private volatile ReportSums sums = ReportSums.NONE;

  /**
   * {@code base}: Σ (waiting + running − this client's in-flight count at the report); {@code
   * weight}: Σ weight of those replicas; {@code meanQueueWait}: the mean of the fresh recent
   * queue waits, NaN unless at least two replicas have one; {@code waitRatios}: each replica's
   * recent queue wait over that mean (NaN where either is unknown), precomputed here so that a
   * decision reads one array element instead of a report.
   */
  private record ReportSums(long base, double weight, double meanQueueWait,
      double @Nullable [] waitRatios) {
    static final ReportSums NONE = new ReportSums(0, 0, Double.NaN, null);
  }

  /** State shared by every snapshot of one client's view. */
  static final class Shared {
    final AtomicInteger total = new AtomicInteger();
    volatile @Nullable Runnable onRelease;
    /** Whether any report was ever published: until then a decision need not read the clock. */
    volatile boolean reported;
  }

  private LocalLoad(ReplicaSet replicas, InFlightCounter[] counters, Shared shared, Ticker ticker,
      long staleAfterNanos) {
    this.replicas = replicas;
    this.counters = counters;
    this.shared = shared;
    this.ticker = ticker;
    this.staleAfterNanos = staleAfterNanos;
    if (shared.reported) sumReports();
  }

  /**
   * A view with zero load over {@code replicas}, the system ticker and the default staleness.
   *
   * @param replicas the snapshot to index by; not null
   * @return a new view, sharing nothing with other views
   */
  public static LocalLoad of(ReplicaSet replicas) {
    return of(replicas, Ticker.system(), LoadMonitoring.defaults().staleAfter());
  }

  /**
   * A view with zero load over {@code replicas} that ages reports with {@code ticker} and ignores
   * those older than {@code staleAfter}.
   *
   * @param replicas the snapshot to index by; not null
   * @param ticker the time source reports are aged with; not null
   * @param staleAfter the age beyond which a report is ignored; positive
   * @return a new view, sharing nothing with other views
   * @throws IllegalArgumentException if {@code staleAfter} is not positive
   */
  public static LocalLoad of(ReplicaSet replicas, Ticker ticker, Duration staleAfter) {
    requireNonNull(ticker, "ticker");
    if (staleAfter.isNegative() || staleAfter.isZero()) {
      throw new IllegalArgumentException("staleAfter must be positive, got " + staleAfter);
    }
    return new LocalLoad(ReplicaSet.empty(), new InFlightCounter[0], new Shared(), ticker,
        staleAfter.toNanos()).next(replicas);
  }

  /**
   * The view over a new snapshot: replicas that remain keep their counters and reports, new ones
   * start at 0 with no report. Requests in flight on removed replicas stop counting towards the
   * total when they release.
   *
   * @param snapshot the new membership; not null
   * @return a view over {@code snapshot} sharing this view's counters, reports and ticker
   */
  public LocalLoad next(ReplicaSet snapshot) {
    requireNonNull(snapshot, "snapshot");
    Map<String, InFlightCounter> previous = new HashMap<>();
    for (int i = 0; i < counters.length; i++) previous.put(replicas.get(i).id(), counters[i]);
    InFlightCounter[] next = new InFlightCounter[snapshot.size()];
    for (int i = 0; i < next.length; i++) {
      Replica r = snapshot.get(i);
      InFlightCounter c = previous.get(r.id());
      next[i] = c != null ? c : new InFlightCounter(shared);
    }
    return new LocalLoad(snapshot, next, shared, ticker, staleAfterNanos);
  }

  /** {@return the snapshot this view is indexed by} */
  public ReplicaSet replicas() {
    return replicas;
  }

  /**
   * The counter of the replica at {@code index}.
   *
   * @param index the replica's position in {@link #replicas()}
   * @return the counter, shared with the views of later snapshots while the replica stays
   */
  public InFlightCounter counter(int index) {
    return counters[index];
  }

  @Override
  public int inFlight(int index) {
    return counters[index].get();
  }

  @Override
  public long totalInFlight() {
    return shared.total.get();
  }

  @Override
  public int effectiveQueue(int index) {
    return effectiveQueue(index, ticker.read());
  }

  @Override
  public double kvUsage(int index) {
    return kvUsage(index, ticker.read());
  }

  @Override
  public long now() {
    return shared.reported ? ticker.read() : 0;
  }

  @Override
  public long nanoTime() {
    return ticker.read();
  }

  @Override
  public int effectiveQueue(int index, long now) {
    InFlightCounter c = counters[index];
    InFlightCounter.Published p = c.report();
    if (p == null || p.waiting() < 0 || isStale(p, now)) return -1;
    return (int) Math.min(effectiveQueue(c, p), Integer.MAX_VALUE);
  }

  /** {@code max(0, waiting + dispatched − completed since the report)}, of a known queue. */
  private static long effectiveQueue(InFlightCounter c, InFlightCounter.Published p) {
    return Math.max(0, (long) p.waiting() + c.get() - p.inFlightAtReport());
  }

  @Override
  public long kvCapacityTokens(int index) {
    return kvCapacityTokens(index, ticker.read());
  }

  @Override
  public long kvCapacityTokens(int index, long now) {
    InFlightCounter.Published p = counters[index].report();
    return p == null || isStale(p, now) ? -1 : p.kvCapacityTokens();
  }

  @Override
  public double kvUsage(int index, long now) {
    InFlightCounter.Published p = counters[index].report();
    return p == null || isStale(p, now) ? Double.NaN : p.kvUsage();
  }

  @Override
  public int running(int index, long now) {
    InFlightCounter.Published p = counters[index].report();
    return p == null || isStale(p, now) ? -1 : p.running();
  }

  @Override
  public int concurrency(int index, long now) {
    InFlightCounter.Published p = counters[index].report();
    return p == null || isStale(p, now) ? -1 : p.concurrency();
  }

  @Override
  public int awaitingFirstToken(int index, long now) {
    InFlightCounter.Published p = counters[index].report();
    return p == null || isStale(p, now) ? -1 : p.awaitingFirstToken();
  }

  @Override
  public long reportAgeNanos(int index, long now) {
    InFlightCounter.Published p = counters[index].report();
    return p == null || isStale(p, now) ? -1 : Math.max(0, now - p.receivedNanos());
  }

  @Override
  public int reportedLoad(int index, long now) {
    InFlightCounter c = counters[index];
    InFlightCounter.Published p = c.report();
    if (p == null || p.waiting() < 0 || p.running() < 0 || isStale(p, now)) return -1;
    return (int) Math.min(effectiveQueue(c, p) + p.running(), Integer.MAX_VALUE);
  }

  @Override
  public double queueWait(int index, long now) {
    InFlightCounter.Published p = counters[index].report();
    return p == null || isStale(p, now) ? Double.NaN : p.queueWaitSeconds();
  }

  @Override
  public double meanQueueWait(long now) {
    return sums.meanQueueWait;
  }

  /**
   * {@inheritDoc}
   *
   * <p>Here it is computed as reports arrive; a replica whose report goes stale keeps its ratio
   * until the next report from any replica, but policies read it only for a fresh queue.
   */
  @Override
  public double queueWaitRatio(int index, long now) {
    double[] ratios = sums.waitRatios;
    return ratios == null ? Double.NaN : ratios[index];
  }

  /**
   * The replica's latest report, fresh or stale, or null if it never reported.
   *
   * @param index the replica's position in {@link #replicas()}
   * @return the report, or null
   */
  public @Nullable LoadReport lastReport(int index) {
    InFlightCounter.Published p = counters[index].report();
    return p == null ? null : p.report();
  }

  /**
   * Whether the replica has a report younger than the staleness limit.
   *
   * @param index the replica's position in {@link #replicas()}
   * @return true if a report younger than {@link #staleAfterNanos()} exists
   */
  public boolean hasFreshReport(int index) {
    InFlightCounter.Published p = counters[index].report();
    return p != null && !isStale(p, ticker.read());
  }

  /**
   * Requests this client dispatched to the replica since its latest report (0 if none).
   *
   * @param index the replica's position in {@link #replicas()}
   * @return the count, at least 0
   */
  public long dispatchedSinceReport(int index) {
    InFlightCounter c = counters[index];
    InFlightCounter.Published p = c.report();
    return p == null ? 0 : Math.max(0, c.dispatched() - p.dispatchedAtReport());
  }

  /**
   * Requests of this client that completed on the replica since its latest report (0 if none).
   *
   * @param index the replica's position in {@link #replicas()}
   * @return the count, at least 0
   */
  public long completedSinceReport(int index) {
    InFlightCounter c = counters[index];
    InFlightCounter.Published p = c.report();
    if (p == null) return 0;
    long completedNow = c.dispatched() - c.get();
    long completedThen = p.dispatchedAtReport() - p.inFlightAtReport();
    return Math.max(0, completedNow - completedThen);
  }

  /** {@return the staleness limit in nanoseconds, positive} */
  public long staleAfterNanos() {
    return staleAfterNanos;
  }

  /** {@return the ticker reports are aged with} */
  public Ticker ticker() {
    return ticker;
  }

  /**
   * Publishes a report for the replica at {@code index}. {@code fromResponse}: it came on the
   * response of a request still counted in flight here (see {@link InFlightCounter}).
   *
   * @param index the replica's position in {@link #replicas()}
   * @param report the report; not null
   * @param fromResponse whether it came on the response of a request this client still counts in
   *     flight
   */
  public void publish(int index, LoadReport report, boolean fromResponse) {
    counters[index].publish(requireNonNull(report, "report"), fromResponse);
    shared.reported = true;
    sumReports();
  }

  /**
   * Recomputes {@link #sums}: one pass over the replicas per report, off the routing path.
   * Synchronized so that a slower pass cannot overwrite a later one; reports that are stale now
   * drop out here.
   */
  private synchronized void sumReports() {
    long now = ticker.read();
    long base = 0;
    double weight = 0;
    double waits = 0;
    int waited = 0;
    // Each fresh wait first, divided by the mean once the pass has found it.
    double[] ratios = new double[counters.length];
    for (int i = 0; i < counters.length; i++) {
      InFlightCounter.Published p = counters[i].report();
      ratios[i] = Double.NaN;
      if (p == null || isStale(p, now)) continue;
      ratios[i] = p.queueWaitSeconds();
      if (!Double.isNaN(p.queueWaitSeconds())) {
        waits += p.queueWaitSeconds();
        waited++;
      }
      if (p.waiting() < 0 || p.running() < 0) continue;
      base += (long) p.waiting() + p.running() - p.inFlightAtReport();
      weight += replicas.get(i).weight();
    }
    double mean = waited >= 2 ? waits / waited : Double.NaN;
    for (int i = 0; i < ratios.length; i++) ratios[i] /= mean;
    sums = new ReportSums(base, weight, mean, ratios);
  }

  /**
   * {@inheritDoc}
   *
   * <p>Here the sum is kept as reports arrive and corrected by this client's whole in-flight
   * count: exact while every replica reports (up to the floor of 0 on each effective queue), and a
   * little high while some do not, since their in-flight requests count too. A report that goes
   * stale leaves the sum at the next report from any replica.
   */
  @Override
  public double reportedLoadPerWeight(long now) {
    ReportSums s = sums;
    if (s.weight <= 0) return Double.NaN;
    return Math.max(1, s.base + shared.total.get() + 1) / s.weight;
  }

  /**
   * Publishes a report by replica id; ignored if the replica is not in this snapshot.
   *
   * @param replicaId the replica's id; not null
   * @param report the report; not null
   * @param fromResponse whether it came on the response of a request this client still counts in
   *     flight
   * @return true if the replica is in this snapshot and the report was published
   */
  public boolean publish(String replicaId, LoadReport report, boolean fromResponse) {
    int i = replicas.indexOf(requireNonNull(replicaId, "replicaId"));
    if (i < 0) return false;
    publish(i, report, fromResponse);
    return true;
  }

  /**
   * Runs {@code listener} after every release of any counter of this view (null: none).
   *
   * @param listener a fast, non-throwing callback run on the releasing thread, or null to remove it
   */
  public void onRelease(@Nullable Runnable listener) {
    shared.onRelease = listener;
  }

  private boolean isStale(InFlightCounter.Published p, long now) {
    return now - p.receivedNanos() > staleAfterNanos;
  }
}
