package io.github.llmrouter.sim;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The simulator's command line: replays a trace for every standard policy and prints the table;
 * optionally sweeps the rate multiplier and writes a self-contained HTML report.
 *
 * <pre>
 * mvn -B -q test-compile exec:java@sim -Dexec.args="--trace src/jmh/resources/traces/mooncake_conversation_trace.jsonl --html target/sim.html"
 * </pre>
 *
 * Run with {@code --help} for every option.
 */
public final class SimulatorCli {
  /** The trace used when {@code --trace} and {@code --synthetic} are absent. */
  public static final String DEFAULT_TRACE = "src/jmh/resources/traces/mooncake_conversation_trace.jsonl";

  private SimulatorCli() {}

  public static void main(String[] args) throws IOException {
    try {
      System.exit(run(args, System.out));
    } catch (IllegalArgumentException | TraceFormatException e) {
      System.err.println("error: " + e.getMessage());
      System.exit(2);
    }
  }

  static final String USAGE = String.join("\n",
      "usage: SimulatorCli [options]",
      "  --trace FILE          Mooncake JSONL trace (default " + DEFAULT_TRACE + ")",
      "  --block-tokens N      tokens per hash id (default 512)",
      "  --synthetic KIND      multi-turn | shared-prefix instead of a trace file",
      "  --requests N          synthetic: number of requests (default 4000)",
      "  --replicas N          replicas (default 8)",
      "  --clients K           independent routing clients (default 1)",
      "  --rate X              rate multiplier (default 1)",
      "  --window FROM:TO      trace window in seconds",
      "  --key-blocks N        leading blocks in the routing prompt (default 2)",
      "  --session-keys        route on session ids when the trace has them",
      "  --profile NAME        h100-8b (default) | h100x4-70b | l4-8b",
      "  --slo SECONDS         TTFT SLO for goodput (default 2)",
      "  --seed N              seed (default 1)",
      "  --sweep X,Y,...       also run these rate multipliers (for the HTML chart)",
      "  --html FILE           write a self-contained HTML report",
      "  --threads N           policies simulated at once (default: processors)",
      "  --scrape-interval S   seconds between load scrapes per client, 0 = none (default 1)",
      "  --stale-after S       ignore reports older than this (default 3 x scrape interval)",
      "  --slow R:F            make replica R F times slower (repeatable)",
      "  --policies SET        standard (default) | queue-aware | all");

  static int run(String[] args, PrintStream out) throws IOException {
    String tracePath = DEFAULT_TRACE;
    String synthetic = null;
    int requests = 4000;
    int blockTokens = MooncakeTraceReader.MOONCAKE_BLOCK_TOKENS;
    double rate = 1;
    double[] window = null;
    List<Double> sweep = new ArrayList<>();
    String html = null;
    String policies = "standard";
    Simulator.Builder sim = Simulator.builder();
    long seed = Simulator.DEFAULT_SEED;
    for (int i = 0; i < args.length; i++) {
      String a = args[i];
      switch (a) {
        case "--help":
        case "-h":
          out.println(USAGE);
          return 0;
        case "--trace": tracePath = value(args, ++i, a); break;
        case "--block-tokens": blockTokens = Integer.parseInt(value(args, ++i, a)); break;
        case "--synthetic": synthetic = value(args, ++i, a); break;
        case "--requests": requests = Integer.parseInt(value(args, ++i, a)); break;
        case "--replicas": sim.replicas(Integer.parseInt(value(args, ++i, a))); break;
        case "--clients": sim.clients(Integer.parseInt(value(args, ++i, a))); break;
        case "--rate": rate = Double.parseDouble(value(args, ++i, a)); break;
        case "--window": {
          String[] w = value(args, ++i, a).split(":");
          if (w.length != 2) throw new IllegalArgumentException("--window expects FROM:TO seconds");
          window = new double[] {Double.parseDouble(w[0]), Double.parseDouble(w[1])};
          break;
        }
        case "--key-blocks": sim.keyBlocks(Integer.parseInt(value(args, ++i, a))); break;
        case "--session-keys": sim.sessionKeys(true); break;
        case "--profile": sim.profile(EngineProfile.named(value(args, ++i, a))); break;
        case "--slo": sim.ttftSloSeconds(Double.parseDouble(value(args, ++i, a))); break;
        case "--seed": seed = Long.parseLong(value(args, ++i, a)); break;
        case "--threads": sim.threads(Integer.parseInt(value(args, ++i, a))); break;
        case "--sweep":
          for (String x : value(args, ++i, a).split(",")) sweep.add(Double.parseDouble(x.trim()));
          break;
        case "--html": html = value(args, ++i, a); break;
        case "--scrape-interval": sim.scrapeIntervalSeconds(Double.parseDouble(value(args, ++i, a))); break;
        case "--stale-after": sim.staleAfterSeconds(Double.parseDouble(value(args, ++i, a))); break;
        case "--slow": {
          String[] rf = value(args, ++i, a).split(":");
          if (rf.length != 2) throw new IllegalArgumentException("--slow expects REPLICA:FACTOR");
          sim.replicaSlowdown(Integer.parseInt(rf[0]), Double.parseDouble(rf[1]));
          break;
        }
        case "--policies": policies = value(args, ++i, a); break;
        default:
          throw new IllegalArgumentException("unknown option '" + a + "'\n" + USAGE);
      }
    }
    sim.seed(seed);
    switch (policies) {
      case "standard": break;
      case "queue-aware": sim.policies(SimulatedPolicy.queueAwareComparison()); break;
      case "all": {
        List<SimulatedPolicy> all = new ArrayList<>(SimulatedPolicy.standard(seed));
        all.addAll(SimulatedPolicy.queueAwareComparison());
        sim.policies(all);
        break;
      }
      default:
        throw new IllegalArgumentException("--policies must be standard, queue-aware or all, got '"
            + policies + "'");
    }
    Simulator simulator = sim.build();

    long t0 = System.nanoTime();
    long c0 = cpuNanos();
    Trace base;
    if (synthetic == null) {
      base = MooncakeTraceReader.read(Path.of(tracePath), blockTokens);
    } else if (synthetic.equals("multi-turn")) {
      base = SyntheticTraces.multiTurn().requests(requests).seed(seed).build();
    } else if (synthetic.equals("shared-prefix")) {
      base = SyntheticTraces.sharedPrefix().requests(requests).seed(seed).build();
    } else {
      throw new IllegalArgumentException("--synthetic must be multi-turn or shared-prefix, got '"
          + synthetic + "'");
    }
    if (window != null) base = base.window(window[0], window[1]);
    long t1 = System.nanoTime();
    long c1 = cpuNanos();

    SimulationReport main = simulator.run(base.withRateMultiplier(rate));
    long t2 = System.nanoTime();
    long c2 = cpuNanos();
    out.printf(Locale.ROOT, "rate x%s: ", fmt(rate));
    out.print(main.toTable());
    out.printf(Locale.ROOT,
        "read trace: %d ms wall (%d ms CPU); simulated %d policies: %d ms wall (%d ms CPU)%n",
        (t1 - t0) / 1_000_000, (c1 - c0) / 1_000_000, main.results().size(),
        (t2 - t1) / 1_000_000, (c2 - c1) / 1_000_000);

    List<Double> rates = new ArrayList<>();
    List<SimulationReport> reports = new ArrayList<>();
    for (double x : sweep) {
      if (x == rate) {
        rates.add(x);
        reports.add(main);
        continue;
      }
      SimulationReport r = simulator.run(base.withRateMultiplier(x));
      rates.add(x);
      reports.add(r);
      out.printf(Locale.ROOT, "%nrate x%s: ", fmt(x));
      out.print(r.toTable());
    }
    if (html != null) {
      Path file = Path.of(html);
      if (file.getParent() != null) Files.createDirectories(file.getParent());
      Files.writeString(file, HtmlReport.render(main, rate, rates, reports), StandardCharsets.UTF_8);
      out.println("wrote " + file);
    }
    return 0;
  }

  /** CPU time of the whole process (all threads), or 0 if the JVM cannot tell. */
  private static long cpuNanos() {
    java.lang.management.OperatingSystemMXBean os =
        java.lang.management.ManagementFactory.getOperatingSystemMXBean();
    if (os instanceof com.sun.management.OperatingSystemMXBean sun) return sun.getProcessCpuTime();
    return 0;
  }

  private static String value(String[] args, int i, String option) {
    if (i >= args.length) throw new IllegalArgumentException(option + " needs a value");
    return args[i];
  }

  static String fmt(double x) {
    return x == Math.rint(x) ? String.valueOf((long) x) : String.valueOf(x);
  }
}
