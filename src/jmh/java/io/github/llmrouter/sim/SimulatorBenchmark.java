package io.github.llmrouter.sim;

import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Replays the full Mooncake conversation trace (12,031 requests) for the five standard policies at
 * 8 replicas: the speed target is under 5 s on 2 cores.
 *
 * <pre>mvn -B -q test-compile exec:exec@jmh -Djmh.args="SimulatorBenchmark"</pre>
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.SingleShotTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 2)
@Measurement(iterations = 5)
@Fork(1)
public class SimulatorBenchmark {
  @Param({"1", "2"})
  public int threads;

  private Trace trace;
  private Simulator simulator;

  @Setup
  public void setUp() {
    trace = MooncakeTraceReader.read(Path.of(SimulatorCli.DEFAULT_TRACE));
    simulator = Simulator.builder().replicas(8).threads(threads).build();
  }

  @Benchmark
  public SimulationReport fivePoliciesFullMooncakeTrace() {
    return simulator.run(trace);
  }

  @Benchmark
  public Trace readMooncakeTrace() {
    return MooncakeTraceReader.read(Path.of(SimulatorCli.DEFAULT_TRACE));
  }
}
