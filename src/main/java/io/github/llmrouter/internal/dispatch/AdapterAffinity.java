package io.github.llmrouter.internal.dispatch;

import io.github.llmrouter.internal.util.Hashing;
import io.github.llmrouter.load.LoadView;
import io.github.llmrouter.replica.ReplicaSet;
import io.github.llmrouter.routing.PrefixHash;
import io.github.llmrouter.routing.Ranking;
import io.github.llmrouter.routing.RoutedAttempt;
import java.util.Arrays;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicReferenceArray;
import org.jspecify.annotations.Nullable;

/**
 * Where a LoRA adapter's calls go among the replicas that can serve it. An engine runs a few
 * adapters at once ({@code max_lora}) and swaps the others in on demand, stalling its batch while
 * it loads one; so an adapter's calls go first to the replicas believed to have it loaded while
 * they are within their share of the load (the policy's first or second pick if it is one, else
 * in an order fixed by the adapter's name: rendezvous hashing); then to the others within their
 * share in that order, so that every client sends a cold adapter to the same replica and a hot
 * one spreads over the same few as its load grows; then to the rest in the policy's order.
 *
 * <p>A replica is believed to have an adapter loaded if this client sent it one of the adapter's
 * calls since it last sent calls of as many other adapters there as it runs at once ({@code
 * max_lora} as it reports, else {@link #SLOTS}), or a load report showed the adapter running or
 * waiting there since ({@link #reported}). A replica is within its share when its load is at most {@link #LOAD_FACTOR} times the mean load of the adapter's replicas, the
 * call being placed included, plus one: their reported load (waiting and running, every
 * client's) when all of them report it, else this client's calls in flight.
 *
 * <p>Thread-safe and lock-free: each replica's loaded adapters are an immutable array replaced by
 * compare-and-set. Made for one membership snapshot, by fleet index.
 */
public final class AdapterAffinity {
  /**
   * The adapters a replica is assumed to hold when it reports no {@code max_lora}: {@value}, the
   * most vLLM deployments run with.
   */
  public static final int SLOTS = 8;
  /** The most adapters believed loaded on one replica, whatever it reports: {@value}. */
  static final int MAX_SLOTS = 256;

  /**
   * How much more than the mean load of an adapter's replicas one of them may carry and still take
   * the adapter's calls because it has the adapter loaded: {@value}. Between the even spread
   * ({@link PrefixHash#DEFAULT_LOAD_FACTOR}) and what a cached prompt is worth ({@link
   * PrefixHash#DEFAULT_REPORTED_LOAD_FACTOR}): a miss costs one adapter load, not a whole
   * prompt's prefill.
   */
  static final double LOAD_FACTOR = 1.5;

  /**
   * The policy's first picks looked at for a replica that has the adapter loaded: {@value}. Past
   * them, loaded replicas are taken in the adapter's rendezvous order, so that a decision costs a
   * few of the policy's picks, not a ranking of every replica.
   */
  static final int LOOKAHEAD = 2;

  private static final long[] NONE = new long[0];

  /** Per fleet index: the hashes of the adapters believed loaded there, most recent first. */
  private final AtomicReferenceArray<long[]> loaded;
  /** Per fleet index: a hash of the replica's id, for the rendezvous order. */
  private final long[] idHashes;
  /** Per fleet index: the adapters it runs at once, as it reported, else {@link #SLOTS}. */
  private final AtomicIntegerArray slots;

  /**
   * What the client does about adapters beyond ranking them: nothing, unless it loads them on
   * demand. Implementations are thread-safe, fast and never throw.
   */
  interface Placement {
    /** Does nothing. */
    Placement NONE = (replicaId, adapter, attempt) -> attempt;

    /**
     * A call of {@code adapter} was sent to replica {@code replicaId}; returns what to tell its
     * outcome to ({@code attempt}, or one that tells it too).
     */
    RoutedAttempt sent(String replicaId, long adapter, RoutedAttempt attempt);
  }

  private final String[] ids;
  private final Placement placement;

  /** The affinity of the replicas of {@code replicas}, none believed to hold an adapter yet. */
  public AdapterAffinity(ReplicaSet replicas) {
    this(replicas, Placement.NONE);
  }

  /** The same, telling {@code placement} what it needs to know. */
  AdapterAffinity(ReplicaSet replicas, Placement placement) {
    this.placement = placement;
    int n = replicas.size();
    this.ids = new String[n];
    this.loaded = new AtomicReferenceArray<>(n);
    this.idHashes = new long[n];
    this.slots = new AtomicIntegerArray(n);
    for (int i = 0; i < n; i++) {
      slots.set(i, SLOTS);
      loaded.set(i, NONE);
      ids[i] = replicas.get(i).id();
      idHashes[i] = Hashing.xxh64(replicas.get(i).id(), 0x10AAL);
    }
  }

  /** The affinity of another membership snapshot, with the same placement. */
  AdapterAffinity next(ReplicaSet replicas) {
    return new AdapterAffinity(replicas, placement);
  }

  /** {@return how many adapters replica {@code replica} runs at once, as reported, else SLOTS} */
  int slots(int replica) {
    return slots.get(replica);
  }

  /**
   * {@code indices} (fleet indices) in {@code adapter}'s rendezvous order: by descending weight
   * of the adapter with each replica's id, the same order for every client.
   */
  int[] rendezvous(long adapter, int[] indices) {
    long[] keyed = new long[indices.length];
    for (int k = 0; k < indices.length; k++) {
      // The weight in the high bits, the position in the low ones: one sort orders both.
      long weight = Hashing.mix64(adapter ^ idHashes[indices[k]]) & ~0xFFFFL;
      keyed[k] = weight | k;
    }
    Arrays.sort(keyed);
    int[] order = new int[indices.length];
    for (int k = 0; k < indices.length; k++) {
      order[k] = indices[(int) (keyed[indices.length - 1 - k] & 0xFFFFL)];
    }
    return order;
  }

  /** {@return the hash by which adapter {@code name} is known} */
  public static long hash(String name) {
    return Hashing.xxh64(name, 0x10ADL);
  }

  /**
   * Ranks the replicas for one call of an adapter.
   *
   * @param adapter the adapter's {@link #hash}
   * @param byPolicy the policy's ranking of the replicas that can serve it, as fleet indices
   * @param members those replicas' fleet indices
   * @param load the fleet's load view, by fleet index
   */
  public Ranking rank(long adapter, Ranking byPolicy, int[] members, LoadView load) {
    return new AdapterRanking(adapter, byPolicy, members, load);
  }

  /**
   * A replica's last load report showed these adapters running or waiting: they are loaded
   * there, the most recently used.
   *
   * @param adapters their {@link #hash hashes}
   * @param maxLora how many adapters the replica runs at once, or 0 if it did not say
   */
  public void reported(int replica, long[] adapters, int maxLora) {
    if (maxLora > 0) slots.set(replica, Math.min(maxLora, MAX_SLOTS));
    for (long a : adapters) used(replica, a);
  }

  /** Whether adapter {@code adapter} is believed loaded on replica {@code replica}. */
  boolean isLoaded(int replica, long adapter) {
    for (long a : loaded.get(replica)) {
      if (a == adapter) return true;
    }
    return false;
  }

  /** A call of {@code adapter} went to {@code replica}: it is loaded there, the most recent. */
  void used(int replica, long adapter) {
    while (true) {
      long[] was = loaded.get(replica);
      if (was.length > 0 && was[0] == adapter) return;
      int at = -1;
      for (int k = 0; k < was.length; k++) {
        if (was[k] == adapter) at = k;
      }
      int size = Math.min(slots.get(replica), at >= 0 ? was.length : was.length + 1);
      long[] now = new long[size];
      now[0] = adapter;
      int j = 1;
      for (int k = 0; k < was.length && j < size; k++) {
        if (k != at) now[j++] = was[k];
      }
      if (loaded.compareAndSet(replica, was, now)) return;
    }
  }

  /** The order of one call: loaded and within share, then by rendezvous, then the rest. */
  private final class AdapterRanking implements Ranking {
    private final long adapter;
    private final Ranking byPolicy;
    /** The adapter's replicas, fleet indices, ascending. */
    private final int[] members;
    private final LoadView load;
    /** The policy's order as drawn so far, fleet indices. */
    private final int[] drawn;
    private int drawnCount;
    private boolean policyDone;
    /** Per position in {@link #members}: whether it was returned. */
    private final boolean[] returned;
    /** The members in rendezvous order, made when first needed. */
    private int @Nullable [] rendezvous;
    private String reason = "adapter loaded here";
    /** Whether the last index returned is the policy's own first choice, returned first. */
    private boolean firstIsPolicys;
    private int given;

    AdapterRanking(long adapter, Ranking byPolicy, int[] members, LoadView load) {
      this.adapter = adapter;
      this.byPolicy = byPolicy;
      this.members = members;
      this.load = load;
      this.drawn = new int[members.length];
      this.returned = new boolean[members.length];
    }

    @Override
    public int next() {
      Share share = new Share(load, members);
      // The policy's first picks, if one has the adapter loaded and is within its share.
      while (drawnCount < LOOKAHEAD && draw()) { }
      for (int k = 0; k < Math.min(drawnCount, LOOKAHEAD); k++) {
        int i = drawn[k];
        if (!isReturned(i) && isLoaded(i, adapter) && share.admits(i)) {
          return give(i, k == 0 ? null : "adapter loaded here");
        }
      }
      // Then, in the adapter's rendezvous order: loaded and within share, then within share.
      int[] order = rendezvous();
      for (int i : order) {
        if (!isReturned(i) && isLoaded(i, adapter) && share.admits(i)) {
          return give(i, "adapter loaded here");
        }
      }
      for (int i : order) {
        if (!isReturned(i) && share.admits(i)) return give(i, "adapter's next replica");
      }
      // Everything else, in the policy's order.
      for (int k = 0; ; k++) {
        if (k == drawnCount && !draw()) break;
        if (!isReturned(drawn[k])) return give(drawn[k], "adapter's replicas busy");
      }
      for (int i : members) { // a policy that ranked fewer than all (it should not)
        if (!isReturned(i)) return give(i, "adapter's replicas busy");
      }
      return -1;
    }

    /**
     * Returns {@code i}, chosen for {@code why}; null: the policy's own first choice, whose
     * reason and estimates are the policy's.
     */
    private int give(int i, @Nullable String why) {
      firstIsPolicys = why == null && given == 0;
      reason = why == null ? "adapter loaded here" : why;
      given++;
      returned[Arrays.binarySearch(members, i)] = true;
      return i;
    }

    private boolean isReturned(int i) {
      int k = Arrays.binarySearch(members, i);
      return k < 0 || returned[k];
    }

    /** Draws the policy's next replica; false when it has none left. */
    private boolean draw() {
      if (policyDone || drawnCount == drawn.length) return false;
      int i = byPolicy.next();
      if (i < 0) {
        policyDone = true;
        return false;
      }
      drawn[drawnCount++] = i;
      return true;
    }

    /** The members by descending rendezvous weight. */
    private int[] rendezvous() {
      int[] order = rendezvous;
      if (order != null) return order;
      return rendezvous = AdapterAffinity.this.rendezvous(adapter, members);
    }

    @Override
    public String reason() {
      return firstIsPolicys ? byPolicy.reason() : reason;
    }

    @Override
    public RoutedAttempt sent(int index, long nanos, boolean streamed) {
      used(index, adapter);
      return placement.sent(ids[index], adapter, byPolicy.sent(index, nanos, streamed));
    }

    @Override
    public long predictedCachedTokens() {
      return firstIsPolicys ? byPolicy.predictedCachedTokens() : -1;
    }

    @Override
    public double estimatedWaitSeconds() {
      return firstIsPolicys ? byPolicy.estimatedWaitSeconds() : Double.NaN;
    }

    @Override
    public String versusRunnerUp() {
      return firstIsPolicys ? byPolicy.versusRunnerUp() : "";
    }
  }

  /**
   * The load of a group of replicas as it is now, and the share each may carry: at most {@link
   * #LOAD_FACTOR} times the group's mean, the call being placed included, plus one.
   */
  static final class Share {
    private final LoadView load;
    private final long now;
    private final boolean reported;
    private final double bound;

    /** The share of each replica of {@code group} (fleet indices, at least one) of {@code load}. */
    Share(LoadView load, int[] group) {
      this.load = load;
      this.now = load.now();
      long sum = 0;
      boolean all = true;
      for (int i : group) {
        int r = load.reportedLoad(i, now);
        if (r < 0) {
          all = false;
          break;
        }
        sum += r;
      }
      reported = all;
      if (!all) {
        sum = 0;
        for (int i : group) sum += load.inFlight(i);
      }
      bound = LOAD_FACTOR * (sum + 1) / group.length + 1;
    }

    /** Whether replica {@code i} is within its share. */
    boolean admits(int i) {
      int l = reported ? load.reportedLoad(i, now) : load.inFlight(i);
      return l <= bound;
    }
  }
}
