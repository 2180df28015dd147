package io.github.llmrouter.routing;

import io.github.llmrouter.replica.ReplicaSet;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import org.jspecify.annotations.Nullable;

/**
 * Everything one client of a {@link CacheAware} policy remembers about its fleet, across
 * membership snapshots: the {@link PrefixIndex}, each replica's {@link ReplicaState} and index slot,
 * how long each slot's blocks last, and the fleet-wide {@link Calibration}.
 *
 * <p>Slots: each replica gets one of the index's {@value PrefixIndex#SLOTS} bits when it joins and
 * keeps it while it stays; a replica that leaves keeps its bit until a newcomer needs one, and a
 * bit given to another replica is reset, so that blocks the previous owner received never count
 * for the new one. Replicas beyond the 64th of a fleet get no slot and are predicted from the ring
 * alone.
 *
 * <p>Thread-safe. Membership changes ({@link #statesFor}) are synchronized and rare; everything the
 * routing decision and the answers' feedback touch is lock-free.
 */
final class FleetMemory implements PrefixIndex.Slots {
  /** A slot's blocks are trusted this long at first: 10 minutes, in index ticks. */
  static final int INITIAL_HORIZON = PrefixIndex.tick(600_000_000_000L);
  /**
   * How old, in index ticks, blocks must be before an answer says anything of whether the replica
   * kept them: 5 s, time for the prefill that computes them to have been scheduled.
   */
  static final int SETTLED = PrefixIndex.tick(5_000_000_000L);
  /** The shortest horizon a slot learns: {@link #SETTLED}. */
  static final int MIN_HORIZON = SETTLED;
  /** The longest horizon a slot learns: 1 h. */
  static final int MAX_HORIZON = PrefixIndex.tick(3_600_000_000_000L);
  /** How many of the latest requests sent are remembered by when they were sent: {@value}. */
  static final int RECENT_SENDS = 1024;
  /** How far one answer moves a horizon towards the age it revealed: {@value}. */
  static final double HORIZON_STEP = 0.25;

  private static final VarHandle INTS = MethodHandles.arrayElementVarHandle(int[].class);

  final Calibration calibration = new Calibration();
  private final int indexBlocks;
  private volatile @Nullable PrefixIndex index;
  private final Map<String, ReplicaState> states = new HashMap<>();
  /** Per slot: how long its blocks last, and since when they count (after a reset). */
  private final int[] horizons = new int[PrefixIndex.SLOTS];
  private final int[] resets = new int[PrefixIndex.SLOTS];
  private volatile long usedSlots;
  private volatile long resetSlots;
  private volatile int latestReset;
  private volatile int shortestHorizon = INITIAL_HORIZON;
  /**
   * The mean and the least wait over the replicas at the latest decision (prefill queued and the
   * wait for a place to run), in seconds: how busy the fleet is, as the next decision takes it.
   */
  volatile double meanWait;
  volatile double leastWait;
  /** Requests awaiting their first token over the fleet at the latest decision. */
  volatile double awaiting;

  /** The latest time a request was sent, in index ticks: "now" for a slot given away. */
  volatile int lastTick;
  /** Requests sent. */
  private final AtomicLong sends = new AtomicLong();
  /** When the latest {@value #RECENT_SENDS} requests were sent, in index ticks, as a ring. */
  private final int[] recentSends = new int[RECENT_SENDS];

  FleetMemory(int indexBlocks) {
    this.indexBlocks = indexBlocks;
    java.util.Arrays.fill(horizons, INITIAL_HORIZON);
  }

  synchronized java.util.List<ReplicaState> statesForDebug() {
    return new java.util.ArrayList<>(new java.util.TreeMap<>(states).values());
  }

  /** The waits a decision found; a figure that is not a finite, non-negative number is ignored. */
  void observeWaits(double mean, double least) {
    if (mean >= 0 && mean < Double.POSITIVE_INFINITY) meanWait = mean;
    if (least >= 0 && least < Double.POSITIVE_INFINITY) leastWait = least;
  }

  /** A request was sent at {@code tick}. */
  void sentAt(int tick) {
    long k = sends.getAndIncrement();
    INTS.setOpaque(recentSends, (int) (k & (RECENT_SENDS - 1)), tick);
    lastTick = tick;
  }

  /**
   * Whether something last sent {@code age} index ticks before {@code now} was sent within this
   * client's latest {@code n} requests (at most {@value #RECENT_SENDS}); always, while fewer than
   * that were sent. Concurrent senders may blur which request was the n-th; never an error.
   */
  boolean sentWithinLast(int n, int age, int now) {
    long k = sends.get();
    int m = Math.max(1, Math.min(n, RECENT_SENDS));
    if (k <= m) return true;
    int nth = (int) INTS.getOpaque(recentSends, (int) ((k - m) & (RECENT_SENDS - 1)));
    return age <= now - nth;
  }

  /** The index, allocated with the first picker ({@link #statesFor}). */
  PrefixIndex index() {
    PrefixIndex i = index;
    if (i == null) throw new IllegalStateException("no picker made yet");
    return i;
  }

  /**
   * The states of {@code replicas}, in snapshot order: those already known keep theirs, newcomers
   * get a fresh state and a free slot (one of a departed replica if none is free).
   */
  synchronized ReplicaState[] statesFor(ReplicaSet replicas) {
    if (index == null) index = new PrefixIndex(indexBlocks);
    ReplicaState[] result = new ReplicaState[replicas.size()];
    long present = 0;
    for (int i = 0; i < result.length; i++) {
      ReplicaState s = states.get(replicas.get(i).id());
      if (s != null && s.slot >= 0) present |= 1L << s.slot;
    }
    for (int i = 0; i < result.length; i++) {
      String id = replicas.get(i).id();
      ReplicaState s = states.get(id);
      if (s == null) {
        int slot = freeSlot(present);
        if (slot >= 0) present |= 1L << slot;
        s = new ReplicaState(slot);
        states.put(id, s);
      }
      result[i] = s;
    }
    return result;
  }

  /** A slot no present replica holds: never used, else one a departed replica gives up. */
  private int freeSlot(long present) {
    long used = usedSlots;
    if (used != -1L) {
      int slot = Long.numberOfTrailingZeros(~used);
      usedSlots = used | 1L << slot;
      return slot;
    }
    long departed = used & ~present;
    if (departed == 0) return -1;
    int slot = Long.numberOfTrailingZeros(departed);
    states.values().removeIf(s -> s.slot == slot);
    INTS.setOpaque(horizons, slot, INITIAL_HORIZON);
    reset(slot, lastTick);
    return slot;
  }

  /** Blocks recorded for {@code slot} up to {@code tick} no longer count (its cache was lost). */
  void reset(int slot, int tick) {
    INTS.setOpaque(resets, slot, tick);
    latestReset = tick;
    resetSlots |= 1L << slot;
  }

  @Override
  public long validAt(int stamp, int age) {
    long used = usedSlots;
    long reset = resetSlots;
    if (age < shortestHorizon && (reset == 0 || stamp - latestReset > 0)) return used;
    long valid = 0;
    for (long bits = used; bits != 0; bits &= bits - 1) {
      int s = Long.numberOfTrailingZeros(bits);
      if (age >= (int) INTS.getOpaque(horizons, s)) continue;
      if ((reset & (1L << s)) != 0 && stamp - (int) INTS.getOpaque(resets, s) <= 0) continue;
      valid |= 1L << s;
    }
    return valid;
  }

  /** How long, in index ticks, blocks sent to {@code slot} are taken to stay cached. */
  int horizon(int slot) {
    return (int) INTS.getOpaque(horizons, slot);
  }

  /**
   * An answer from {@code slot}'s replica showed whether blocks last sent anywhere {@code age}
   * ticks earlier were still cached there: a miss pulls the horizon down towards that age, a hit
   * near the horizon pushes it out, so it settles where hits turn into misses.
   */
  void learnHorizon(int slot, int age, boolean hit) {
    int h = horizon(slot);
    int next;
    if (hit) {
      next = 2 * age > h ? (int) Math.min(MAX_HORIZON, h + HORIZON_STEP * Math.max(h, age)) : h;
    } else {
      next = age < h ? (int) (h - HORIZON_STEP * (h - age)) : h;
    }
    next = Math.max(MIN_HORIZON, Math.min(MAX_HORIZON, next));
    if (next == h) return;
    INTS.setOpaque(horizons, slot, next);
    int shortest = Integer.MAX_VALUE;
    for (long bits = usedSlots; bits != 0; bits &= bits - 1) {
      shortest = Math.min(shortest, horizon(Long.numberOfTrailingZeros(bits)));
    }
    shortestHorizon = shortest;
  }
}
