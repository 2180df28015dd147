package io.github.llmrouter.sim;

import java.nio.file.Path;
import java.util.List;
import java.util.Locale;

/**
 * The workloads of the comparison table and of {@code --synthetic}: the bundled Mooncake
 * conversation trace (or any Mooncake-format trace) and the three generated workloads of {@link
 * SyntheticTraces} with their defaults, each with the rate multipliers the table runs it at.
 *
 * <p>A generated workload runs at a <em>moderate</em> rate, where even cache-blind policies keep
 * mean TTFT well under the 2 s SLO on 8 H100/8B replicas, and at a <em>saturating</em> one, where
 * the fleet's prefill capacity is exceeded unless the cache is used well: queues grow for the
 * cache-blind policies. The multipliers were chosen that way from sweeps with seed 1 (see
 * docs/simulator.md).
 */
final class Workloads {
  /** The names {@link #synthetic} accepts. */
  static final List<String> SYNTHETIC =
      List.of("shared-prefix", "multi-turn", "agentic", "long-agent");
  /** Rate multipliers of the trace rows: {@code 1, 2, 3, 4}. */
  static final List<Double> TRACE_RATES = List.of(1.0, 2.0, 3.0, 4.0);

  private Workloads() {}

  /**
   * A named workload: its trace at 1× and the rate multipliers of its table rows (for a generated
   * workload, the moderate then the saturating one).
   */
  record Workload(String name, Trace trace, List<Double> rates) {}

  /**
   * The generated workload {@code name} ({@link #SYNTHETIC}) with {@code requests} requests, or
   * its default count if {@code requests} is 0.
   *
   * @throws IllegalArgumentException for an unknown name
   */
  static Workload synthetic(String name, int requests, long seed) {
    switch (name.toLowerCase(Locale.ROOT)) {
      case "shared-prefix": {
        SyntheticTraces.SharedPrefix b = SyntheticTraces.sharedPrefix().seed(seed);
        if (requests > 0) b.requests(requests);
        return new Workload("shared-prefix", b.build(), List.of(2.0, 5.0));
      }
      case "multi-turn": {
        SyntheticTraces.MultiTurn b = SyntheticTraces.multiTurn().seed(seed);
        if (requests > 0) b.requests(requests);
        return new Workload("multi-turn", b.build(), List.of(4.0, 12.0));
      }
      case "agentic": {
        SyntheticTraces.Agentic b = SyntheticTraces.agentic().seed(seed);
        if (requests > 0) b.requests(requests);
        return new Workload("agentic", b.build(), List.of(1.0, 2.0));
      }
      case "long-agent": {
        SyntheticTraces.LongAgent b = SyntheticTraces.longAgent().seed(seed);
        if (requests > 0) b.requests(requests);
        return new Workload("long-agent", b.build(), List.of(0.25, 0.5));
      }
      default:
        throw new IllegalArgumentException("unknown workload '" + name + "'; expected one of "
            + String.join(", ", SYNTHETIC));
    }
  }

  /**
   * A Mooncake-format trace file at rates 1× to 4×, named after the file without its extension
   * and a {@code _trace} suffix (the bundled trace is {@code mooncake_conversation}).
   */
  static Workload trace(Path file, int blockTokens) {
    String name = file.getFileName().toString().replaceFirst("\\.jsonl?$", "")
        .replaceFirst("_trace$", "");
    return new Workload(name, MooncakeTraceReader.read(file, blockTokens), TRACE_RATES);
  }
}
