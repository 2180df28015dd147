package io.github.llmrouter;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.llmrouter.api.ChatChunk;
import io.github.llmrouter.api.ChatMessage;
import io.github.llmrouter.api.ChatRequest;
import io.github.llmrouter.api.ResponseStream;
import io.github.llmrouter.api.StreamInterruptedException;
import io.github.llmrouter.dispatch.CircuitBreakerPolicy;
import io.github.llmrouter.emulator.EmulatedReplica;
import io.github.llmrouter.load.LoadMonitoring;
import io.github.llmrouter.observe.EjectionEvent;
import io.github.llmrouter.replica.OutlierDetection;
import io.github.llmrouter.replica.Replica;
import io.github.llmrouter.replica.ReplicaSet;
import io.github.llmrouter.routing.Ranking;
import io.github.llmrouter.routing.ReplicaPicker;
import io.github.llmrouter.routing.RoutedAttempt;
import io.github.llmrouter.routing.RoutingPolicy;
import io.github.llmrouter.testing.EventRecorder;
import io.github.llmrouter.testing.ManualTicker;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A stream's attempt ends with its real outcome: a replica that cuts streams after their first
 * chunk fails its attempts (outlier detection, breaker, policy and listener all hear it), and is
 * ejected as one answering 5xx would be; a caller that closes streams early blames nobody.
 */
class StreamOutcomesTest {
  private final List<EmulatedReplica> servers = new ArrayList<>();
  private final List<Replica> replicas = new ArrayList<>();
  private final EventRecorder events = new EventRecorder();
  /** The clock stands still: an ejection never runs out during the test, so counts are exact. */
  private final ManualTicker frozen = new ManualTicker();
  private final OutcomeRecordingPolicy policy = new OutcomeRecordingPolicy();

  @BeforeEach
  void startFleet() {
    for (int i = 0; i < 4; i++) {
      EmulatedReplica s = EmulatedReplica.builder().id("replica-" + i).instant().build().start();
      servers.add(s);
      replicas.add(Replica.builder(s.baseUrl()).id(s.id()).build());
    }
  }

  @AfterEach
  void stopFleet() {
    servers.forEach(EmulatedReplica::close);
  }

  private LlmClient client() {
    return LlmClient.builder().replicas(replicas).ticker(frozen).routingPolicy(policy)
        .loadMonitoring(LoadMonitoring.disabled()).listener(events)
        .outlierDetection(OutlierDetection.builder().maxEjectionPercent(50).build()).build();
  }

  private static ChatRequest request(int i) {
    return ChatRequest.builder("m").message(ChatMessage.user("stream " + i + ": tell me more"))
        .maxTokens(8).build();
  }

  @Test
  void aReplicaThatCutsEveryStreamAfterOneChunkIsEjectedAsA5xxOneIs() {
    EmulatedReplica cutter = servers.get(1);
    cutter.faults().breakStreamAfter(1_000, 1);
    int interrupted = 0;
    int resumed = 0;
    try (LlmClient client = client()) {
      for (int i = 0; i < 100; i++) {
        try (ResponseStream<ChatChunk> stream = client.chatStream(request(i))) {
          stream.forEach(chunk -> { });
          resumed += stream.resumptions();
        } catch (StreamInterruptedException e) {
          interrupted++;
        }
      }
    }

    // Round robin: every fourth stream reaches the cutter until five in a row have failed there;
    // each cut stream went on elsewhere, so no caller saw the cut.
    int failures = OutlierDetection.DEFAULT_CONSECUTIVE_FAILURES;
    assertThat(interrupted).isZero();
    assertThat(resumed).as("streams cut before the ejection").isEqualTo(failures);
    assertThat(events.ejections).filteredOn(EjectionEvent::ejected).singleElement()
        .satisfies(e -> assertThat(e.replicaId()).isEqualTo(cutter.id()));
    assertThat(events.failedAttempts).hasSize(failures).allSatisfy(a -> {
      assertThat(a.replicaId()).isEqualTo(cutter.id());
      assertThat(a.willRetry()).isFalse();
      assertThat(a.whyNot()).isEqualTo("stream broken after its first chunk");
    });
    assertThat(policy.outcomes(cutter.id())).as("what the policy learnt of the cutter")
        .containsOnlyKeys("failed").containsEntry("failed", failures);
    assertThat(policy.outcomes(servers.get(0).id())).containsOnlyKeys("completed");
    assertThat(events.failedCalls).as("each call succeeded: its stream reached the caller")
        .isEmpty();
  }

  @Test
  void aCallerThatClosesStreamsEarlyEjectsNothingAndBlamesNoReplica() {
    try (LlmClient client = LlmClient.builder().replicas(replicas).ticker(frozen)
        .routingPolicy(policy).loadMonitoring(LoadMonitoring.disabled()).listener(events)
        .circuitBreaker(CircuitBreakerPolicy.builder().slidingWindowSize(4).minimumCalls(4)
            .build()).build()) {
      for (int i = 0; i < 40; i++) {
        try (ResponseStream<ChatChunk> stream = client.chatStream(request(i))) {
          Iterator<ChatChunk> chunks = stream.iterator();
          assertThat(chunks.hasNext()).isTrue();
          chunks.next(); // then let go
        }
      }
      for (Replica r : replicas) {
        assertThat(client.inFlight(r.id())).as("in flight on %s", r.id()).isZero();
      }
    }

    assertThat(events.ejections).isEmpty();
    assertThat(events.breakers).isEmpty();
    assertThat(events.failedAttempts).isEmpty();
    for (Replica r : replicas) {
      assertThat(policy.outcomes(r.id())).as("closed early: no usage learnt, nothing completed")
          .containsOnlyKeys("failed");
    }
  }

  @Test
  void aStreamReadToItsEndCompletesItsAttemptOnce() {
    try (LlmClient client = client()) {
      try (ResponseStream<ChatChunk> stream = client.chatStream(request(0))) {
        stream.forEach(chunk -> { });
        stream.close(); // a second close says nothing more
      }
    }
    int completed = replicas.stream()
        .mapToInt(r -> policy.outcomes(r.id()).getOrDefault("completed", 0)).sum();
    assertThat(completed).isEqualTo(1);
    assertThat(events.failedAttempts).isEmpty();
  }

  /** Round robin that records what each replica's attempts ended with. */
  private static final class OutcomeRecordingPolicy implements RoutingPolicy {
    private final RoutingPolicy roundRobin = RoutingPolicy.roundRobin();
    private final Map<String, Map<String, Integer>> outcomes = new ConcurrentHashMap<>();

    Map<String, Integer> outcomes(String replicaId) {
      return outcomes.getOrDefault(replicaId, Map.of());
    }

    @Override
    public ReplicaPicker newPicker(ReplicaSet set) {
      ReplicaPicker inner = roundRobin.newPicker(set);
      return (request, load) -> {
        Ranking ranking = inner.rank(request, load);
        return new Ranking() {
          @Override
          public int next() {
            return ranking.next();
          }

          @Override
          public String reason() {
            return ranking.reason();
          }

          @Override
          public RoutedAttempt sent(int index, long nanos, boolean streamed) {
            Map<String, Integer> counts = outcomes.computeIfAbsent(set.get(index).id(),
                k -> new ConcurrentHashMap<>());
            AtomicInteger ends = new AtomicInteger();
            return new RoutedAttempt() {
              @Override
              public void completed(long promptTokens, long cachedTokens, long nanos) {
                if (ends.getAndIncrement() == 0) counts.merge("completed", 1, Integer::sum);
              }

              @Override
              public void failed(long nanos) {
                if (ends.getAndIncrement() == 0) counts.merge("failed", 1, Integer::sum);
              }
            };
          }
        };
      };
    }
  }
}
