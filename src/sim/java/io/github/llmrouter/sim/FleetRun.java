package io.github.llmrouter.sim;

import io.github.llmrouter.api.Ticker;
import io.github.llmrouter.dispatch.HedgePolicy;
import io.github.llmrouter.internal.dispatch.AdapterAffinity;
import io.github.llmrouter.internal.dispatch.AnswerTimes;
import io.github.llmrouter.internal.dispatch.ModelRoute;
import io.github.llmrouter.internal.load.LocalLoad;
import io.github.llmrouter.load.LoadReport;
import io.github.llmrouter.load.Saturation;
import io.github.llmrouter.replica.Replica;
import io.github.llmrouter.replica.ReplicaSet;
import io.github.llmrouter.routing.Ranking;
import io.github.llmrouter.routing.ReplicaPicker;
import io.github.llmrouter.routing.RoutedAttempt;
import io.github.llmrouter.routing.RoutingRequest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.PriorityQueue;
import java.util.SplittableRandom;
import java.util.TreeSet;
import org.jspecify.annotations.Nullable;

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
 *
 * <p>When the trace's requests name models ({@link TraceRequest#servedBy()}), the replicas are
 * split evenly over the models in name order, and each client routes each model or adapter as the
 * library does: over its replicas alone ({@link ModelRoute}), and for an adapter, unless the policy
 * is adapter-unaware, by {@link AdapterAffinity}, told by each scrape which adapters run or wait
 * where ({@code vllm:lora_requests_info}).
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
  /** Per model the trace names, the fleet indices of its replicas; empty for one model. */
  private final Map<String, int[]> replicasOf;
  /** Per client, each model's route; null for one model. */
  private final @Nullable Map<String, ModelRoute> @Nullable [] routes;
  /** Per client, where its adapters' calls went; null entries if adapter-unaware. */
  private final @Nullable AdapterAffinity[] affinities;
  private final double[] nextScrape;
  private long responseOrder;

  // Hedging, as HedgePolicy does it, when the settings ask for it.
  /**
   * Each client's times to first token by prompt size class, from which its hedge delay is
   * learnt; null if off.
   */
  private final AnswerTimes @Nullable [][] times;
  /** Each client's hedges in hand: 0.05 earned per request, one spent per hedge, at most 100. */
  private final double[] hedgeTokens;
  private final PriorityQueue<HedgeCheck> hedgeChecks = new PriorityQueue<>();
  /** Each request's ranking, its first job, and whether its client has seen a first token. */
  private final Ranking[] rankings;
  private final Job[] firsts;
  private final boolean[] answered;

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
    replicasOf = layout(trace, replicas);
    affinities = new AdapterAffinity[clients];
    routes = replicasOf.isEmpty() ? null : routes(set);
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
    times = settings.hedging() ? new AnswerTimes[clients][AnswerTimes.SIZE_CLASSES] : null;
    if (times != null) {
      for (AnswerTimes[] own : times) {
        for (int k = 0; k < own.length; k++) own[k] = new AnswerTimes();
      }
    }
    hedgeTokens = new double[clients];
    rankings = new Ranking[trace.size()];
    firsts = new Job[trace.size()];
    answered = new boolean[trace.size()];
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

  /**
   * Which replicas serve each model the trace names: the models its requests are served by, in
   * name order, over consecutive equal shares of the fleet, and each adapter with its base model.
   */
  private static Map<String, int[]> layout(Trace trace, int replicas) {
    TreeSet<String> bases = new TreeSet<>();
    for (TraceRequest r : trace.requests()) {
      if (r.servedBy() != null) bases.add(r.servedBy());
    }
    if (bases.isEmpty()) return Map.of();
    if (bases.size() > replicas) {
      throw new IllegalArgumentException("the trace names " + bases.size() + " models for "
          + replicas + " replicas");
    }
    Map<String, int[]> of = new HashMap<>();
    int b = 0;
    for (String base : bases) {
      int from = b * replicas / bases.size();
      int to = (b + 1) * replicas / bases.size();
      int[] indices = new int[to - from];
      for (int k = 0; k < indices.length; k++) indices[k] = from + k;
      of.put(base, indices);
      b++;
    }
    for (TraceRequest r : trace.requests()) {
      if (r.baseModel() != null) of.putIfAbsent(r.model(), of.get(r.baseModel()));
    }
    return of;
  }

  /** Each client's route of every model the trace names. */
  @SuppressWarnings("unchecked") // an array of one element type
  private Map<String, ModelRoute>[] routes(ReplicaSet set) {
    Map<String, ModelRoute>[] byClient = new Map[settings.clients()];
    Map<String, Boolean> adapter = new HashMap<>();
    for (TraceRequest r : trace.requests()) {
      if (r.model() != null) adapter.put(r.model(), r.baseModel() != null);
    }
    for (int c = 0; c < byClient.length; c++) {
      if (policy.isOracle()) continue;
      // One policy instance per client, as one LlmClient's routes share theirs.
      io.github.llmrouter.routing.RoutingPolicy clientPolicy = policy.newPolicy(c);
      AdapterAffinity affinity = policy.adapterAware() ? new AdapterAffinity(set) : null;
      affinities[c] = affinity;
      Map<String, ModelRoute> clientRoutes = new HashMap<>();
      for (Map.Entry<String, Boolean> e : adapter.entrySet()) {
        clientRoutes.put(e.getKey(), ModelRoute.over(clientPolicy, set, loads[c], e.getKey(),
            replicasOf.get(e.getKey()), e.getValue() ? affinity : null));
      }
      byClient[c] = clientRoutes;
    }
    return byClient;
  }

  /** Adapters loaded by the fleet's engines so far. */
  long loraLoads() {
    long n = 0;
    for (ReplicaEngine e : engines) n += e.loraLoads();
    return n;
  }

  /** Replays the trace and returns every request's job, in trace order. */
  Job[] run() {
    int n = trace.size();
    Job[] jobs = new Job[n];
    for (int i = 0; i < n; i++) {
      TraceRequest r = trace.requests().get(i);
      double t = r.arrivalSeconds();
      hedgeUntil(t);
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
        Ranking ranking = routes != null && r.model() != null
            ? routes[job.client].get(r.model()).rank(request)
            : pickers[job.client].rank(request, loads[job.client]);
        target = ranking.next();
        if (target < 0 || target >= engines.length) {
          throw new IllegalStateException(policy.name() + " returned replica index " + target);
        }
        attempts[i] = ranking.sent(target, clock.read(), true);
        if (times != null) rankings[i] = ranking; // kept for a hedge's next pick
      }
      job.replica = target;
      loads[job.client].counter(target).acquire();
      engines[target].submit(job, t);
      jobs[i] = job;
      firsts[i] = job;
      armHedge(job, t);
    }
    hedgeUntil(Double.POSITIVE_INFINITY);
    for (ReplicaEngine e : engines) e.drain();
    deliverUntil(Double.POSITIVE_INFINITY);
    for (int i = 0; i < n; i++) {
      // A request answered by its hedge: the hedge's job, timed from the request's arrival.
      Job first = firsts[i];
      Job hedge = first.raced;
      if (hedge != null && first.cancelled) {
        hedge.arrival = first.arrival;
        jobs[i] = hedge;
      }
    }
    return jobs;
  }

  /** Earns the request's share of a hedge and, once the delay is learnt, plans one. */
  private void armHedge(Job job, double t) {
    AnswerTimes[][] learnt = times;
    if (learnt == null || rankings[job.index] == null) return;
    hedgeTokens[job.client] = Math.min(100, hedgeTokens[job.client]
        + HedgePolicy.DEFAULT_MAX_HEDGED_SHARE);
    AnswerTimes own = learnt[job.client][sizeClass(job)];
    if (own.seen() < HedgePolicy.MIN_SAMPLES) return;
    double delay = Math.max(HedgePolicy.DEFAULT_MIN_DELAY.toNanos(),
        own.percentileNanos(settings.hedgePercentile())) / 1e9;
    hedgeChecks.add(new HedgeCheck(t + delay, job.index));
  }

  /** The size class of a job's request, as the client classes a body: four bytes a token. */
  private static int sizeClass(Job job) {
    return AnswerTimes.sizeClass(4L * job.request.inputTokens());
  }

  /** Runs every hedge check due by {@code t}, in time order, the fleet advanced to each. */
  private void hedgeUntil(double t) {
    while (!hedgeChecks.isEmpty() && hedgeChecks.peek().time <= t) {
      HedgeCheck check = hedgeChecks.poll();
      scrapeUntil(check.time);
      advanceTo(check.time);
      clock.set(check.time);
      hedge(firsts[check.index], check.time);
    }
  }

  /**
   * The hedge delay has passed for {@code first}: unless its client has seen its first token, a
   * hedge goes to the next replica of its ranking, if the client has a hedge in hand and that
   * replica is not saturated.
   */
  private void hedge(Job first, double t) {
    int c = first.client;
    if (answered[first.index] || first.raced != null || hedgeTokens[c] < 1) return;
    int next = rankings[first.index].next();
    if (next < 0 || next >= engines.length || next == first.replica
        || Saturation.defaults().isSaturated(loads[c], next, clock.read())) {
      return;
    }
    hedgeTokens[c] -= 1;
    Job h = new Job(first.index, first.request, first.chain, first.outputBlocks, c);
    h.replica = next;
    h.attempt = rankings[first.index].sent(next, clock.read(), true);
    first.raced = h;
    h.raced = first;
    first.hedged = true;
    h.hedged = true;
    loads[c].counter(next).acquire();
    engines[next].submit(h, t);
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
      if (j.cancelled) continue; // its count went back when it was cancelled
      clock.set(r.time);
      boolean hedge = firsts[j.index] != j;
      RoutedAttempt attempt = hedge ? j.attempt : attempts[j.index];
      if (!r.completed) {
        if (attempt != null) attempt.firstToken(clock.read());
        if (!answered[j.index]) firstAnswer(j, r.time);
        continue;
      }
      loads[j.client].counter(j.replica).release();
      if (hedge) {
        j.attempt = RoutedAttempt.IGNORED;
        attempt.completed(j.request.inputTokens(), j.cachedTokens, clock.read());
      } else if (attempt != null) {
        attempts[j.index] = null;
        attempt.completed(j.request.inputTokens(), j.cachedTokens, clock.read());
      }
    }
  }

  /**
   * A request's first token reaches its client, from {@code j}: its time feeds the client's hedge
   * delay, and the other job of its race, if any, is cancelled at once.
   */
  private void firstAnswer(Job j, double time) {
    answered[j.index] = true;
    Job first = firsts[j.index];
    AnswerTimes[][] learnt = times;
    if (learnt != null) {
      learnt[j.client][sizeClass(j)].add(Math.round((time - first.arrival) * 1e9));
    }
    Job other = j.raced;
    if (other == null || !engines[other.replica].cancel(other)) return;
    loads[other.client].counter(other.replica).release();
    RoutedAttempt lost = other == first ? attempts[j.index] : other.attempt;
    if (lost != null) lost.failed(clock.read());
    if (other == first) attempts[j.index] = null;
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
      AdapterAffinity affinity = affinities[c];
      if (affinity != null) {
        for (int r = 0; r < engines.length; r++) {
          affinity.reported(r, engines[r].activeAdapters().stream()
              .mapToLong(AdapterAffinity::hash).toArray(), settings.profileOf(r).maxLoras());
        }
      }
      nextScrape[c] = s + settings.scrapeInterval();
    }
  }

  /**
   * The lowest estimated TTFT over the replicas that serve the job's model; ties go to the lower
   * index.
   */
  private int oraclePick(Job job, double now) {
    String model = job.request.model();
    int[] serving = model == null || replicasOf.isEmpty() ? null : replicasOf.get(model);
    int best = serving == null ? 0 : serving[0];
    double bestTtft = Double.MAX_VALUE;
    for (int r = 0; r < engines.length; r++) {
      if (serving != null && java.util.Arrays.binarySearch(serving, r) < 0) continue;
      double est = engines[r].estimateTtft(job, now);
      if (est < bestTtft) {
        bestTtft = est;
        best = r;
      }
    }
    return best;
  }

  /** When to look whether a request's first attempt needs a hedge. */
  private record HedgeCheck(double time, int index) implements Comparable<HedgeCheck> {
    @Override
    public int compareTo(HedgeCheck o) {
      int c = Double.compare(time, o.time);
      return c != 0 ? c : Integer.compare(index, o.index);
    }
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
