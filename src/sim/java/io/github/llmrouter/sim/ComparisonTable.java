package io.github.llmrouter.sim;

import java.util.ArrayList;
import java.util.List;

/**
 * Runs the comparison table: every workload at each of its rates, with 1 and with 8 independent
 * clients, every row on the same fleet and policies. Rows run spread over threads; the result is
 * the same as running them one by one.
 */
final class ComparisonTable {
  /** Client counts of the table's rows: one client, and several that share nothing. */
  static final List<Integer> CLIENT_COUNTS = List.of(1, 8);

  private ComparisonTable() {}

  /**
   * Runs {@code workloads} (each at its rates) with {@link #CLIENT_COUNTS} clients on simulators
   * built from {@code simulator} (its client count is set per row), on {@code threads} threads.
   */
  static Comparison run(List<Workloads.Workload> workloads, Simulator.Builder simulator,
      int threads) {
    List<Simulator> sims = new ArrayList<>();
    List<Trace> traces = new ArrayList<>();
    List<String> names = new ArrayList<>();
    List<Integer> clients = new ArrayList<>();
    List<Double> rates = new ArrayList<>();
    for (Workloads.Workload w : workloads) {
      for (double rate : w.rates()) {
        Trace trace = w.trace().withRateMultiplier(rate);
        for (int c : CLIENT_COUNTS) {
          sims.add(simulator.clients(c).build());
          traces.add(trace);
          names.add(w.name());
          clients.add(c);
          rates.add(rate);
        }
      }
    }
    List<SimulationReport> reports = SimulationRuns.runAll(sims, traces, threads);
    List<Comparison.Row> rows = new ArrayList<>();
    for (int i = 0; i < reports.size(); i++) {
      rows.add(new Comparison.Row(names.get(i), clients.get(i), rates.get(i), reports.get(i)));
    }
    Simulator any = sims.get(0);
    return new Comparison(any.replicas() + " replicas, " + any.describeShared(), rows);
  }
}
