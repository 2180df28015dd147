package io.github.llmrouter.sim;

import java.util.ArrayDeque;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.PriorityQueue;
import java.util.Set;

/**
 * One modelled inference replica in virtual time: a FIFO waiting queue, continuous batching with
 * chunked prefill, and a {@link PrefixCache}. See {@link EngineProfile} for the step cost model.
 *
 * <p>The engine is advanced explicitly with {@link #advanceTo}. Stretches of pure decoding (no
 * prefill, nothing admissible waiting) are skipped in one jump to the next completion or the next
 * arrival, so the cost of a run is proportional to the number of requests, not of steps.
 *
 * <p>A request is admitted when the coming step has token budget left for a chunk of its prompt,
 * the batch has room ({@code maxNumSeqs}) and the cache can hold its new prompt blocks plus its
 * output blocks without evicting pinned blocks; admission is FIFO
 * (head-of-line blocking, as vLLM's scheduler does without preemption). At least one token of every
 * prompt is computed, even on a full hit, as in vLLM.
 *
 * <p>Each step is planned as vLLM V1 plans it: running prefills take their chunks first, in FIFO
 * order, then waiting requests are admitted with what is left of the budget. A prompt's blocks
 * enter the prefix cache as the chunk that computes them is scheduled: a full block when its last
 * token is in a scheduled chunk, the last (partial) block with the prompt's last chunk. A request
 * admitted later in the same step already hits them; one admitted while a long prompt is still
 * being computed (possible when {@link EngineProfile#longPrefillTokenThreshold()} caps chunks)
 * hits only the blocks scheduled so far.
 *
 * <p>A request of a LoRA adapter ({@link TraceRequest#baseModel()} set) runs only with its adapter
 * in one of {@link EngineProfile#maxLoras()} slots. Admitting it loads the adapter if it is not
 * there, into a free slot or in place of the least recently used adapter with no request running,
 * and the step that admits it takes {@link EngineProfile#loraLoadSeconds()} longer; when every
 * slot's adapter has requests running, the request is passed over and keeps its place in the
 * queue, as vLLM's scheduler does.
 */
final class ReplicaEngine {
  /** Receives a job's first token and its completion, at the end of the step that produced them. */
  interface JobListener {
    void completed(Job job);

    /** The job's prompt is computed and its first token emitted at {@code job.firstToken}. */
    default void firstToken(Job job) {}
  }

  private final EngineProfile profile;
  private final int blockTokens;
  private final PrefixCache cache;
  private final JobListener listener;

  private final ArrayDeque<Job> waiting = new ArrayDeque<>();
  private final ArrayDeque<Job> prefilling = new ArrayDeque<>();
  private final PriorityQueue<Job> decoding = new PriorityQueue<>((a, b) -> {
    int c = Long.compare(a.finishStep, b.finishStep);
    return c != 0 ? c : Integer.compare(a.index, b.index);
  });

  private boolean busy;
  /** When the next step starts (meaningful while busy). */
  private double clock;
  /** The index of the next step. */
  private long step;
  private long waitingEstimatedTokens;
  private long prefillRemainingTokens;
  /** The adapters in slots, least recently used first, with their running requests. */
  private final LinkedHashMap<String, int[]> loras = new LinkedHashMap<>(16, 0.75f, true);
  /** Seconds of adapter loading the coming step pays. */
  private double pendingLoadSeconds;
  private long loraLoads;

  // Statistics.
  private long outputTokens;
  private double lastCompletion;
  private double queueTimeSum;
  private long admittedCount;

  ReplicaEngine(EngineProfile profile, int blockTokens, JobListener listener) {
    this.profile = profile;
    this.blockTokens = blockTokens;
    this.cache = new PrefixCache(Math.max(1, profile.cacheTokens() / blockTokens));
    this.listener = listener;
  }

  PrefixCache cache() {
    return cache;
  }

  int waitingCount() {
    return waiting.size();
  }

  int runningCount() {
    return prefilling.size() + decoding.size();
  }

  /**
   * Requests without their first token yet, waiting or running with prefill left: what a client
   * derives from vLLM's counters.
   */
  int awaitingFirstTokenCount() {
    return waiting.size() + prefilling.size();
  }

  /** Seconds admitted requests spent waiting, in total: a queue-time histogram's sum. */
  double queueTimeSum() {
    return queueTimeSum;
  }

  /** Requests admitted so far: that histogram's count. */
  long admittedCount() {
    return admittedCount;
  }

  double lastCompletion() {
    return lastCompletion;
  }

  /** Adapters loaded so far. */
  long loraLoads() {
    return loraLoads;
  }

  /**
   * The adapters of the requests running or waiting here: what vLLM's {@code
   * vllm:lora_requests_info} gauge lists as {@code running_lora_adapters} and {@code
   * waiting_lora_adapters}.
   */
  Set<String> activeAdapters() {
    Set<String> active = new LinkedHashSet<>();
    for (Map.Entry<String, int[]> e : loras.entrySet()) {
      if (e.getValue()[0] > 0) active.add(e.getKey());
    }
    for (Job j : waiting) {
      String a = adapterOf(j);
      if (a != null) active.add(a);
    }
    return active;
  }

  private static @org.jspecify.annotations.Nullable String adapterOf(Job j) {
    return j.request.baseModel() != null ? j.request.model() : null;
  }

  /**
   * Whether {@code j} can run now as far as adapters go: it has none, its adapter is in a slot,
   * a slot is free, or one holds an adapter with nothing running.
   */
  private boolean loraFits(Job j) {
    String a = adapterOf(j);
    if (a == null || loras.size() < profile.maxLoras() || loras.containsKey(a)) return true;
    for (int[] running : loras.values()) {
      if (running[0] == 0) return true;
    }
    return false;
  }

  /** {@code j} is admitted: its adapter is loaded if it must be, and counts one more running. */
  private void acquireLora(Job j) {
    String a = adapterOf(j);
    if (a == null) return;
    int[] running = loras.get(a);
    if (running == null) {
      if (loras.size() >= profile.maxLoras()) {
        for (Iterator<int[]> it = loras.values().iterator(); it.hasNext(); ) {
          if (it.next()[0] == 0) {
            it.remove();
            break;
          }
        }
      }
      running = new int[1];
      loras.put(a, running);
      loraLoads++;
      pendingLoadSeconds += profile.loraLoadSeconds();
    }
    running[0]++;
  }

  private void releaseLora(Job j) {
    String a = adapterOf(j);
    if (a == null) return;
    int[] running = loras.get(a);
    if (running != null) running[0]--;
  }

  /**
   * Adds {@code job} to the waiting queue at time {@code t}. Call {@link #advanceTo advanceTo(t)}
   * first: the job joins the first step that starts at or after {@code t}.
   */
  void submit(Job job, double t) {
    job.arrival = t;
    int matched = cache.match(job.chain);
    job.estimatedUncached = job.request.inputTokens() - cachedTokens(job, matched);
    waitingEstimatedTokens += job.estimatedUncached;
    waiting.addLast(job);
    if (!busy) {
      busy = true;
      clock = Math.max(clock, t);
    }
  }

  /**
   * Cancels {@code j} where it is, as a server does when its client goes away: it leaves the
   * waiting queue or the batch and frees what it held in the cache, and what it produced but was
   * not yet told no longer counts ({@link Job#cancelled}).
   *
   * @return whether it was still queued or running
   */
  boolean cancel(Job j) {
    if (waiting.remove(j)) {
      waitingEstimatedTokens -= j.estimatedUncached;
    } else if (prefilling.remove(j)) {
      prefillRemainingTokens -= j.remainingPrefill;
      cache.release(j.chain, j.registered, j.outputBlocks);
      releaseLora(j);
    } else if (decoding.remove(j)) {
      cache.release(j.chain, j.registered, j.outputBlocks);
      releaseLora(j);
    } else {
      return false; // completed already: its completion is still told
    }
    j.cancelled = true;
    return true;
  }

  /** Runs every step that starts before {@code t}. */
  void advanceTo(double t) {
    while (busy && clock < t) {
      long left = scheduleRunning(stepBudget());
      admit(left);
      if (prefilling.isEmpty() && decoding.isEmpty()) {
        busy = false;
        return;
      }
      if (prefilling.isEmpty()) {
        decodeUntil(t);
      } else {
        mixedStep();
      }
    }
  }

  /** Runs until every submitted job has completed. */
  void drain() {
    advanceTo(Double.POSITIVE_INFINITY);
  }

  /**
   * The oracle's estimate of the TTFT {@code job} would see here if it arrived now: the prefill
   * work queued ahead of it plus its own uncached prompt, at the step rate of the current batch,
   * plus the wait for a decode completion if its blocks do not fit in the cache now.
   */
  double estimateTtft(Job job, double now) {
    int matched = cache.match(job.chain);
    long own = job.request.inputTokens() - cachedTokens(job, matched);
    long tokens = waitingEstimatedTokens + prefillRemainingTokens + own;
    int decodeSeqs = decoding.size();
    long perStep = Math.max(1, profile.tokenBudget() - decodeSeqs);
    long steps = (tokens + perStep - 1) / perStep;
    double t = tokens / profile.prefillTokensPerSecond()
        + steps * (profile.decodeStepSeconds() + profile.perSequenceSeconds() * (decodeSeqs + 1));
    if (busy && clock > now) t += clock - now;
    if (!waiting.isEmpty() || runningCount() >= profile.maxNumSeqs()
        || !cache.fits(job.chain, matched, job.outputBlocks)) {
      // Memory- or batch-bound: it must also wait for running requests to finish.
      Job next = decoding.peek();
      if (next != null) t += (next.finishStep - step + 1) * stepSeconds(decodeSeqs);
    }
    return t;
  }

  /** Tokens the coming step can compute: the token budget less one per decoding sequence. */
  private long stepBudget() {
    return Math.max(1, profile.tokenBudget() - decoding.size());
  }

  /** The chunk of {@code j}'s prompt the coming step can compute out of {@code left} tokens. */
  private int chunkOf(Job j, long left) {
    long chunk = Math.min(j.remainingPrefill, left);
    int cap = profile.longPrefillTokenThreshold();
    return (int) (cap > 0 ? Math.min(chunk, cap) : chunk);
  }

  /**
   * Gives the running prefills their chunks of the coming step, in FIFO order, and registers the
   * blocks those chunks compute. Returns the budget left for waiting jobs.
   */
  private long scheduleRunning(long budget) {
    long left = budget;
    for (Job j : prefilling) {
      j.chunk = chunkOf(j, left);
      left -= j.chunk;
      registerScheduled(j);
    }
    return left;
  }

  /**
   * Moves waiting jobs into the batch, as vLLM V1's scheduler does: only while the coming step has
   * token budget left after the decoding sequences and the prefills already running have taken
   * theirs. A job the step cannot give a chunk to stays waiting, so {@link #waitingCount()} counts
   * what {@code vllm:num_requests_waiting} counts. Each admitted job's hit is matched against the
   * cache as it is at that moment, including blocks scheduled earlier in the same step.
   */
  private void admit(long left) {
    Iterator<Job> queue = waiting.iterator();
    while (left > 0 && queue.hasNext() && runningCount() < profile.maxNumSeqs()) {
      Job j = queue.next();
      if (!loraFits(j)) continue; // passed over: every slot's adapter is running
      int matched = cache.match(j.chain);
      if (!cache.fits(j.chain, matched, j.outputBlocks) && runningCount() > 0) return;
      queue.remove();
      acquireLora(j);
      waitingEstimatedTokens -= j.estimatedUncached;
      cache.acquire(j.chain, matched, j.outputBlocks);
      j.registered = matched;
      j.admitted = clock;
      queueTimeSum += clock - j.arrival;
      admittedCount++;
      j.cachedTokens = cachedTokens(j, matched);
      j.remainingPrefill = j.request.inputTokens() - j.cachedTokens;
      prefillRemainingTokens += j.remainingPrefill;
      prefilling.addLast(j);
      j.chunk = chunkOf(j, left);
      left -= j.chunk;
      registerScheduled(j);
    }
  }

  /**
   * Registers the blocks {@code j}'s prompt will have computed once its scheduled chunk is: every
   * block whose last token is scheduled, and every block once the prompt's last token is.
   */
  private void registerScheduled(Job j) {
    int input = j.request.inputTokens();
    long scheduled = (long) input - j.remainingPrefill + j.chunk;
    int through = scheduled >= input ? j.chain.length
        : (int) Math.min(j.chain.length, scheduled / blockTokens);
    if (through > j.registered) {
      cache.register(j.chain, j.registered, through);
      j.registered = through;
    }
  }

  private int cachedTokens(Job j, int matchedBlocks) {
    return (int) Math.min((long) matchedBlocks * blockTokens, j.request.inputTokens() - 1L);
  }

  private double stepSeconds(int sequences) {
    return profile.decodeStepSeconds() + profile.perSequenceSeconds() * sequences;
  }

  /** One step computing the planned prefill chunks and one token of every decoding sequence. */
  private void mixedStep() {
    int decodeSeqs = decoding.size();
    long tokens = 0;
    int seqs = 0;
    for (Job j : prefilling) {
      if (j.chunk == 0) continue;
      tokens += j.chunk;
      seqs++;
    }
    double end = clock + stepSeconds(decodeSeqs + seqs) + tokens / profile.prefillTokensPerSecond()
        + pendingLoadSeconds;
    pendingLoadSeconds = 0;
    long thisStep = step;
    // Apply the chunks in FIFO order; jobs whose prompt is done emit their first token.
    for (Iterator<Job> it = prefilling.iterator(); it.hasNext(); ) {
      Job j = it.next();
      if (j.chunk == 0) continue;
      j.remainingPrefill -= j.chunk;
      prefillRemainingTokens -= j.chunk;
      j.chunk = 0;
      if (j.remainingPrefill > 0) continue;
      it.remove();
      j.firstToken = end;
      listener.firstToken(j);
      if (j.request.outputTokens() <= 1) {
        complete(j, end);
      } else {
        j.finishStep = thisStep + j.request.outputTokens() - 1;
        decoding.add(j);
      }
    }
    step = thisStep + 1;
    clock = end;
    completeDecodes(thisStep, end);
  }

  /** Pure decoding with a constant batch: jump to the next completion or past {@code t}. */
  private void decodeUntil(double t) {
    double dt = stepSeconds(decoding.size());
    long toFinish = decoding.peek().finishStep - step + 1;
    long n = toFinish;
    if (t != Double.POSITIVE_INFINITY) {
      double k = Math.ceil((t - clock) / dt);
      if (k < n) n = Math.max(1, (long) k);
    }
    clock += n * dt;
    step += n;
    completeDecodes(step - 1, clock);
  }

  private void completeDecodes(long lastStep, double end) {
    while (!decoding.isEmpty() && decoding.peek().finishStep <= lastStep) {
      complete(decoding.poll(), end);
    }
  }

  private void complete(Job j, double end) {
    j.finished = end;
    cache.release(j.chain, j.registered, j.outputBlocks);
    releaseLora(j);
    outputTokens += j.request.outputTokens();
    lastCompletion = Math.max(lastCompletion, end);
    listener.completed(j);
  }
}
