package io.github.llmrouter.sim;

import java.util.List;
import java.util.Locale;

/**
 * Adapter affinity in the simulator: 8 replicas (4 per base model, two base models), 50 LoRA
 * adapters of Zipf(1.1) popularity over multi-turn sessions, {@code max_loras} 8 per replica,
 * each load stalling its replica's batch; for several session rates, 1 and 8 clients and seeds:
 * the library's routing with adapter affinity, the same policy adapter-unaware, and round robin.
 * Prints adapter loads per 1,000 requests and mean / p99 time to first token. Run with:
 *
 * <pre>{@code
 * mvn -B -q test-compile dependency:build-classpath -Dmdep.outputFile=/tmp/cp.txt \
 *     -Dmdep.includeScope=test
 * java -cp target/test-classes:target/classes:$(cat /tmp/cp.txt) \
 *     io.github.llmrouter.sim.AdapterStudy [requests] [load ms] [policy] [rates...]
 * }</pre>
 */
public final class AdapterStudy {
  private AdapterStudy() {}

  public static void main(String[] args) {
    int requests = args.length > 0 ? Integer.parseInt(args[0]) : 6000;
    double loadMillis = args.length > 1 ? Double.parseDouble(args[1]) : 100;
    String policy = args.length > 2 ? args[2] : "cacheaware";
    double[] rates = {4, 16, 32};
    if (args.length > 3) {
      rates = new double[args.length - 3];
      for (int k = 3; k < args.length; k++) rates[k - 3] = Double.parseDouble(args[k]);
    }
    EngineProfile profile = EngineProfile.builder().maxLoras(8).loraLoadMillis(loadMillis).build();
    System.out.printf(Locale.ROOT, "%s, %d requests, 50 adapters Zipf(1.1) on 2 base models, "
        + "8 replicas, load %.0f ms%n", profile.name(), requests, loadMillis);
    System.out.printf(Locale.ROOT, "%-6s %-3s %-5s %-36s %10s %10s %10s %8s%n", "rate", "cl",
        "seed", "policy", "loads/1k", "meanTTFT", "p99TTFT", "hit");
    for (double rate : rates) {
      for (int clients : new int[] {1, 8}) {
        for (long seed = 1; seed <= 3; seed++) {
          Trace base = SyntheticTraces.multiTurn().requests(requests).sessionsPerSecond(rate)
              .seed(seed).build();
          Trace trace = SyntheticTraces.withAdapters(base, 50, 1.1, 2, seed);
          SimulatedPolicy aware = SimulatedPolicy.named(policy, seed);
          List<SimulatedPolicy> policies = List.of(aware, aware.adapterUnaware(),
              SimulatedPolicy.named("roundrobin", seed).adapterUnaware());
          Simulator sim = Simulator.builder().replicas(8).clients(clients).seed(seed)
              .profile(profile).policies(policies).build();
          Simulator.Prepared prepared = sim.prepare(trace);
          for (SimulatedPolicy p : policies) {
            FleetRun run = new FleetRun(sim.settings(), p, trace, prepared);
            Job[] jobs = run.run();
            PolicyResult r = sim.summarise(p, jobs, prepared.idealHitRate).result;
            System.out.printf(Locale.ROOT, "%-6.1f %-3d %-5d %-36s %10.1f %10.3f %10.3f %8.3f%n",
                rate, clients, seed, p.name(), 1000.0 * run.loraLoads() / jobs.length,
                r.ttftMean(), r.ttftP99(), r.hitRate());
          }
        }
      }
    }
  }
}
