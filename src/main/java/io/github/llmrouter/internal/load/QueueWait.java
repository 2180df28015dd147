package io.github.llmrouter.internal.load;

import io.github.llmrouter.load.LoadReport;
import org.jspecify.annotations.Nullable;

/**
 * One replica's recent queue wait: the mean time requests spent waiting before it admitted them,
 * from successive totals of its queue-time histogram. Immutable; each report with totals gives the
 * next estimate.
 *
 * <p>Between two reports, {@code Δsum / Δcount} is the mean wait of the requests admitted in
 * between. Those means are averaged with an exponential weight of time constant {@value
 * #TIME_CONSTANT_SECONDS} s, so one long prompt does not swing the estimate, and a replica that
 * admitted nothing keeps its estimate and its baseline (the next admissions are measured from
 * there). Totals that go down (the replica restarted) start a new baseline.
 *
 * @param seconds the estimate, or NaN until a report pair with admissions has been seen
 * @param sum the histogram sum of the baseline report, or NaN if none yet
 * @param count the histogram count of the baseline report
 * @param atNanos when the baseline report arrived
 */
record QueueWait(double seconds, double sum, double count, long atNanos) {
  /** Time constant of the average: {@value} s. */
  static final double TIME_CONSTANT_SECONDS = 10;
  static final QueueWait UNKNOWN = new QueueWait(Double.NaN, Double.NaN, 0, 0);

  /** The estimate after {@code report}, given the one before it ({@code null}: none). */
  static QueueWait next(@Nullable QueueWait previous, LoadReport report) {
    QueueWait p = previous == null ? UNKNOWN : previous;
    double sum = report.queueTimeSum();
    double count = report.queueTimeCount();
    if (Double.isNaN(sum)) return p;
    long at = report.receivedNanos();
    if (Double.isNaN(p.sum) || sum < p.sum || count < p.count) {
      return new QueueWait(p.seconds, sum, count, at);
    }
    double admitted = count - p.count;
    if (admitted <= 0) return p;
    double sample = (sum - p.sum) / admitted;
    double weight = 1 - Math.exp(-Math.max(0, at - p.atNanos) / 1e9 / TIME_CONSTANT_SECONDS);
    double seconds = Double.isNaN(p.seconds) ? sample : p.seconds + weight * (sample - p.seconds);
    return new QueueWait(seconds, sum, count, at);
  }
}
