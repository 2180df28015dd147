package io.github.llmrouter.sim;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * Runs many simulations at once: every policy of every (simulator, trace) row is one task, and the
 * tasks share a fixed pool of threads. Each task replays its own fleet in one thread, so the
 * results do not depend on the number of threads.
 */
final class SimulationRuns {
  private SimulationRuns() {}

  /**
   * Runs every simulator's policies on its trace ({@code traces.get(i)} for {@code
   * simulators.get(i)}), spreading the runs of every pair over {@code threads} threads; the reports
   * come in the same order and are the same as running each pair alone.
   */
  static List<SimulationReport> runAll(List<Simulator> simulators, List<Trace> traces,
      int threads) {
    if (simulators.size() != traces.size()) {
      throw new IllegalArgumentException("simulators and traces differ in size");
    }
    long started = System.nanoTime();
    int rows = simulators.size();
    List<RowPlan> plans = new ArrayList<>(rows);
    List<Callable<Simulator.RunOutcome>> tasks = new ArrayList<>();
    for (int row = 0; row < rows; row++) {
      Simulator sim = simulators.get(row);
      Trace trace = traces.get(row);
      RowPlan plan = new RowPlan(sim, trace, sim.policies().size());
      plans.add(plan);
      for (SimulatedPolicy policy : sim.policies()) {
        tasks.add(() -> {
          Simulator.Prepared p = plan.prepared();
          Simulator.RunOutcome o = sim.summarise(policy, new FleetRun(sim.settings(), policy, trace, p).run(),
              p.idealHitRate);
          plan.done();
          return o;
        });
      }
    }
    List<Simulator.RunOutcome> outcomes = execute(tasks, threads);
    long elapsed = (System.nanoTime() - started) / 1_000_000L;
    List<SimulationReport> reports = new ArrayList<>(rows);
    int next = 0;
    for (int row = 0; row < rows; row++) {
      Simulator sim = simulators.get(row);
      List<PolicyResult> results = new ArrayList<>();
      List<double[]> ttfts = new ArrayList<>();
      for (int k = 0; k < sim.policies().size(); k++) {
        Simulator.RunOutcome o = outcomes.get(next++);
        results.add(o.result);
        ttfts.add(o.sortedTtfts);
      }
      RowPlan plan = plans.get(row);
      reports.add(new SimulationReport(sim.describe(traces.get(row)), plan.idealHitRate,
          plan.fleetCapacityHitRate, results, ttfts, elapsed));
    }
    return reports;
  }

  /**
   * One row's shared inputs, prepared by the first of its runs to start and dropped when its last
   * run ends, so that a long table holds only the rows being simulated.
   */
  private static final class RowPlan {
    private final Simulator sim;
    private final Trace trace;
    private int runsLeft;
    private Simulator.Prepared prepared;
    double idealHitRate;
    double fleetCapacityHitRate;

    RowPlan(Simulator sim, Trace trace, int runs) {
      this.sim = sim;
      this.trace = trace;
      this.runsLeft = runs;
    }

    synchronized Simulator.Prepared prepared() {
      if (prepared == null) {
        prepared = sim.prepare(trace);
        idealHitRate = prepared.idealHitRate;
        fleetCapacityHitRate = prepared.fleetCapacityHitRate;
      }
      return prepared;
    }

    synchronized void done() {
      if (--runsLeft == 0) prepared = null;
    }
  }

  /** Runs {@code tasks} on {@code threads} threads and returns their results in task order. */
  private static <T> List<T> execute(List<Callable<T>> tasks, int threads) {
    List<T> out = new ArrayList<>(tasks.size());
    int n = Math.max(1, Math.min(threads, tasks.size()));
    if (n == 1) {
      for (Callable<T> task : tasks) {
        try {
          out.add(task.call());
        } catch (RuntimeException e) {
          throw e;
        } catch (Exception e) {
          throw new IllegalStateException(e);
        }
      }
      return out;
    }
    ExecutorService pool = Executors.newFixedThreadPool(n, r -> {
      Thread t = new Thread(r, "simulator");
      t.setDaemon(true);
      return t;
    });
    try {
      List<Future<T>> futures = new ArrayList<>();
      for (Callable<T> task : tasks) futures.add(pool.submit(task));
      for (Future<T> f : futures) out.add(f.get());
      return out;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("simulation interrupted", e);
    } catch (ExecutionException e) {
      Throwable c = e.getCause();
      if (c instanceof RuntimeException re) throw re;
      if (c instanceof Error err) throw err;
      throw new IllegalStateException(c);
    } finally {
      pool.shutdownNow();
    }
  }

}
