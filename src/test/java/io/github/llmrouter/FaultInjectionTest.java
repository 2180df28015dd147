package io.github.llmrouter;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.llmrouter.api.ChatMessage;
import io.github.llmrouter.api.ChatRequest;
import io.github.llmrouter.api.LlmTimeoutException;
import io.github.llmrouter.dispatch.RetryPolicy;
import io.github.llmrouter.observe.AttemptFailedEvent;
import io.github.llmrouter.observe.EjectionEvent;
import io.github.llmrouter.load.LoadMonitoring;
import io.github.llmrouter.replica.OutlierDetection;
import io.github.llmrouter.replica.Replica;
import io.github.llmrouter.emulator.EmulatedReplica;
import io.github.llmrouter.testing.EventRecorder;
import io.github.llmrouter.testing.ManualTicker;
import java.net.SocketTimeoutException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.IntConsumer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Replicas that die, hang or answer 503 under concurrent load, on loopback: the client keeps
 * every non-streaming call successful, ejects the sick replica, and brings it back through slow
 * start. Every loop is bounded in count; every wait in time.
 */
class FaultInjectionTest {
  private static final RetryPolicy FAST_RETRIES = RetryPolicy.builder()
      .initialBackoff(Duration.ofMillis(5)).maxBackoff(Duration.ofMillis(20)).build();

  private final List<EmulatedReplica> servers = new ArrayList<>();
  private final List<Replica> replicas = new ArrayList<>();
  private final EventRecorder events = new EventRecorder();
  private ExecutorService callers;

  @BeforeEach
  void startFleet() {
    for (int i = 0; i < 4; i++) {
      EmulatedReplica s = EmulatedReplica.builder().id("replica-" + i)
          .baseLatency(Duration.ofMillis(1)).decodeInterval(Duration.ofNanos(100_000)).build()
          .start();
      servers.add(s);
      replicas.add(Replica.builder(s.baseUrl()).id(s.id()).build());
    }
    callers = Executors.newFixedThreadPool(8);
  }

  @AfterEach
  void stopFleet() throws InterruptedException {
    callers.shutdownNow();
    callers.awaitTermination(10, TimeUnit.SECONDS);
    servers.forEach(EmulatedReplica::close);
  }

  private static ChatRequest request(String key) {
    return ChatRequest.builder("m").message(ChatMessage.system("You are a helpful assistant."))
        .message(ChatMessage.user(key + ": what is a KV cache?")).maxTokens(4).build();
  }

  /** Runs {@code threads × callsEach} calls; {@code afterEach} sees the running count. */
  private void load(LlmClient client, String phase, int threads, int callsEach, IntConsumer afterEach)
      throws Exception {
    AtomicInteger done = new AtomicInteger();
    List<Future<?>> futures = new ArrayList<>();
    for (int t = 0; t < threads; t++) {
      int thread = t;
      futures.add(callers.submit(() -> {
        for (int i = 0; i < callsEach; i++) {
          client.chat(request(phase + "-" + thread + "-" + i));
          afterEach.accept(done.incrementAndGet());
        }
        return null;
      }));
    }
    for (Future<?> f : futures) f.get(60, TimeUnit.SECONDS);
  }

  @Test
  void killingOneOfFourReplicasMidRunFailsNoCallAndTakesItOutWithinTwoSeconds() throws Exception {
    EmulatedReplica victim = servers.get(2);
    AtomicLong killedAt = new AtomicLong();
    AtomicInteger answeredBeforeKill = new AtomicInteger(-1);
    try (LlmClient client = LlmClient.builder().replicas(replicas).retryPolicy(FAST_RETRIES)
        .listener(events).build()) {
      load(client, "kill", 8, 100, done -> {
        if (done == 200 && killedAt.compareAndSet(0, System.nanoTime())) {
          victim.close();
          answeredBeforeKill.set(events.answered(victim.id()));
        }
      });
    }

    assertThat(events.failedCalls).as("failed calls").isEmpty();
    // Its first refused connect takes it out: nothing listens there any more.
    assertThat(events.health).singleElement().satisfies(e -> {
      assertThat(e.replicaId()).isEqualTo(victim.id());
      assertThat(e.healthy()).isFalse();
      assertThat(e.reason()).startsWith("refuses connections");
    });
    long outAfter = events.healthTimes.get(0) - killedAt.get();
    System.out.printf("kill: out %.1f ms after the kill; %d failed attempts on it%n",
        outAfter / 1e6, events.failedAttempts.stream()
            .filter(a -> a.replicaId().equals(victim.id())).count());
    assertThat(Duration.ofNanos(outAfter)).isLessThan(Duration.ofSeconds(2));
    assertThat(answeredBeforeKill.get()).as("the victim's share before the kill").isPositive();
    // A dead replica answers nothing: at most the answers it had sent just before the kill,
    // still on their way to the 7 other callers, are counted after it.
    assertThat(events.answered(victim.id()) - answeredBeforeKill.get())
        .as("answers counted after the kill").isLessThanOrEqualTo(7);
    assertThat(events.failedAttempts).filteredOn(a -> a.replicaId().equals(victim.id()))
        .as("at most one per caller: those already on their way when it went")
        .hasSizeBetween(1, 8);
  }

  @Test
  void aHangingReplicaFailsOverWithinTheFirstByteTimeoutAndIsEjected() throws Exception {
    // One caller and a clock that stands still: the calls reach the victim one at a time, its
    // ejection never runs out, and no scrape moves a key; so the count is exact.
    ManualTicker frozen = new ManualTicker();
    EmulatedReplica victim = servers.get(1);
    victim.faults().hangNext(100_000);
    Duration firstByte = Duration.ofMillis(300);
    try (LlmClient client = LlmClient.builder().replicas(replicas).retryPolicy(FAST_RETRIES)
        .firstByteTimeout(firstByte).ticker(frozen).loadMonitoring(LoadMonitoring.disabled())
        .listener(events).build()) {
      for (int i = 0; i < 100; i++) client.chat(request("hang-" + i));
    }

    assertThat(events.failedCalls).as("failed calls").isEmpty();
    List<AttemptFailedEvent> onVictim = events.failedAttempts.stream()
        .filter(a -> a.replicaId().equals(victim.id())).toList();
    // Five timed-out attempts in a row eject it (OutlierDetection's default); none reach it after.
    assertThat(onVictim).hasSize(OutlierDetection.DEFAULT_CONSECUTIVE_FAILURES)
        .allSatisfy(a -> {
          // The first-byte timeout of that one replica (a socket read timeout), retried
          // elsewhere; not the call's deadline, which would be final.
          assertThat(a.failure()).isInstanceOf(LlmTimeoutException.class)
              .hasCauseInstanceOf(SocketTimeoutException.class);
          assertThat(a.willRetry()).isTrue();
        });
    assertThat(events.failedAttempts).as("no other replica failed").hasSameSizeAs(onVictim);
    assertThat(events.ejections).filteredOn(EjectionEvent::ejected).singleElement()
        .satisfies(e -> assertThat(e.replicaId()).isEqualTo(victim.id()));
    assertThat(events.answered(victim.id())).isZero();
    assertThat(victim.stats().chatRequests()).as("requests that reached the victim")
        .isEqualTo(OutlierDetection.DEFAULT_CONSECUTIVE_FAILURES);
  }

  @Test
  void aReplicaAnswering503ForTenSecondsIsEjectedThenWinsItsTrafficBackThroughSlowStart()
      throws Exception {
    ManualTicker ticker = new ManualTicker();
    EmulatedReplica victim = servers.get(3);
    victim.faults().failNext(1_000_000, 503);
    // No load scrapes: under a clock that stands still, a report taken while a replica was busy
    // would never age, and would keep traffic off it for reasons other than its slow start.
    try (LlmClient client = LlmClient.builder().replicas(replicas).retryPolicy(FAST_RETRIES)
        .ticker(ticker).loadMonitoring(LoadMonitoring.disabled()).listener(events).build()) {
      load(client, "sick", 4, 25, done -> {});
      assertThat(events.ejections).filteredOn(EjectionEvent::ejected).singleElement()
          .satisfies(e -> {
            assertThat(e.replicaId()).isEqualTo(victim.id());
            assertThat(e.duration()).isEqualTo(Duration.ofSeconds(30));
          });

      ticker.advance(Duration.ofSeconds(10));
      victim.faults().clear(); // recovered after 10 s, but still ejected for 20 s more
      int before = events.answered(victim.id());
      load(client, "ejected", 4, 25, done -> {});
      assertThat(events.answered(victim.id())).isEqualTo(before);

      ticker.advance(Duration.ofSeconds(20)); // the ejection ends; slow start begins
      double[] shares = new double[3];
      for (int step = 0; step < 3; step++) {
        int answeredBefore = events.answered(victim.id());
        load(client, "back" + step, 4, 100, done -> {});
        shares[step] = (events.answered(victim.id()) - answeredBefore) / 400.0;
        ticker.advance(Duration.ofSeconds(15));
      }
      System.out.printf("503: victim's share 0 s / 15 s / 30 s after its ejection: %.3f %.3f %.3f%n",
          shares[0], shares[1], shares[2]);
      // A warm replica of four owns about a quarter of the keys; it starts at 10% of that. Once
      // warm, its share of one batch of 400 calls from four threads varies with how the calls
      // interleave (the load cap passes over a replica that momentarily holds more than its
      // share): 0.155–0.295 in 14 runs, 0.19–0.21 half-way.
      assertThat(shares[0]).as("share just back").isLessThan(0.08);
      assertThat(shares[1]).as("share half-way").isGreaterThan(2 * shares[0]).isGreaterThan(0.1);
      assertThat(shares[2]).as("share when warm").isGreaterThan(2 * shares[0]).isGreaterThan(0.12);
    }
    assertThat(events.failedCalls).as("failed calls").isEmpty();
    assertThat(events.ejections).filteredOn(e -> !e.ejected()).singleElement()
        .satisfies(e -> assertThat(e.replicaId()).isEqualTo(victim.id()));
  }
}
