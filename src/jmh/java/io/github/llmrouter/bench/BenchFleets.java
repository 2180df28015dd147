package io.github.llmrouter.bench;

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
import java.util.SplittableRandom;

/** The fleets the cache-aware benchmarks decide over: replicas that all report their load. */
final class BenchFleets {
  private BenchFleets() {}

  /** {@code n} replicas on private addresses (nothing is sent to them). */
  static ReplicaSet replicas(int n) {
    List<Replica> list = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      list.add(Replica.of("http://10.0." + (i / 250) + "." + (i % 250 + 1) + ":8000"));
    }
    return ReplicaSet.of(list);
  }

  /**
   * A client's load view in which every replica has reported twice, a second apart: 0–6 waiting,
   * 8 running, and a queue wait of 0.1–2 s per request.
   */
  static LocalLoad reportingLoad(ReplicaSet set, SplittableRandom random) {
    LocalLoad load = LocalLoad.of(set, Ticker.system(), Duration.ofHours(1));
    long at = Ticker.system().read();
    for (int i = 0; i < set.size(); i++) {
      int waiting = random.nextInt(7);
      double wait = 0.1 + 1.9 * random.nextDouble();
      // KV usage from half to all of an H100's 480 K tokens: the fullest leave no room for a
      // 16 KB prompt, so decisions price the memory term.
      double kvUsage = 0.5 + 0.5 * random.nextDouble();
      load.publish(i, new LoadReport(waiting, 8, waiting + 2, kvUsage, 100.0, 100.0,
          at - 1_000_000_000L, LoadReport.Source.SCRAPE, 480_000), false);
      load.publish(i, new LoadReport(waiting, 8, waiting + 2, kvUsage, 100.0 + 10 * wait, 110.0,
          at, LoadReport.Source.SCRAPE, 480_000), false);
    }
    return load;
  }

  /** Sends {@code request} to its rank 0 and completes it, as a call would. */
  static void send(ReplicaPicker picker, LocalLoad load, RoutingRequest request) {
    Ranking ranking = picker.rank(request, load);
    int i = ranking.next();
    RoutedAttempt attempt = ranking.sent(i, load.nanoTime(), true);
    attempt.firstToken(load.nanoTime());
    attempt.completed(-1, -1, load.nanoTime());
  }
}
