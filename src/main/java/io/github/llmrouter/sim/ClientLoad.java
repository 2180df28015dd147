package io.github.llmrouter.sim;

import io.github.llmrouter.load.LoadView;
import java.util.Arrays;

/**
 * One simulated client's view of load, in virtual time: its own in-flight counts and, when the
 * simulator scrapes, the replicas' reported queues and KV usage as of its last scrape, with the
 * same effective-queue and staleness rules as the client's {@code LocalLoad}. Single-threaded.
 */
final class ClientLoad implements LoadView {
  private final int[] inFlight;
  private long total;
  private final int[] reportedWaiting;
  private final double[] reportedKv;
  private final double[] reportedAt;
  private final int[] inFlightAtReport;
  private final double staleAfter;
  private double now;

  ClientLoad(int replicas) {
    this(replicas, 0);
  }

  /** @param staleAfter seconds after which a report is ignored; 0 when there are no reports */
  ClientLoad(int replicas, double staleAfter) {
    this.inFlight = new int[replicas];
    this.reportedWaiting = new int[replicas];
    this.reportedKv = new double[replicas];
    this.reportedAt = new double[replicas];
    this.inFlightAtReport = new int[replicas];
    this.staleAfter = staleAfter;
    Arrays.fill(reportedWaiting, -1);
    Arrays.fill(reportedKv, Double.NaN);
  }

  void acquire(int replica) {
    inFlight[replica]++;
    total++;
  }

  void release(int replica) {
    inFlight[replica]--;
    total--;
  }

  /** The virtual time decisions are being made at. */
  void now(double t) {
    this.now = t;
  }

  /** Records a scrape of {@code replica} at time {@code t}. */
  void report(int replica, int waiting, double kvUsage, double t) {
    reportedWaiting[replica] = waiting;
    reportedKv[replica] = kvUsage;
    reportedAt[replica] = t;
    inFlightAtReport[replica] = inFlight[replica];
  }

  @Override
  public int inFlight(int index) {
    return inFlight[index];
  }

  @Override
  public long totalInFlight() {
    return total;
  }

  @Override
  public int effectiveQueue(int index) {
    int w = reportedWaiting[index];
    if (w < 0 || now - reportedAt[index] > staleAfter) return -1;
    return Math.max(0, w + inFlight[index] - inFlightAtReport[index]);
  }

  @Override
  public double kvUsage(int index) {
    if (reportedWaiting[index] < 0 || now - reportedAt[index] > staleAfter) return Double.NaN;
    return reportedKv[index];
  }
}
