package io.github.llmrouter;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.llmrouter.api.ChatChunk;
import io.github.llmrouter.api.ChatMessage;
import io.github.llmrouter.api.ChatRequest;
import io.github.llmrouter.api.LlmException;
import io.github.llmrouter.api.ResponseStream;
import io.github.llmrouter.dispatch.RetryPolicy;
import io.github.llmrouter.emulator.EmulatedReplica;
import io.github.llmrouter.load.LoadMonitoring;
import io.github.llmrouter.replica.Replica;
import io.github.llmrouter.replica.ReplicaResolver;
import io.github.llmrouter.testing.EventRecorder;
import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * Chaos on loopback: four emulated replicas answer 5% of requests with 503, reset 1% of
 * connections and hang 1% of requests, one replica is killed a third of the way in and restarted
 * at two thirds, and 16 callers make blocking, asynchronous and streaming calls throughout.
 * Expected: no failed non-streaming call (three replicas are always healthy); every streaming
 * failure a typed {@link LlmException}; client threads and heap after GC flat between the run's
 * halves; the client closes cleanly.
 *
 * <p>The run lasts {@value #DEFAULT_SECONDS} s; {@code -Dchaos.seconds=N} (up to 3600) lengthens
 * it (raise the per-test timeout with it: {@code -Djunit.jupiter.execution.timeout.default=2h}).
 * The restarted replica comes back on a new port, published by the fleet's resolver as a
 * rescheduled pod would be: no port is bound again after its server stopped. Assertions are about counts and kinds, never timing, so a busy machine only means fewer
 * calls. A call fails only if all of its eight attempts fail (about 7% each, independently:
 * 6e-10), so "no failed call" does not depend on luck.
 */
class ChaosTest {
  static final int DEFAULT_SECONDS = 20;
  private static final int CALLERS = 16;
  private static final int REPLICAS = 4;

  private final List<EmulatedReplica> servers = new CopyOnWriteArrayList<>();

  private static EmulatedReplica replica(int i, long seed) {
    EmulatedReplica r = EmulatedReplica.builder().id("chaos-" + i)
        .baseLatency(Duration.ofMillis(1)).decodeInterval(Duration.ofNanos(500_000)).build();
    r.faults().randomly(seed, 0.05, 503, 0.01, 0.01);
    return r;
  }

  private static ChatRequest request(String key, int maxTokens) {
    return ChatRequest.builder("m").message(ChatMessage.system("You are a chaos test."))
        .message(ChatMessage.user(key)).maxTokens(maxTokens).build();
  }

  @Test
  void theFleetSurvivesFaultsAKillAndARestartWithFlatThreadsAndHeap() throws Exception {
    long seconds = Math.min(3600, Long.getLong("chaos.seconds", DEFAULT_SECONDS));
    List<Replica> replicas = new CopyOnWriteArrayList<>();
    for (int i = 0; i < REPLICAS; i++) {
      EmulatedReplica r = replica(i, 1000 + i).start();
      servers.add(r);
      replicas.add(Replica.builder(r.baseUrl()).id(r.id()).build());
    }
    EventRecorder events = new EventRecorder();
    LlmClient client = LlmClient.builder().listener(events)
        .resolver(ReplicaResolver.polling(() -> List.copyOf(replicas), Duration.ofMillis(50)))
        // Every call may use its eight attempts: the retry budget is tested elsewhere, and on a
        // starved machine the 1 s first-byte timeouts alone would spend it.
        .retryPolicy(RetryPolicy.builder().maxAttempts(8).initialBackoff(Duration.ofMillis(5))
            .maxBackoff(Duration.ofMillis(50)).minRetriesPerSecond(10_000).build())
        .firstByteTimeout(Duration.ofSeconds(1)).streamIdleTimeout(Duration.ofSeconds(2))
        .callTimeout(Duration.ofSeconds(60))
        .loadMonitoring(LoadMonitoring.builder().scrapeInterval(Duration.ofMillis(500))
            .scrapeTimeout(Duration.ofMillis(500)).build())
        .build();

    AtomicLong calls = new AtomicLong();
    AtomicLong streams = new AtomicLong();
    List<Throwable> failedCalls = new CopyOnWriteArrayList<>();
    List<Throwable> streamFailures = new CopyOnWriteArrayList<>();
    Map<String, AtomicLong> streamFailureKinds = new ConcurrentHashMap<>();
    long start = System.nanoTime();
    long end = start + TimeUnit.SECONDS.toNanos(seconds);
    ExecutorService callers = Executors.newFixedThreadPool(CALLERS);
    List<Future<?>> futures = new ArrayList<>();
    for (int t = 0; t < CALLERS; t++) {
      int caller = t;
      futures.add(callers.submit(() -> {
        for (int i = 0; System.nanoTime() < end && i < 10_000_000; i++) {
          String key = "caller " + caller + " conversation " + (i % 50);
          switch (i % 3) {
            case 0 -> {
              try {
                assertThat(client.chat(request(key, 4)).text()).isNotNull();
                calls.incrementAndGet();
              } catch (Throwable e) {
                failedCalls.add(e);
              }
            }
            case 1 -> {
              try {
                assertThat(client.chatAsync(request(key, 4)).get(90, TimeUnit.SECONDS)).isNotNull();
                calls.incrementAndGet();
              } catch (Throwable e) {
                failedCalls.add(e);
              }
            }
            default -> {
              try (ResponseStream<ChatChunk> stream = client.chatStream(request(key, 64))) {
                for (ChatChunk c : stream) assertThat(c).isNotNull();
                streams.incrementAndGet();
              } catch (Throwable e) {
                streamFailures.add(e);
                streamFailureKinds.computeIfAbsent(e.getClass().getSimpleName(),
                    k -> new AtomicLong()).incrementAndGet();
              }
            }
          }
        }
        return null;
      }));
    }

    long third = (end - start) / 3;
    EmulatedReplica victim = servers.get(2);
    sleepUntil(start + third);
    victim.close();
    long[] firstHalf = null;
    sleepUntil(start + (end - start) / 2);
    firstHalf = snapshot();
    sleepUntil(start + 2 * third);
    // Back on a new address under the same id, as a rescheduled pod: the id keeps its ring
    // positions, its ejection and its slow start.
    EmulatedReplica restarted = replica(2, 2002).start();
    servers.set(2, restarted);
    replicas.set(2, Replica.builder(restarted.baseUrl()).id(restarted.id()).build());
    for (Future<?> f : futures) f.get(seconds + 120, TimeUnit.SECONDS);
    long[] secondHalf = snapshot();
    callers.shutdown();
    assertThat(callers.awaitTermination(10, TimeUnit.SECONDS)).isTrue();

    long requests = servers.stream().mapToLong(s -> s.stats().chatRequests()).sum();
    long faults = servers.stream().mapToLong(s -> s.stats().faultsInjected()).sum();
    System.out.printf("chaos (%d s): %d calls and %d streams completed, %d failed calls, "
            + "%d failed streams %s; %d failed attempts; %d ejections; client threads %d -> %d, "
            + "heap after GC "
            + "%.1f -> %.1f MiB; faults injected %d (the restarted replica's count from 0)%n", seconds, calls.get(), streams.get(), failedCalls.size(),
        streamFailures.size(), streamFailureKinds, events.failedAttempts.size(),
        events.ejections.stream()
            .filter(e -> e.ejected()).count(), firstHalf[0], secondHalf[0],
        firstHalf[1] / 1048576.0, secondHalf[1] / 1048576.0, faults);
    System.out.printf("chaos: %d chat requests reached the replicas still up at the end%n",
        requests);

    client.close();
    // OkHttp's process-wide task runner and watchdog are not the client's; its own threads are.
    EventRecorder.await("the client's own threads to end", Duration.ofSeconds(30),
        () -> threadsNamed("llm-router").isEmpty());

    assertThat(failedCalls).as("failed non-streaming calls").isEmpty();
    assertThat(streamFailures).as("every stream failure is typed")
        .allSatisfy(e -> assertThat(e).isInstanceOf(LlmException.class));
    assertThat(calls.get()).as("calls completed").isGreaterThan(100);
    assertThat(streams.get()).as("streams completed").isGreaterThan(50);
    assertThat(secondHalf[0]).as("client threads, second half vs first")
        .isLessThanOrEqualTo(firstHalf[0] + 16);
    assertThat(secondHalf[1]).as("heap after GC, second half vs first")
        .isLessThan(firstHalf[1] + (32L << 20));
    servers.forEach(EmulatedReplica::close);
  }

  /** [client threads, heap used after GC]. */
  private static long[] snapshot() {
    for (int i = 0; i < 3; i++) System.gc();
    long heap = ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
    return new long[] {clientThreads(), heap};
  }

  /** Threads the client started and OkHttp's, not the emulated replicas'. */
  private static long clientThreads() {
    return threadsNamed("llm-router").size() + threadsNamed("OkHttp").size();
  }

  private static List<String> threadsNamed(String prefix) {
    return Thread.getAllStackTraces().keySet().stream().filter(Thread::isAlive)
        .map(Thread::getName).filter(n -> n.startsWith(prefix)).toList();
  }

  private static void sleepUntil(long nanoTime) throws InterruptedException {
    long left;
    while ((left = nanoTime - System.nanoTime()) > 0) {
      TimeUnit.NANOSECONDS.sleep(Math.min(left, TimeUnit.MILLISECONDS.toNanos(100)));
    }
  }
}
