package io.github.llmrouter.routing;

import io.github.llmrouter.load.LoadView;
import java.util.Locale;

/**
 * One request's ranking under {@link CacheAware}: replicas in order of estimated time to first
 * token, within the load cap first. The predictions that do not depend on load (cached depth per
 * replica from the index, the two ring homes) are made once, on the first {@link #next()}; every
 * call re-reads the load. One request owns it.
 */
final class CacheAwareRanking implements Ranking {
  /**
   * Seconds the least busy replica has to wait (prefill queued, a place to run) that count as
   * overload: {@value}.
   */
  static final double OVERLOAD_SECONDS = 2;
  /** Requests a replica may carry beyond its capped share: {@value}. */
  static final int LOAD_SLACK = 4;
  /**
   * The most a request's prefill is expected to take, seconds: {@value}. Bounds the work one
   * request adds to a replica's queue, whatever the calibration says.
   */
  static final double MAX_PREFILL_SECONDS = 3_600;
  /** The most a prefill token is weighed beyond its own time (λ): {@value}. */
  static final double MAX_LAMBDA = 1e6;

  private static final String BEST = "lowest estimated time to first token";
  private static final String CAPPED =
      "lowest estimated time to first token among the replicas within the load cap";
  private static final String ALL_OVER =
      "every replica over the load cap: lowest estimated time to first token";
  private static final String FAILOVER = "failover: next lowest estimated time to first token";
  /** Which prediction gave a replica its cached tokens. */
  private static final String[] SOURCES = {"none", "index", "conversation home",
      "system-prompt home"};

  private final CacheAware.Picker picker;
  private final RoutingRequest request;
  private final LoadView load;
  private final FleetLoad fleet;
  private final SeenSet seen = new SeenSet();
  private int returned;

  // Made once, on the first call.
  private boolean prepared;
  private PromptBlocks blocks = PromptBlocks.EMPTY;
  /** Per index slot: leading blocks held; meaningful for the slots in {@link #indexed}. */
  private final int[] depth = new int[PrefixIndex.SLOTS];
  private long indexed;
  private int conversationHome = -1;
  private int systemHome = -1;
  /** Estimated tokens the conversation home and the system-prompt home are predicted to hold. */
  private int conversationTokens;
  private int systemTokens;
  /** The shared prefix's length in blocks, and whether the index knows the conversation past it. */
  private int shared;
  private boolean conversationKnown;
  /** Whether the conversation home is priced as holding the shared prefix, a one-time copy. */
  private boolean copiesShared;
  private int start;

  // Recomputed on every call, for the replica returned last and its runner-up.
  private String reason = "";
  private double lambda;
  private boolean overload;
  private int chosen = -1;
  private int runnerUp = -1;
  private double chosenCost;
  private double runnerUpCost;

  CacheAwareRanking(CacheAware.Picker picker, RoutingRequest request, LoadView load) {
    this.picker = picker;
    this.request = request;
    this.load = load;
    this.fleet = new FleetLoad(load, picker.weights);
  }

  private void prepare(long now) {
    prepared = true;
    blocks = request.blocks(picker.blockChars);
    PrefixIndex index = picker.index;
    long[] hashes = blocks.hashes();
    int n = hashes.length;
    int tick = PrefixIndex.tick(now);
    indexed = index.depths(hashes, n, tick, picker.memory, depth);
    shared = Math.max(blocks.sharedBlocks(), learnedShared(index, hashes, n));
    int deepest = 0;
    for (long bits = indexed; bits != 0; bits &= bits - 1) {
      deepest = Math.max(deepest, depth[Long.numberOfTrailingZeros(bits)]);
    }
    conversationKnown = deepest > shared;
    if (conversationKnown) picker.memory.calibration.seenAgain(deepest < n);
    conversationHome = picker.home(CacheAware.conversationKey(request, blocks, shared));
    conversationTokens = n >= 2 ? blocks.tokensThrough(n - 1) : 0;
    if (shared > 0 && shared <= n) {
      systemHome = picker.home(hashes[shared - 1]);
      systemTokens = blocks.tokensThrough(shared);
    }
    copiesShared = !conversationKnown && shared > 0 && shared <= n
        && carriesMoreThanAShare(index.ageOf(hashes[shared - 1], tick), tick);
    start = conversationHome;
  }

  /**
   * Whether a shared prefix last sent {@code age} ticks before {@code now} (-1: never) carries
   * more than one replica's share of this client's requests: it was sent within the latest
   * requests as many as there are replicas. Such a prefix cannot stay on one replica without
   * loading it beyond its share, so every replica will hold a copy anyway and conversations
   * behind it go to their homes. A rarer one (one tenant's of many) stays where it is cached, and
   * copies of many such prefixes do not crowd each other out of the replicas' caches.
   */
  private boolean carriesMoreThanAShare(int age, int now) {
    return age >= 0 && picker.memory.sentWithinLast(picker.states.length, age, now);
  }

  /**
   * How many leading blocks this client has seen followed by many different blocks: a shared
   * prefix. Shared blocks come first, so a galloping search finds the end in a few look-ups; at
   * least the last block is left to the conversation.
   */
  private static int learnedShared(PrefixIndex index, long[] hashes, int n) {
    int limit = n - 1;
    if (limit <= 0 || !index.isShared(hashes[0])) return 0;
    int lo = 1; // blocks [0, lo) are shared
    int step = 1;
    int hi = limit; // blocks [hi, limit) are not known to be shared
    while (lo < limit) {
      int probe = Math.min(limit, lo + step) - 1;
      if (!index.isShared(hashes[probe])) {
        hi = probe;
        break;
      }
      lo = probe + 1;
      step <<= 1;
    }
    while (lo < hi) {
      int mid = (lo + hi) >>> 1;
      if (index.isShared(hashes[mid])) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  @Override
  public int next() {
    int n = picker.states.length;
    if (returned == n) return -1;
    long now = load.nanoTime();
    if (!prepared) prepare(now);
    FleetMemory memory = picker.memory;
    Calibration cal = memory.calibration;
    // The fleet's business as the previous decision found it: one pass per decision, not two.
    lambda = Calibration.clamp(memory.meanWait / (cal.typicalUncached() / cal.prefillRate()), 0,
        MAX_LAMBDA);
    overload = memory.leastWait > OVERLOAD_SECONDS;
    double tokens = promptTokens();
    int best = -1;
    int second = -1;
    int bestOver = -1;
    double bestCost = Double.MAX_VALUE;
    double secondCost = Double.MAX_VALUE;
    double bestOverCost = Double.MAX_VALUE;
    double waits = 0;
    double least = Double.MAX_VALUE;
    double awaitingSum = 0;
    double awaitingPerWeight = (memory.awaiting + 1) / picker.replicas.totalWeight();
    for (int k = 0; k < n; k++) {
      int i = start + k;
      if (i >= n) i -= n;
      if (seen.contains(i)) continue;
      double rate = rate(i, now);
      double wait = wait(i, now, rate);
      double slot = slotWait(i, now);
      // How busy the fleet is counts the wait for a place to run as well as the prefill queued.
      double busy = wait + slot;
      waits += busy;
      least = Math.min(least, busy);
      long capacity = load.kvCapacityTokens(i, now);
      double uncached = Math.max(0, tokens - pricedCachedTokens(i, capacity));
      // What the conversation home prefills now, the conversation's next turn finds there,
      // whichever client sends it: worth as much as the share of turns other clients send.
      if (i == conversationHome) uncached *= 1 - cal.foreignShare();
      double cost = wait + (1 + lambda) * uncached / rate;
      double queued = awaiting(i, now);
      awaitingSum += queued;
      // The admission term only adds: it is priced for a replica that may still beat the best two.
      if (!(second >= 0 && cost >= secondCost)) {
        cost += Math.max(memoryWait(i, now, tokens, capacity), slot);
      }
      // A cost that is not a number ranks last, yet the replica stays a candidate.
      if (Double.isNaN(cost)) cost = Double.POSITIVE_INFINITY;
      // The cap is checked only for a replica that would improve on the best two within it.
      if (second >= 0 && cost >= secondCost) continue;
      if (picker.cap.admits(i, queued, awaitingPerWeight)) {
        if (best < 0 || cost < bestCost) {
          second = best;
          secondCost = bestCost;
          best = i;
          bestCost = cost;
        } else {
          second = i;
          secondCost = cost;
        }
      } else if (bestOver < 0 || cost < bestOverCost) {
        bestOver = i;
        bestOverCost = cost;
      }
    }
    if (returned == 0) {
      memory.observeWaits(waits / n, least);
      memory.awaiting = awaitingSum;
    }
    if (best < 0) {
      best = bestOver;
      bestCost = bestOverCost;
      reason = returned > 0 ? FAILOVER : ALL_OVER;
    } else {
      reason = returned > 0 ? FAILOVER : bestOver >= 0 && bestOverCost < bestCost ? CAPPED : BEST;
      if (second < 0 && bestOver >= 0) {
        second = bestOver;
        secondCost = bestOverCost;
      }
    }
    chosen = best;
    chosenCost = bestCost;
    runnerUp = second;
    runnerUpCost = secondCost;
    seen.add(best, n);
    returned++;
    return best;
  }

  /** Prompt tokens replica {@code i} can prefill per second now. */
  private double rate(int i, long now) {
    return picker.memory.calibration.prefillRate() * picker.relativeWeights[i]
        / picker.pressure.waitScale(i, now, fleet);
  }

  /**
   * Seconds of prefill ahead of a new request on replica {@code i}: this client's own, and the
   * other clients' from the replica's last report (drained since).
   */
  private double wait(int i, long now, double rate) {
    return picker.states[i].ownWait(now) + othersWait(i, now, rate);
  }

  /**
   * Requests awaiting their first token on replica {@code i}: this client's, exactly, or the
   * replica's last report (every client's) if it says more.
   */
  private double awaiting(int i, long now) {
    return Math.max(picker.states[i].awaiting.get(), load.awaitingFirstToken(i, now));
  }

  private double othersWait(int i, long now, double rate) {
    int reported = load.awaitingFirstToken(i, now);
    if (reported <= 0) return 0;
    long age = load.reportAgeNanos(i, now);
    // The report counts this client's requests too: those are in its own wait.
    int awaiting = reported - picker.states[i].awaiting.get();
    if (awaiting <= 0) return 0;
    double queued = awaiting * picker.memory.calibration.typicalUncached() / rate;
    return Math.max(0, queued - age * 1e-9);
  }

  /** {@link AdmissionWait#of} for replica {@code i}. */
  private double admissionWait(int i, long now, double tokens, long capacity) {
    return AdmissionWait.of(load, i, now, tokens, capacity, picker.states[i],
        picker.memory.calibration.runSeconds());
  }

  /** {@link AdmissionWait#forMemory} for replica {@code i}. */
  private double memoryWait(int i, long now, double tokens, long capacity) {
    return AdmissionWait.forMemory(load, i, now, tokens, capacity, picker.states[i],
        picker.memory.calibration.runSeconds());
  }

  /** {@link AdmissionWait#forPlace} for replica {@code i}. */
  private double slotWait(int i, long now) {
    return AdmissionWait.forPlace(load, i, now, picker.memory.calibration.runSeconds());
  }

  /**
   * Prompt tokens predicted cached on replica {@code i}, in real tokens: the best of the three
   * predictions, never more than the replica's KV {@code capacity} when known.
   */
  private double cachedTokens(int i, long capacity) {
    return realTokens(cached(i), capacity);
  }

  /**
   * The prompt tokens the cost counts as cached on replica {@code i}: those predicted, and on the
   * conversation home of a conversation this client has not placed, behind a popular shared prefix
   * ({@link #carriesMoreThanAShare}), the shared prefix too, in the share of prompts that grow
   * into conversations ({@link Calibration#growingShare()}). A conversation lives at its home: what
   * the home lacks of the shared prefix it prefills once and then holds for every conversation
   * homed there, so that one-time copy is not held against it, while a conversation's own history
   * exists in one place only. Questions asked again unchanged have no history to keep together.
   */
  private double pricedCachedTokens(int i, long capacity) {
    double cached = cachedTokens(i, capacity);
    if (i != conversationHome || !copiesShared) return cached;
    // copiesShared holds only with a shared prefix within the prompt: systemTokens is its length.
    return Math.max(cached,
        picker.memory.calibration.growingShare() * realTokens(systemTokens, capacity));
  }

  /** {@code estimated} tokens in real tokens as calibrated, never more than a known capacity. */
  private double realTokens(double estimated, long capacity) {
    double real = estimated * picker.memory.calibration.tokenRatio();
    return capacity > 0 ? Math.min(real, capacity) : real;
  }

  /** Estimated tokens predicted cached on replica {@code i}: the best of the three predictions. */
  private double cached(int i) {
    return Math.max(indexTokens(i), Math.max(conversationPrediction(i), systemPrediction(i)));
  }

  private int indexTokens(int i) {
    int slot = picker.states[i].slot;
    if (slot < 0 || (indexed & (1L << slot)) == 0) return 0;
    return blocks.tokensThrough(depth[slot]);
  }

  private double conversationPrediction(int i) {
    if (i != conversationHome) return 0;
    boolean trust = overload && !conversationKnown;
    return conversationTokens * (trust ? 1 : picker.states[i].conversationConfidence);
  }

  private double systemPrediction(int i) {
    if (i != systemHome) return 0;
    return systemTokens * (overload ? 1 : picker.states[i].systemConfidence);
  }

  private int source(int i) {
    double index = indexTokens(i);
    double conversation = conversationPrediction(i);
    double system = systemPrediction(i);
    double best = Math.max(index, Math.max(conversation, system));
    if (best <= 0) return 0;
    return best == index ? 1 : best == conversation ? 2 : 3;
  }

  @Override
  public String reason() {
    return reason;
  }

  /** The conversation's ring home (after the first {@link #next()}), for tests. */
  int conversationHome() {
    return conversationHome;
  }

  @Override
  public long predictedCachedTokens() {
    if (chosen < 0) return -1;
    return Math.round(cachedTokens(chosen, load.kvCapacityTokens(chosen, load.nanoTime())));
  }

  @Override
  public double estimatedWaitSeconds() {
    if (chosen < 0) return Double.NaN;
    long now = load.nanoTime();
    return wait(chosen, now, rate(chosen, now)) + admissionWait(chosen, now, promptTokens(),
        load.kvCapacityTokens(chosen, now));
  }

  @Override
  public String versusRunnerUp() {
    if (chosen < 0) return "";
    long now = load.nanoTime();
    String mine = describe(chosen, chosenCost, now);
    if (runnerUp < 0) return "only replica left: " + mine;
    return mine + " vs " + describe(runnerUp, runnerUpCost, now)
        + String.format(Locale.ROOT, " (λ %.2f%s)", lambda, overload ? ", overload" : "");
  }

  private String describe(int i, double cost, long now) {
    long capacity = load.kvCapacityTokens(i, now);
    double memory = memoryWait(i, now, promptTokens(), capacity);
    double slot = slotWait(i, now);
    double cached = cachedTokens(i, capacity);
    double priced = pricedCachedTokens(i, capacity);
    return String.format(Locale.ROOT,
        "%s: estimated TTFT %.3f s (wait %.3f s%s, %d of %d prompt tokens cached: %s%s)",
        picker.replicas.get(i).id(), cost, wait(i, now, rate(i, now)),
        memory > 0 || slot > 0 ? String.format(Locale.ROOT, " + %.3f s for %s",
            Math.max(memory, slot), memory >= slot ? "KV memory" : "a place to run") : "",
        Math.round(cached), Math.round(promptTokens()), SOURCES[source(i)],
        priced > cached ? String.format(Locale.ROOT,
            "; %d more of the shared prefix, a one-time copy", Math.round(priced - cached)) : "");
  }

  /** The request's prompt tokens, in real tokens as calibrated. */
  private double promptTokens() {
    return blocks.promptTokens() * picker.memory.calibration.tokenRatio();
  }

  @Override
  public RoutedAttempt sent(int index, long nanos, boolean streamed) {
    if (!prepared) return RoutedAttempt.IGNORED;
    CacheAware.Picker p = picker;
    Calibration cal = p.memory.calibration;
    ReplicaState state = p.states[index];
    double ratio = cal.tokenRatio();
    double rate = rate(index, nanos);
    double tokens = promptTokens();
    long capacity = load.kvCapacityTokens(index, nanos);
    double uncached = Math.max(0, tokens - cachedTokens(index, capacity));
    double waited = wait(index, nanos, rate);
    long prefillNanos = Math.round(Math.min(uncached / rate, MAX_PREFILL_SECONDS) * 1e9);
    state.add(nanos, prefillNanos, streamed);
    long active = Math.round(tokens);
    state.activeTokens.addAndGet(active);
    int tick = PrefixIndex.tick(nanos);
    p.memory.sentAt(tick);
    int slot = state.slot;
    int indexTokens = indexTokens(index);
    int indexAge = -1;
    if (indexTokens > 0) indexAge = p.index.ageOf(blocks.hash(depth[slot] - 1), tick);
    if (slot >= 0) p.index.record(blocks.hashes(), blocks.size(), slot, tick, p.memory);
    // A ring prediction is judged only where the index did not already make it: a home this
    // client filled itself proves nothing about what other clients left there.
    return new SentAttempt(p.memory, state, streamed, blocks.promptTokens(), nanos, prefillNanos,
        uncached, waited, p.relativeWeights[index], indexTokens * ratio, indexAge,
        index == conversationHome && !conversationKnown && conversationTokens > 0
            ? conversationTokens * ratio : 0,
        blocks.tokensThrough(Math.min(shared, blocks.size())) * ratio,
        index == systemHome && indexTokens < systemTokens ? systemTokens * ratio : 0,
        conversationKnown, active);
  }
}
