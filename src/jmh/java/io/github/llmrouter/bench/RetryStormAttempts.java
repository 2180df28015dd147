package io.github.llmrouter.bench;

import io.github.llmrouter.LlmClient;
import io.github.llmrouter.api.ChatMessage;
import io.github.llmrouter.api.ChatRequest;
import io.github.llmrouter.api.LlmException;
import io.github.llmrouter.emulator.EmulatedReplica;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Attempts per call in a 100% 503 storm with the default client settings: four emulated replicas
 * answer every request with 503, {@code callers} threads call for {@code seconds} seconds, and
 * the replicas count the requests that reached them. Also counts the exception types callers saw.
 * A measurement run by hand, not a test:
 *
 * <pre>
 * mvn -B -q test-compile dependency:build-classpath -Dmdep.outputFile=target/cp.txt -Dmdep.includeScope=test
 * java -cp target/test-classes:target/classes:$(cat target/cp.txt) \
 *     io.github.llmrouter.bench.RetryStormAttempts 16 10
 * </pre>
 */
public final class RetryStormAttempts {
  private RetryStormAttempts() {}

  /**
   * Runs the storm.
   *
   * @param args callers (default 16) and seconds (default 10)
   */
  public static void main(String[] args) throws Exception {
    int callers = args.length > 0 ? Integer.parseInt(args[0]) : 16;
    int seconds = args.length > 1 ? Integer.parseInt(args[1]) : 10;
    List<EmulatedReplica> replicas = new ArrayList<>();
    List<String> urls = new ArrayList<>();
    for (int i = 0; i < 4; i++) {
      EmulatedReplica r = EmulatedReplica.builder().instant().build().start();
      r.faults().failNext(Integer.MAX_VALUE, 503);
      replicas.add(r);
      urls.add(r.baseUrl());
    }
    AtomicLong calls = new AtomicLong();
    Map<String, AtomicLong> outcomes = new ConcurrentHashMap<>();
    long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
    ExecutorService pool = Executors.newFixedThreadPool(callers);
    try (LlmClient client = LlmClient.builder().replicas(urls.toArray(new String[0])).build()) {
      List<Future<?>> futures = new ArrayList<>();
      for (int t = 0; t < callers; t++) {
        int caller = t;
        futures.add(pool.submit(() -> {
          for (int i = 0; System.nanoTime() < end; i++) {
            calls.incrementAndGet();
            String outcome;
            try {
              client.chat(ChatRequest.builder("m")
                  .message(ChatMessage.user("caller " + caller + " call " + i)).build());
              outcome = "success";
            } catch (LlmException e) {
              outcome = e.getClass().getSimpleName();
            }
            outcomes.computeIfAbsent(outcome, k -> new AtomicLong()).incrementAndGet();
          }
          return null;
        }));
      }
      for (Future<?> f : futures) f.get();
    } finally {
      pool.shutdown();
    }
    long requests = replicas.stream().mapToLong(r -> r.stats().chatRequests()).sum();
    replicas.forEach(EmulatedReplica::close);
    System.out.printf("503 storm, %d callers, %d s: %d calls, %d requests, %.3f attempts per call,"
        + " %.0f calls/s; outcomes %s%n", callers, seconds, calls.get(), requests,
        (double) requests / calls.get(), calls.get() / (double) seconds, new TreeMap<>(outcomes));
  }
}
