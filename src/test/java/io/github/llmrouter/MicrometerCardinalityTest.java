package io.github.llmrouter;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.llmrouter.api.ChatMessage;
import io.github.llmrouter.api.ChatRequest;
import io.github.llmrouter.emulator.EmulatedReplica;
import io.github.llmrouter.load.LoadMonitoring;
import io.github.llmrouter.micrometer.LlmRouterMetrics;
import io.github.llmrouter.replica.Replica;
import io.github.llmrouter.testing.HandResolver;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.micrometer.core.tck.MeterRegistryAssert;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The meters' tags stay bounded however many prompts, models and replicas pass: 10,000 calls, so
 * a run of seconds (left out of mutation testing).
 */
class MicrometerCardinalityTest {
  private final MeterRegistry registry = new SimpleMeterRegistry();

  @Test
  void tagsStayBoundedUnderTenThousandPromptsAndAHundredReplicasJoiningAndLeaving() {
    try (EmulatedReplica server = EmulatedReplica.builder().instant().build().start()) {
      HandResolver resolver = new HandResolver();
      try (LlmClient client = LlmClient.builder().resolver(resolver).slowStart(Duration.ZERO)
          .loadMonitoring(LoadMonitoring.disabled())
          .listener(LlmRouterMetrics.of(registry)).build()) {
        int prompt = 0;
        for (int round = 0; round < 10; round++) {
          List<Replica> fleet = new ArrayList<>();
          for (int i = 0; i < 10; i++) {
            fleet.add(Replica.builder(server.baseUrl()).id("r" + (round * 10 + i)).build());
          }
          resolver.publish(fleet);
          for (int call = 0; call < 1_000; call++, prompt++) {
            // 150 models: the first 100 are tagged by name, the rest as "other".
            client.chat(ChatRequest.builder("model-" + (prompt % 150))
                .message(ChatMessage.user("distinct prompt " + prompt)).build());
          }
        }
        assertThat(prompt).isEqualTo(10_000);
        Set<String> replicaTags = new HashSet<>();
        Set<String> modelTags = new HashSet<>();
        for (Meter m : registry.getMeters()) {
          String r = m.getId().getTag("replica");
          if (r != null) replicaTags.add(r);
          String model = m.getId().getTag("model");
          if (model != null) modelTags.add(model);
          for (Tag t : m.getId().getTags()) {
            assertThat(t.getValue()).as("no prompt in a tag").doesNotContain("distinct prompt");
          }
        }
        assertThat(replicaTags).as("only the replicas in the fleet")
            .containsExactlyInAnyOrder("r90", "r91", "r92", "r93", "r94", "r95", "r96", "r97",
                "r98", "r99");
        assertThat(modelTags).hasSize(LlmRouterMetrics.MAX_MODELS + 1)
            .contains(LlmRouterMetrics.OTHER_MODEL);
        // Per replica: 5 gauges and an ejection counter; per replica and model at most one
        // attempts timer and four token counters (the emulator reports no cached tokens: still
        // four); then calls per model, and the fleet's three gauges.
        assertThat(registry.getMeters().size())
            .isLessThanOrEqualTo(10 * 6 + 10 * 101 * 5 + 101 + 3);
        MeterRegistryAssert.assertThat(registry).gauge("llm.router.replicas").hasValue(10);
      }
    }
  }
}
