package io.github.llmrouter.internal.dispatch;

import io.github.llmrouter.dispatch.HedgePolicy;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * How long one kind of call (an operation, streamed or not) takes to its first answer, as this
 * client has seen it: a decaying histogram of the times, from which a high percentile gives the
 * delay before a hedge, and a stream's patience before the stall watchdog judges its replica. Thread-safe and lock-free: a sample is two atomic increments; every
 * {@value #HALF_LIFE} samples the counts are halved, so the percentile follows the fleet as it
 * changes (a halving that races with a sample may lose that sample, which costs nothing).
 *
 * <p>Buckets grow by a factor of 2<sup>1/4</sup> (19 %) from 1 ms, so a percentile is known to
 * within 19 %, and the last bucket holds everything from about 19 min. Public for the simulator,
 * which hedges as the client does.
 */
public final class AnswerTimes {
  /** Samples between two halvings of the counts. */
  static final int HALF_LIFE = 512;
  private static final int BUCKETS = 84;
  private static final long FIRST_BUCKET_NANOS = 1_000_000;
  /** Upper bound of each bucket, nanoseconds. */
  private static final long[] BOUNDS = new long[BUCKETS];

  static {
    for (int i = 0; i < BUCKETS; i++) {
      BOUNDS[i] = Math.round(FIRST_BUCKET_NANOS * Math.pow(2, (i + 1) / 4.0));
    }
  }

  private final AtomicLongArray counts = new AtomicLongArray(BUCKETS);
  /** Samples seen in all, never halved: when to halve, and whether enough are known. */
  private final AtomicLong samples = new AtomicLong();

  /** A histogram with no sample yet. */
  public AnswerTimes() {}

  /** Records a call that took {@code nanos} to its first answer. */
  public void add(long nanos) {
    counts.incrementAndGet(bucket(nanos));
    if (samples.incrementAndGet() % HALF_LIFE == 0) {
      for (int i = 0; i < BUCKETS; i++) {
        long c = counts.get(i);
        if (c != 0) counts.addAndGet(i, -(c - c / 2));
      }
    }
  }

  /** {@return the samples seen so far} */
  public long seen() {
    return samples.get();
  }

  /**
   * {@return whether enough samples were seen for a percentile to mean something: {@value
   * HedgePolicy#MIN_SAMPLES}}
   */
  public boolean known() {
    return samples.get() >= HedgePolicy.MIN_SAMPLES;
  }

  /**
   * The time below which {@code percentile} of the recent samples fall: the upper bound of the
   * bucket where the percentile lies. Walks the 84 buckets twice; allocates nothing. Samples
   * that arrive meanwhile may move the answer by a bucket.
   *
   * @param percentile in (0, 1)
   * @return nanoseconds; the first bucket's bound when there are no samples
   */
  public long percentileNanos(double percentile) {
    long total = 0;
    for (int i = 0; i < BUCKETS; i++) total += Math.max(0, counts.get(i));
    double rank = percentile * total;
    long below = 0;
    for (int i = 0; i < BUCKETS; i++) {
      below += Math.max(0, counts.get(i));
      if (below >= rank && below > 0) return BOUNDS[i];
    }
    return BOUNDS[BUCKETS - 1];
  }

  /** Prompt size classes: times are learnt apart for each, as a long prompt takes longer. */
  public static final int SIZE_CLASSES = 8;

  /**
   * The size class of a request of {@code bytes} (its body; the simulator passes four bytes per
   * prompt token): below 4 KiB, below 16 KiB, and so on by fourfold steps up to 16 MiB and over.
   *
   * @param bytes the request's size, at least 0
   * @return in [0, {@value #SIZE_CLASSES})
   */
  public static int sizeClass(long bytes) {
    if (bytes < 4096) return 0;
    int log2 = 63 - Long.numberOfLeadingZeros(bytes >> 10); // 2 for 4 KiB
    return Math.min(SIZE_CLASSES - 1, log2 / 2);
  }

  static int bucket(long nanos) {
    if (nanos <= FIRST_BUCKET_NANOS) return 0;
    // Four buckets per doubling: the index is 4 * log2(nanos / 1 ms), rounded up, minus one.
    double quarters = 4 * (Math.log((double) nanos / FIRST_BUCKET_NANOS) / Math.log(2));
    int i = (int) Math.ceil(quarters - 1e-9) - 1;
    return Math.min(BUCKETS - 1, Math.max(0, i));
  }
}
