package io.github.llmrouter.routing;

import io.github.llmrouter.load.LoadView;
import io.github.llmrouter.replica.Replica;
import io.github.llmrouter.replica.ReplicaSet;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

/**
 * The test fixture for fleets, shared by every package's tests: replicas and snapshots, a load view
 * over a plain int array, a ranking drained to a list, random text.
 */
public final class Fleets {
  private Fleets() {}

  /** The i-th replica of a fleet, with the default id ({@code host:port}) as in production. */
  public static Replica replica(int i) {
    return replica(i, 1.0);
  }

  public static Replica replica(int i, double weight) {
    return Replica.builder("http://10.0." + (i / 250) + "." + (i % 250 + 1) + ":8000")
        .weight(weight).build();
  }

  /** Replicas 0 .. n-1, weight 1, in that order. */
  public static ReplicaSet fleet(int n) {
    List<Replica> list = new ArrayList<>();
    for (int i = 0; i < n; i++) list.add(replica(i));
    return ReplicaSet.of(list);
  }

  /** Replicas {@code r0 .. r(n-1)}, named by their ids (as events and assertions name them). */
  public static ReplicaSet named(int n) {
    List<Replica> list = new ArrayList<>();
    for (int i = 0; i < n; i++) list.add(replica(i).toBuilder().id("r" + i).build());
    return ReplicaSet.of(list);
  }

  /** Replicas 0 .. k-1 with the given weights. */
  public static ReplicaSet weighted(double... weights) {
    List<Replica> list = new ArrayList<>();
    for (int i = 0; i < weights.length; i++) list.add(replica(i, weights[i]));
    return ReplicaSet.of(list);
  }

  /**
   * Well-formed random text: mostly ASCII, some other BMP characters and some surrogate pairs
   * (so that {@code getBytes(UTF_16LE)} is the identity on code units).
   */
  public static String randomText(SplittableRandom random, int length) {
    StringBuilder b = new StringBuilder(length);
    while (b.length() < length) {
      int kind = random.nextInt(10);
      if (kind < 7) {
        b.append((char) random.nextInt(32, 127));
      } else if (kind < 9 || b.length() == length - 1) {
        b.append((char) random.nextInt(0x80, 0xD800));
      } else {
        b.appendCodePoint(random.nextInt(0x10000, 0x110000));
      }
    }
    return b.toString();
  }

  /** Random UTF-16 code units, lone surrogates included. */
  public static String randomCodeUnits(SplittableRandom random, int length) {
    char[] c = new char[length];
    for (int i = 0; i < length; i++) c[i] = (char) random.nextInt(0, 0x10000);
    return new String(c);
  }

  /** A load view over a plain array: what a ranking reads at the time of each call. */
  public static final class ArrayLoad implements LoadView {
    public final int[] inFlight;

    public ArrayLoad(int n) {
      this.inFlight = new int[n];
    }

    public ArrayLoad(int... inFlight) {
      this.inFlight = inFlight;
    }

    @Override
    public int inFlight(int index) {
      return inFlight[index];
    }

    @Override
    public long totalInFlight() {
      long t = 0;
      for (int x : inFlight) t += x;
      return t;
    }
  }

  /** Calls {@code next()} until -1; the full order (at most {@code limit} picks). */
  public static List<Integer> drain(Ranking ranking, int limit) {
    List<Integer> order = new ArrayList<>();
    for (int k = 0; k < limit; k++) {
      int i = ranking.next();
      if (i < 0) break;
      order.add(i);
    }
    return order;
  }
}
