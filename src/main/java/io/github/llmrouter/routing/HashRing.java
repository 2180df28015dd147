package io.github.llmrouter.routing;

import io.github.llmrouter.internal.util.Hashing;
import io.github.llmrouter.replica.Replica;
import io.github.llmrouter.replica.ReplicaSet;
import java.util.Arrays;

/**
 * The consistent-hash ring of one membership snapshot: sorted 64-bit points, each owned by a
 * replica. A replica's points depend only on its id and weight (point {@code v} of replica {@code
 * id} is {@code xxh64(id, seed = v)}), so every client that knows the same replicas builds the same
 * ring, and adding or removing a replica moves only the keys of the points it adds or removes.
 * Immutable; built when membership changes.
 */
final class HashRing {
  private static final long PROBE_STEP = 0x9E3779B97F4A7C15L;
  private final long[] points;
  private final int[] owners;

  private HashRing(long[] points, int[] owners) {
    this.points = points;
    this.owners = owners;
  }

  static HashRing build(ReplicaSet replicas, int pointsPerWeight) {
    int total = 0;
    int[] counts = new int[replicas.size()];
    for (int i = 0; i < counts.length; i++) {
      counts[i] = pointsOf(replicas.get(i), pointsPerWeight);
      total += counts[i];
    }
    // Sort (hash, owner) pairs by hash; equal hashes (astronomically rare) tie-break on replica
    // id so that every client resolves them identically, whatever its snapshot order.
    long[] hashes = new long[total];
    int[] order = new int[total];
    int[] ownerOf = new int[total];
    int p = 0;
    for (int i = 0; i < counts.length; i++) {
      String id = replicas.get(i).id();
      for (int v = 0; v < counts[i]; v++) {
        hashes[p] = Hashing.xxh64(id, v);
        ownerOf[p] = i;
        order[p] = p;
        p++;
      }
    }
    sort(order, hashes, ownerOf, replicas);
    long[] points = new long[total];
    int[] owners = new int[total];
    for (int k = 0; k < total; k++) {
      points[k] = hashes[order[k]];
      owners[k] = ownerOf[order[k]];
    }
    return new HashRing(points, owners);
  }

  /** Sorts point indices by hash (ties by owner id) with a bottom-up merge sort on int arrays. */
  private static void sort(int[] order, long[] hashes, int[] ownerOf, ReplicaSet replicas) {
    int n = order.length;
    int[] from = order;
    int[] to = new int[n];
    for (int width = 1; width < n; width <<= 1) {
      for (int lo = 0; lo < n; lo += 2 * width) {
        int mid = Math.min(lo + width, n);
        int hi = Math.min(lo + 2 * width, n);
        int i = lo;
        int j = mid;
        for (int k = lo; k < hi; k++) {
          if (j >= hi || (i < mid && compare(from[i], from[j], hashes, ownerOf, replicas) <= 0)) {
            to[k] = from[i++];
          } else {
            to[k] = from[j++];
          }
        }
      }
      int[] swap = from;
      from = to;
      to = swap;
    }
    if (from != order) System.arraycopy(from, 0, order, 0, n);
  }

  private static int compare(int a, int b, long[] hashes, int[] ownerOf, ReplicaSet replicas) {
    int c = Long.compare(hashes[a], hashes[b]);
    return c != 0 ? c : replicas.get(ownerOf[a]).id().compareTo(replicas.get(ownerOf[b]).id());
  }

  static int pointsOf(Replica replica, int pointsPerWeight) {
    return (int) Math.max(1, Math.round(replica.weight() * pointsPerWeight));
  }

  /**
   * Where a key's walk starts with {@code probes} look-ups (multi-probe consistent hashing): of the
   * key itself and {@code probes - 1} re-mixes of it, the position whose point is closest
   * clockwise. A new replica's points can only shorten a probe's distance, and a removed replica's
   * keys are the only ones whose closest point disappears, so membership changes move only the
   * keys they must.
   */
  int start(long key, int probes) {
    int best = positionOf(key);
    long bestDistance = distance(key, best);
    long probe = key;
    for (int p = 1; p < probes; p++) {
      probe = Hashing.mix64(probe + PROBE_STEP);
      int position = positionOf(probe);
      long distance = distance(probe, position);
      if (Long.compareUnsigned(distance, bestDistance) < 0) {
        best = position;
        bestDistance = distance;
      }
    }
    return best;
  }

  /** The position of the first point at or clockwise after {@code key}. */
  int positionOf(long key) {
    int i = Arrays.binarySearch(points, key);
    if (i < 0) i = -i - 1;
    return i == points.length ? 0 : i;
  }

  /**
   * The clockwise distance from {@code key} to the point at {@code position}, as an unsigned
   * 64-bit value (two's-complement subtraction wraps around the ring exactly).
   */
  long distance(long key, int position) {
    return points[position] - key;
  }

  /** The replica owning the point at {@code position} (in [0, size)). */
  int ownerAt(int position) {
    return owners[position];
  }

  /** The number of points. */
  int size() {
    return points.length;
  }
}
