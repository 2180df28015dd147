package io.github.llmrouter.sim;

import io.github.llmrouter.api.Ticker;
import io.github.llmrouter.internal.load.LocalLoad;
import io.github.llmrouter.load.LoadReport;
import io.github.llmrouter.replica.Replica;
import io.github.llmrouter.replica.ReplicaSet;
import io.github.llmrouter.routing.Ranking;
import io.github.llmrouter.routing.ReplicaPicker;
import io.github.llmrouter.routing.RoutedAttempt;
import io.github.llmrouter.routing.RoutingRequest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.PriorityQueue;
import java.util.SplittableRandom;

/**
 * One policy replayed on one trace: a fleet of engines, one routing client per simulated client
 * (its own picker and {@link LocalLoad} over a virtual clock), and the responses flowing back to
 * the clients in time order. Single-threaded; used once.
 *
 * <p>Each request is ranked by its client's picker and sent to rank 0, as a stream. Its client
 * learns of its first token and of its completion at the times the engine produced them, in time
 * order across replicas and before any later arrival or scrape: the in-flight count is released at
 * completion, and the policy's {@link RoutedAttempt} for the request hears {@link
 * RoutedAttempt#firstToken} and {@link RoutedAttempt#completed} with the cached prompt tokens the
 * engine reports (vLLM's {@code usage.prompt_tokens_details.cached_tokens}).
 */
final class FleetRun {
  private final Simulator.Settings settings;
  private final SimulatedPolicy policy;
  private final Trace trace;
  private final Simulator.Prepared prepared;

  private final VirtualTicker clock = new VirtualTicker();
  private final LocalLoad[] loads;
  private final ReplicaPicker[] pickers;
  private final ReplicaEngine[] engines;
  /** Each in-flight request's attempt, by trace index, until its completion is delivered. */
  private final RoutedAttempt[] attempts;
  private final PriorityQueue<Response> responses = new PriorityQueue<>();
  private final double[] nextScrape;
  private long responseOrder;

  FleetRun(Simulator.Settings settings, SimulatedPolicy policy, Trace trace,
      Simulator.Prepared prepared) {
    this.settings = settings;
    this.policy = policy;
    this.trace = trace;
    this.prepared = prepared;
    int replicas = settings.replicas();
    int clients = settings.clients();
    List<Replica> list = new ArrayList<>(replicas);
    for (int i = 0; i < replicas; i++) {
      list.add(Replica.builder("http://replica-" + i + ".sim:8000").id("replica-" + i).build());
    }
    ReplicaSet set = ReplicaSet.of(list);
    // Each client routes on the client's own LoadView, aged on a virtual clock: the effective
    // queue, staleness, fleet-load and queue-wait rules are the production code's.
    Duration staleAfter = Duration.ofNanos(Math.max(1, Math.round(settings.staleAfter() * 1e9)));
    loads = new LocalLoad[clients];
    pickers = new ReplicaPicker[clients];
    for (int c = 0; c < clients; c++) {
      loads[c] = LocalLoad.of(set, clock, staleAfter);
      if (!policy.isOracle()) pickers[c] = policy.newPolicy(c).newPicker(set);
    }
    engines = new ReplicaEngine[replicas];
    ReplicaEngine.JobListener listener = new ReplicaEngine.JobListener() {
      @Override
      public void firstToken(Job job) {
        responses.add(new Response(job, job.firstToken, false, responseOrder++));
      }

      @Override
      public void completed(Job job) {
        responses.add(new Response(job, job.finished, true, responseOrder++));
      }
    };
    for (int r = 0; r < replicas; r++) {
      engines[r] = new ReplicaEngine(settings.profileOf(r), trace.blockTokens(), listener);
    }
    attempts = new RoutedAttempt[trace.size()];
    // Each client scrapes every replica once per interval, at its own phase: what it knows of a
    // queue is up to one interval old, as in a real deployment.
    nextScrape = new double[clients];
    double origin = trace.size() == 0 ? 0 : trace.requests().get(0).arrivalSeconds();
    SplittableRandom phases = new SplittableRandom(settings.seed() ^ 0x5C4A9EL);
    double interval = settings.scrapeInterval();
    for (int c = 0; c < clients; c++) {
      nextScrape[c] = interval > 0 ? origin + phases.nextDouble() * interval
          : Double.POSITIVE_INFINITY;
    }
  }

  /** Replays the trace and returns every request's job, in trace order. */
  Job[] run() {
    int n = trace.size();
    Job[] jobs = new Job[n];
    for (int i = 0; i < n; i++) {
      TraceRequest r = trace.requests().get(i);
      double t = r.arrivalSeconds();
      scrapeUntil(t);
      advanceTo(t);
      clock.set(t);
      Job job = new Job(i, r, prepared.chains[i], prepared.outputBlocks[i], prepared.clientOf[i]);
      int target;
      if (policy.isOracle()) {
        target = oraclePick(job, t);
      } else {
        RoutingRequest request =
            policy.seesEveryBlock() ? prepared.wholeRouting[i] : prepared.routing[i];
        Ranking ranking = pickers[job.client].rank(request, loads[job.client]);
        target = ranking.next();
        if (target < 0 || target >= engines.length) {
          throw new IllegalStateException(policy.name() + " returned replica index " + target);
        }
        attempts[i] = ranking.sent(target, clock.read(), true);
      }
      job.replica = target;
      loads[job.client].counter(target).acquire();
      engines[target].submit(job, t);
      jobs[i] = job;
    }
    for (ReplicaEngine e : engines) e.drain();
    deliverUntil(Double.POSITIVE_INFINITY);
    return jobs;
  }

  /** Advances every engine to {@code t} and delivers the responses produced up to then. */
  private void advanceTo(double t) {
    for (ReplicaEngine e : engines) e.advanceTo(t);
    deliverUntil(t);
  }

  /** Delivers, in time order, every response that reached its client by time {@code t}. */
  private void deliverUntil(double t) {
    while (!responses.isEmpty() && responses.peek().time <= t) {
      Response r = responses.poll();
      Job j = r.job;
      clock.set(r.time);
      RoutedAttempt attempt = attempts[j.index];
      if (!r.completed) {
        if (attempt != null) attempt.firstToken(clock.read());
        continue;
      }
      loads[j.client].counter(j.replica).release();
      if (attempt != null) {
        attempts[j.index] = null;
        attempt.completed(j.request.inputTokens(), j.cachedTokens, clock.read());
      }
    }
  }

  /** Runs every client scrape due up to time {@code t}, in time order. */
  private void scrapeUntil(double t) {
    while (true) {
      int c = -1;
      for (int k = 0; k < nextScrape.length; k++) {
        if (nextScrape[k] <= t && (c < 0 || nextScrape[k] < nextScrape[c])) c = k;
      }
      if (c < 0) return;
      double s = nextScrape[c];
      advanceTo(s);
      clock.set(s);
      for (int r = 0; r < engines.length; r++) {
        ReplicaEngine e = engines[r];
        loads[c].publish(r, new LoadReport(e.waitingCount(), e.runningCount(),
            e.awaitingFirstTokenCount(), e.cache().usage(), e.queueTimeSum(), e.admittedCount(),
            clock.read(), LoadReport.Source.SCRAPE,
            (long) e.cache().capacity() * trace.blockTokens()), false);
      }
      nextScrape[c] = s + settings.scrapeInterval();
    }
  }

  /** The lowest estimated TTFT over all replicas; ties go to the lower index. */
  private int oraclePick(Job job, double now) {
    int best = 0;
    double bestTtft = Double.MAX_VALUE;
    for (int r = 0; r < engines.length; r++) {
      double est = engines[r].estimateTtft(job, now);
      if (est < bestTtft) {
        bestTtft = est;
        best = r;
      }
    }
    return best;
  }

  /** A first token or a completion reaching its client; ordered by time, then by production. */
  private static final class Response implements Comparable<Response> {
    final Job job;
    final double time;
    final boolean completed;
    final long order;

    Response(Job job, double time, boolean completed, long order) {
      this.job = job;
      this.time = time;
      this.completed = completed;
      this.order = order;
    }

    @Override
    public int compareTo(Response o) {
      int c = Double.compare(time, o.time);
      return c != 0 ? c : Long.compare(order, o.order);
    }
  }

  /** Virtual time in nanoseconds, for the clients' load views and policies. */
  private static final class VirtualTicker implements Ticker {
    private long nanos;

    void set(double seconds) {
      nanos = Math.round(seconds * 1e9);
    }

    @Override
    public long read() {
      return nanos;
    }
  }
}
