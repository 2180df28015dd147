package io.github.llmrouter.sim;

import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The simulator's command line. By default it replays a trace (or a generated workload) for every
 * policy and prints the table, optionally at several rate multipliers; with {@code --table} it runs
 * the whole comparison (every workload at its rates, with 1 and 8 clients). It can write a
 * self-contained HTML report and a CSV file.
 *
 * <pre>
 * mvn -B -q test-compile exec:java@sim -Dexec.args="--table --html target/sim.html --csv target/sim.csv"
 * </pre>
 *
 * Run with {@code --help} for every option. Bad input (an unknown option or policy, a value out of
 * range, a malformed trace line) ends the run with exit status 2 and a one-line message.
 */
public final class SimulatorCli {
  /** The trace used when {@code --trace} and {@code --synthetic} are absent. */
  public static final String DEFAULT_TRACE = "src/jmh/resources/traces/mooncake_conversation_trace.jsonl";

  private SimulatorCli() {}

  public static void main(String[] args) throws IOException {
    try {
      System.exit(run(args, System.out));
    } catch (IllegalArgumentException | TraceFormatException | UncheckedIOException e) {
      System.err.println("error: " + e.getMessage()
          + (e instanceof UncheckedIOException u ? " (" + u.getCause() + ")" : ""));
      System.exit(2);
    }
  }

  static final String USAGE = String.join("\n",
      "usage: SimulatorCli [options]",
      "  --table               run the whole comparison: the trace at 1x-4x and each generated",
      "                        workload at a moderate and a saturating rate, 1 and 8 clients",
      "  --trace FILE          Mooncake JSONL trace (default " + DEFAULT_TRACE + ")",
      "  --block-tokens N      tokens per hash id (default 512)",
      "  --synthetic KIND      shared-prefix | multi-turn | agentic | long-agent instead of a trace",
      "  --requests N          generated workloads: number of requests (default: the generator's)",
      "  --replicas N          replicas (default 8)",
      "  --clients K           independent routing clients (default 1)",
      "  --rate X              rate multiplier (default 1)",
      "  --window FROM:TO      trace window in seconds",
      "  --key-blocks N        leading blocks in the routing prompt (default 2)",
      "  --session-keys        route on session ids when the trace has them",
      "  --profile NAME        h100-8b (default) | h100x4-70b | l4-8b",
      "  --kv-cache-tokens N   each replica's KV cache in tokens instead of the profile's",
      "  --slo SECONDS         TTFT SLO for goodput (default 2)",
      "  --seed N              seed (default 1)",
      "  --sweep X,Y,...       also run these rate multipliers (for the HTML chart)",
      "  --policies LIST       comma-separated: " + String.join(", ", SimulatedPolicy.NAMES),
      "                        or the sets all (default), standard, peers, queue-aware",
      "  --html FILE           write a self-contained HTML report",
      "  --csv FILE            write " + Comparison.CSV_HEADER,
      "                        (one line per policy and row; with several workloads, one file",
      "                        per workload: FILE with -WORKLOAD before its extension)",
      "  --threads N           runs simulated at once (default: processors; same results)",
      "  --scrape-interval S   seconds between load scrapes per client, 0 = none (default 1)",
      "  --stale-after S       ignore reports older than this (default 3 x scrape interval)",
      "  --slow R:F            make replica R F times slower (repeatable)",
      "  --hedge P             clients hedge after the P percentile of their own TTFT (HedgePolicy)");

  static int run(String[] args, PrintStream out) throws IOException {
    CliOptions o = CliOptions.parse(args);
    if (o.help) {
      out.println(USAGE);
      return 0;
    }
    long t0 = System.nanoTime();
    long c0 = cpuNanos();
    Comparison comparison;
    SimulationReport main = null;
    List<Double> rates = new ArrayList<>();
    List<SimulationReport> sweep = new ArrayList<>();
    if (o.table) {
      List<Workloads.Workload> workloads = new ArrayList<>();
      workloads.add(Workloads.trace(Path.of(o.tracePath), o.blockTokens));
      for (String w : Workloads.SYNTHETIC) workloads.add(Workloads.synthetic(w, o.requests, o.seed));
      comparison = ComparisonTable.run(workloads, o.simulator, o.threads);
      out.print(comparison.toTable());
    } else {
      Workloads.Workload w = o.synthetic == null
          ? Workloads.trace(Path.of(o.tracePath), o.blockTokens)
          : Workloads.synthetic(o.synthetic, o.requests, o.seed);
      Trace base = o.window == null ? w.trace() : w.trace().window(o.window[0], o.window[1]);
      Simulator simulator = o.simulator.build();
      rates.add(o.rate);
      for (double x : o.sweep) if (!rates.contains(x)) rates.add(x);
      List<Simulator> sims = new ArrayList<>();
      List<Trace> traces = new ArrayList<>();
      for (double x : rates) {
        sims.add(simulator);
        traces.add(base.withRateMultiplier(x));
      }
      List<SimulationReport> reports = SimulationRuns.runAll(sims, traces, o.threads);
      main = reports.get(0);
      List<Comparison.Row> rows = new ArrayList<>();
      for (int i = 0; i < rates.size(); i++) {
        SimulationReport r = reports.get(i);
        if (i > 0) out.println();
        out.printf(Locale.ROOT, "rate x%s: ", fmt(rates.get(i)));
        out.print(r.toTable());
        rows.add(new Comparison.Row(w.name(), simulator.clients(), rates.get(i), r));
      }
      for (double x : o.sweep) sweep.add(reports.get(rates.indexOf(x)));
      comparison = new Comparison(simulator.replicas() + " replicas, " + simulator.describeShared(),
          rows);
    }
    long t1 = System.nanoTime();
    long c1 = cpuNanos();
    int runs = 0;
    for (Comparison.Row r : comparison.rows()) runs += r.report().results().size();
    out.printf(Locale.ROOT, "%nsimulated %d rows, %d policy runs: %.1f s wall (%.1f s CPU, %d threads)%n",
        comparison.rows().size(), runs, (t1 - t0) / 1e9, (c1 - c0) / 1e9, o.threads);
    if (o.html != null) {
      String page = o.table ? HtmlReport.render(comparison)
          : HtmlReport.render(main, o.rate, o.sweep, sweep);
      out.println("wrote " + write(Path.of(o.html), page));
    }
    if (o.csv != null) {
      List<String> workloads = comparison.workloads();
      Path file = Path.of(o.csv);
      if (workloads.size() == 1) {
        out.println("wrote " + write(file, comparison.toCsv(null)));
      } else {
        for (String w : workloads) out.println("wrote " + write(csvFileFor(file, w), comparison.toCsv(w)));
      }
    }
    return 0;
  }

  /** {@code sim.csv} and {@code agentic} give {@code sim-agentic.csv}. */
  static Path csvFileFor(Path file, String workload) {
    String name = file.getFileName().toString();
    int dot = name.lastIndexOf('.');
    String derived = dot > 0 ? name.substring(0, dot) + "-" + workload + name.substring(dot)
        : name + "-" + workload;
    return file.resolveSibling(derived);
  }

  private static Path write(Path file, String text) throws IOException {
    if (file.getParent() != null) Files.createDirectories(file.getParent());
    Files.writeString(file, text, StandardCharsets.UTF_8);
    return file;
  }

  /** CPU time of the whole process (all threads), or 0 if the JVM cannot tell. */
  private static long cpuNanos() {
    java.lang.management.OperatingSystemMXBean os =
        java.lang.management.ManagementFactory.getOperatingSystemMXBean();
    if (os instanceof com.sun.management.OperatingSystemMXBean sun) return sun.getProcessCpuTime();
    return 0;
  }

  static String fmt(double x) {
    return x == Math.rint(x) ? String.valueOf((long) x) : String.valueOf(x);
  }
}
