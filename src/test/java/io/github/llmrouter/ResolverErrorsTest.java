package io.github.llmrouter;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.llmrouter.load.LoadMonitoring;
import io.github.llmrouter.observe.ResolverErrorEvent;
import io.github.llmrouter.replica.DnsResolver;
import io.github.llmrouter.replica.Replica;
import io.github.llmrouter.replica.ReplicaResolver;
import io.github.llmrouter.replica.ReplicaSet;
import io.github.llmrouter.testing.EventRecorder;
import java.net.UnknownHostException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * No replica here is ever called (load reporting is off), so their addresses need nothing behind
 * them. A resolver that fails reaches the application as a {@link ResolverErrorEvent} naming the
 * resolver and carrying the error, and the client keeps the replicas it had.
 */
class ResolverErrorsTest {
  private final EventRecorder events = new EventRecorder();

  @Test
  void aResolversReportedFailureReachesTheListenerAndTheFleetStays() {
    UnknownHostException error = new UnknownHostException("registry unreachable");
    Replica replica = Replica.of("http://127.0.0.1:9");
    ReplicaResolver registry = new ReplicaResolver() {
      @Override
      public void start(Context context) {
        context.publish(ReplicaSet.of(List.of(replica)));
        context.failed(error);
      }

      @Override
      public String name() {
        return "registry";
      }
    };
    try (LlmClient client = LlmClient.builder().resolver(registry).listener(events)
        .loadMonitoring(LoadMonitoring.disabled()).build()) {
      assertThat(events.resolverErrors).containsExactly(new ResolverErrorEvent("registry", error));
      assertThat(client.replicas()).containsExactly(replica);
    }
  }

  @Test
  void aPollingSupplierThatThrowsIsReportedAtEachFailedPoll() {
    AtomicInteger polls = new AtomicInteger();
    IllegalStateException down = new IllegalStateException("registry down");
    Replica replica = Replica.of("http://127.0.0.1:9");
    try (LlmClient client = LlmClient.builder().listener(events)
        .loadMonitoring(LoadMonitoring.disabled())
        .resolver(ReplicaResolver.polling(() -> {
          if (polls.incrementAndGet() == 1) return List.of(replica);
          throw down;
        }, Duration.ofMillis(10))).build()) {
      EventRecorder.await("two failed polls", Duration.ofSeconds(10),
          () -> events.resolverErrors.size() >= 2);
      assertThat(events.resolverErrors).allSatisfy(e ->
          assertThat(e).isEqualTo(new ResolverErrorEvent("polling", down)));
      assertThat(client.replicas()).containsExactly(replica);
    }
  }

  @Test
  void aFailedDnsLookupIsReportedWithTheNameItLookedUp() {
    UnknownHostException servfail = new UnknownHostException("SERVFAIL for vllm.example");
    try (LlmClient client = LlmClient.builder().listener(events)
        .loadMonitoring(LoadMonitoring.disabled())
        .resolver(DnsResolver.builder("vllm.example", 8000).lookup(host -> {
          throw servfail;
        }).build()).build()) {
      EventRecorder.await("the failed lookup", Duration.ofSeconds(10),
          () -> !events.resolverErrors.isEmpty());
      assertThat(events.resolverErrors.get(0))
          .isEqualTo(new ResolverErrorEvent("DnsResolver: vllm.example:8000", servfail));
      assertThat(client.replicas()).isEmpty();
    }
  }
}
