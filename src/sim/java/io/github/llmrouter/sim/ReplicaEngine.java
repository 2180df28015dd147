package io.github.llmrouter.sim;

import java.util.ArrayDeque;
import java.util.PriorityQueue;

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
 */
final class ReplicaEngine {
  /** Receives each completed job at its completion time. */
  interface Completion {
    void completed(Job job);

    /** Receives each job whose first token has just been computed (at {@code job.firstToken}). */
    default void firstToken(Job job) {}
  }

  private final EngineProfile profile;
  private final int blockTokens;
  private final PrefixCache cache;
  private final Completion completion;

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

  // Statistics.
  private long outputTokens;
  private double lastCompletion;
  private double queueTimeSum;
  private long admittedCount;

  ReplicaEngine(EngineProfile profile, int blockTokens, Completion completion) {
    this.profile = profile;
    this.blockTokens = blockTokens;
    this.cache = new PrefixCache(Math.max(1, profile.cacheTokens() / blockTokens));
    this.completion = completion;
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

  /** Requests without their first token yet: waiting, or running with prefill left. */
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

  /** Runs every step that starts before {@code t}. */
  void advanceTo(double t) {
    while (busy && clock < t) {
      admit();
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

  /**
   * Moves waiting jobs into the batch, as vLLM V1's scheduler does: only while the coming step has
   * token budget left after the decoding sequences and the prefills already running have taken
   * theirs. A job the step cannot give a chunk to stays waiting, so {@link #waitingCount()} counts
   * what {@code vllm:num_requests_waiting} counts.
   */
  private void admit() {
    long budget = Math.max(1, profile.tokenBudget() - decoding.size());
    long left = budget - Math.min(budget, prefillRemainingTokens);
    while (left > 0 && !waiting.isEmpty() && runningCount() < profile.maxNumSeqs()) {
      Job j = waiting.peekFirst();
      int matched = cache.match(j.chain);
      if (!cache.fits(j.chain, matched, j.outputBlocks) && runningCount() > 0) return;
      waiting.pollFirst();
      waitingEstimatedTokens -= j.estimatedUncached;
      cache.acquire(j.chain, j.outputBlocks);
      j.admitted = clock;
      queueTimeSum += clock - j.arrival;
      admittedCount++;
      j.cachedTokens = cachedTokens(j, matched);
      j.remainingPrefill = j.request.inputTokens() - j.cachedTokens;
      prefillRemainingTokens += j.remainingPrefill;
      prefilling.addLast(j);
      left -= Math.min(left, j.remainingPrefill);
    }
  }

  private int cachedTokens(Job j, int matchedBlocks) {
    return (int) Math.min((long) matchedBlocks * blockTokens, j.request.inputTokens() - 1L);
  }

  private double stepSeconds(int sequences) {
    return profile.decodeStepSeconds() + profile.perSequenceSeconds() * sequences;
  }

  /** One step with prefill chunks: chunks are taken from the head of the prefill FIFO. */
  private void mixedStep() {
    int decodeSeqs = decoding.size();
    int budget = Math.max(1, profile.tokenBudget() - decodeSeqs);
    int tokens = 0;
    int seqs = 0;
    for (Job j : prefilling) {
      if (budget == 0) break;
      int chunk = Math.min(j.remainingPrefill, budget);
      budget -= chunk;
      tokens += chunk;
      seqs++;
    }
    double end = clock + stepSeconds(decodeSeqs + seqs) + tokens / profile.prefillTokensPerSecond();
    long thisStep = step;
    // Apply the chunks in the same order; jobs whose prompt is done emit their first token.
    int left = tokens;
    while (left > 0) {
      Job j = prefilling.peekFirst();
      int chunk = Math.min(j.remainingPrefill, left);
      j.remainingPrefill -= chunk;
      prefillRemainingTokens -= chunk;
      left -= chunk;
      if (j.remainingPrefill > 0) break;
      prefilling.pollFirst();
      j.firstToken = end;
      completion.firstToken(j);
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
    cache.release(j.chain, j.outputBlocks);
    outputTokens += j.request.outputTokens();
    lastCompletion = Math.max(lastCompletion, end);
    completion.completed(j);
  }
}
