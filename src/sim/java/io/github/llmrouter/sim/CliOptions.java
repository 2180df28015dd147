package io.github.llmrouter.sim;

import java.util.ArrayList;
import java.util.List;

/**
 * The simulator command line's options, parsed and checked: an unknown option, a missing or
 * malformed value, or a number out of range fails with an {@link IllegalArgumentException} naming
 * the option, the accepted range and what was given.
 */
final class CliOptions {
  boolean help;
  boolean table;
  String tracePath = SimulatorCli.DEFAULT_TRACE;
  String synthetic;
  int requests;
  int blockTokens = MooncakeTraceReader.MOONCAKE_BLOCK_TOKENS;
  double rate = 1;
  double[] window;
  List<Double> sweep = new ArrayList<>();
  String html;
  String csv;
  String policies = "all";
  long seed = Simulator.DEFAULT_SEED;
  int threads = Runtime.getRuntime().availableProcessors();
  EngineProfile profile = EngineProfile.llama31_8bH100();
  /** Each replica's KV cache in tokens instead of the profile's; 0 for the profile's. */
  int kvCacheTokens;
  /** Settings passed to the simulator as they are (validated here by option name). */
  final Simulator.Builder simulator = Simulator.builder();

  private CliOptions() {}

  static CliOptions parse(String[] args) {
    CliOptions o = new CliOptions();
    for (int i = 0; i < args.length; i++) {
      String a = args[i];
      switch (a) {
        case "--help", "-h" -> o.help = true;
        case "--table" -> o.table = true;
        case "--trace" -> o.tracePath = value(args, ++i, a);
        case "--block-tokens" -> o.blockTokens = integer(args, ++i, a, 1, 1 << 20);
        case "--synthetic" -> o.synthetic = value(args, ++i, a);
        case "--requests" -> o.requests = integer(args, ++i, a, 1, 10_000_000);
        case "--replicas" -> o.simulator.replicas(integer(args, ++i, a, 1, 1024));
        case "--clients" -> o.simulator.clients(integer(args, ++i, a, 1, 10_000));
        case "--rate" -> o.rate = rate(value(args, ++i, a), a);
        case "--window" -> o.window = window(value(args, ++i, a));
        case "--key-blocks" -> o.simulator.keyBlocks(integer(args, ++i, a, 1, 64));
        case "--session-keys" -> o.simulator.sessionKeys(true);
        case "--profile" -> o.profile = EngineProfile.named(value(args, ++i, a));
        case "--kv-cache-tokens" -> o.kvCacheTokens = integer(args, ++i, a, 1024, 1_000_000_000);
        case "--slo" -> o.simulator.ttftSloSeconds(decimal(args, ++i, a, 0, false, 3600));
        case "--seed" -> o.seed = longValue(args, ++i, a);
        case "--threads" -> o.threads = integer(args, ++i, a, 1, 64);
        case "--sweep" -> {
          String list = value(args, ++i, a);
          for (String x : list.split(",", -1)) o.sweep.add(rate(x.trim(), a));
        }
        case "--html" -> o.html = value(args, ++i, a);
        case "--csv" -> o.csv = value(args, ++i, a);
        case "--scrape-interval" -> {
          double s = decimal(args, ++i, a, 0, true, 600);
          if (s != 0 && s < 0.01) {
            throw new IllegalArgumentException(a + " must be 0 or in [0.01, 600] seconds, got " + s);
          }
          o.simulator.scrapeIntervalSeconds(s);
        }
        case "--stale-after" -> o.simulator.staleAfterSeconds(decimal(args, ++i, a, 0, false, 3600));
        case "--slow" -> {
          String v = value(args, ++i, a);
          String[] rf = v.split(":", -1);
          if (rf.length != 2) throw new IllegalArgumentException(a + " expects REPLICA:FACTOR, got '" + v + "'");
          o.simulator.replicaSlowdown(parseInt(rf[0], a), parseDouble(rf[1], a));
        }
        case "--policies" -> o.policies = value(args, ++i, a);
        case "--hedge" -> o.simulator.hedgePercentile(decimal(args, ++i, a, 0.5, true, 0.999));
        default -> throw new IllegalArgumentException("unknown option '" + a + "'\n" + SimulatorCli.USAGE);
      }
    }
    if (o.table && (o.synthetic != null || !o.sweep.isEmpty() || o.window != null)) {
      throw new IllegalArgumentException(
          "--table runs every workload at its own rates: it takes no --synthetic, --sweep or --window");
    }
    o.simulator.profile(o.kvCacheTokens == 0 ? o.profile
        : o.profile.toBuilder().cacheTokens(o.kvCacheTokens).build());
    o.simulator.seed(o.seed).threads(o.threads);
    o.simulator.policies(SimulatedPolicy.parse(o.policies, o.seed));
    return o;
  }

  private static String value(String[] args, int i, String option) {
    if (i >= args.length) throw new IllegalArgumentException(option + " needs a value");
    return args[i];
  }

  private static int integer(String[] args, int i, String option, int min, int max) {
    int v = parseInt(value(args, i, option), option);
    if (v < min || v > max) {
      throw new IllegalArgumentException(option + " must be in [" + min + ", " + max + "], got " + v);
    }
    return v;
  }

  private static long longValue(String[] args, int i, String option) {
    String v = value(args, i, option);
    try {
      return Long.parseLong(v.trim());
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(option + " expects an integer, got '" + v + "'");
    }
  }

  /** A number in ({@code min}, {@code max}], or [{@code min}, {@code max}] if {@code minIncluded}. */
  private static double decimal(String[] args, int i, String option, double min, boolean minIncluded,
      double max) {
    double v = parseDouble(value(args, i, option), option);
    boolean ok = (minIncluded ? v >= min : v > min) && v <= max;
    if (!ok) {
      throw new IllegalArgumentException(option + " must be in " + (minIncluded ? "[" : "(")
          + SimulatorCli.fmt(min) + ", " + SimulatorCli.fmt(max) + "], got " + v);
    }
    return v;
  }

  private static double rate(String v, String option) {
    double x = parseDouble(v, option);
    if (!(x > 0 && x <= 1000)) {
      throw new IllegalArgumentException(option + " rate multipliers must be in (0, 1000], got " + v);
    }
    return x;
  }

  private static double[] window(String v) {
    String[] w = v.split(":", -1);
    if (w.length != 2) throw new IllegalArgumentException("--window expects FROM:TO seconds, got '" + v + "'");
    double from = parseDouble(w[0], "--window");
    double to = parseDouble(w[1], "--window");
    if (!(from >= 0 && to > from)) {
      throw new IllegalArgumentException("--window must satisfy 0 <= FROM < TO, got '" + v + "'");
    }
    return new double[] {from, to};
  }

  private static int parseInt(String v, String option) {
    try {
      return Integer.parseInt(v.trim());
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(option + " expects an integer, got '" + v + "'");
    }
  }

  private static double parseDouble(String v, String option) {
    double x;
    try {
      x = Double.parseDouble(v.trim());
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(option + " expects a number, got '" + v + "'");
    }
    if (!Double.isFinite(x)) {
      throw new IllegalArgumentException(option + " expects a finite number, got '" + v + "'");
    }
    return x;
  }
}
