package io.github.llmrouter;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.github.llmrouter.api.ChatMessage;
import io.github.llmrouter.api.ChatRequest;
import io.github.llmrouter.api.LlmException;
import io.github.llmrouter.dispatch.RetryPolicy;
import io.github.llmrouter.emulator.EmulatedReplica;
import io.github.llmrouter.load.LoadMonitoring;
import io.github.llmrouter.micrometer.LlmRouterMetrics;
import io.github.llmrouter.micrometer.LlmRouterObservations;
import io.github.llmrouter.observe.FleetSnapshot;
import io.github.llmrouter.routing.RoutingPolicy;
import io.github.llmrouter.spring.LlmClientBuilderCustomizer;
import io.github.llmrouter.spring.LlmRouterAutoConfiguration;
import io.github.llmrouter.spring.LlmRouterProperties;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.micrometer.observation.ObservationRegistry;
import java.io.IOException;
import java.io.InputStream;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * The Spring Boot auto-configuration: an {@code LlmClient} bean from {@code llm-router.*}
 * properties, each bound to the builder setting it names, closed with the context, backing off for
 * the application's own client; a bad property fails start-up naming it.
 */
class SpringAutoConfigurationTest {
  private final ApplicationContextRunner runner = new ApplicationContextRunner()
      .withConfiguration(AutoConfigurations.of(LlmRouterAutoConfiguration.class));

  /** Keeps the builder the auto-configuration made, as customizers see it. */
  @Configuration(proxyBeanMethods = false)
  static class Capture {
    static final AtomicReference<LlmClientBuilder> BUILDER = new AtomicReference<>();

    @Bean
    LlmClientBuilderCustomizer capture() {
      return BUILDER::set;
    }
  }

  @Configuration(proxyBeanMethods = false)
  static class OwnClient {
    @Bean
    LlmClient myClient() {
      return LlmClient.builder().replicas("http://127.0.0.1:9").build();
    }
  }

  @Test
  void everyPropertyBindsToTheBuilderSettingItNames() {
    runner.withUserConfiguration(Capture.class).withPropertyValues(
        "llm-router.replicas=http://127.0.0.1:9001,http://127.0.0.1:9002",
        "llm-router.api-key=sk-test", "llm-router.policy=round-robin",
        "llm-router.connect-timeout=2s", "llm-router.first-byte-timeout=45s",
        "llm-router.stream-idle-timeout=20s", "llm-router.stall-timeout=0s",
        "llm-router.call-timeout=2m", "llm-router.slow-start=10s",
        "llm-router.model-discovery-interval=0s", "llm-router.max-concurrent-requests=64",
        "llm-router.max-waiting-calls=8", "llm-router.max-stream-resumptions=1",
        "llm-router.retry.max-attempts=5", "llm-router.retry.initial-backoff=10ms",
        "llm-router.retry.max-backoff=1s", "llm-router.load-monitoring.enabled=false",
        "llm-router.health-check.enabled=true", "llm-router.health-check.path=/ready",
        "llm-router.health-check.interval=7s")
        .run(context -> {
          assertThat(context).hasNotFailed().hasSingleBean(LlmClient.class);
          LlmClientBuilder b = Capture.BUILDER.get();
          assertThat(b.apiKey).isEqualTo("sk-test");
          assertThat(b.routingPolicy.name()).isEqualTo(RoutingPolicy.roundRobin().name());
          assertThat(b.connectTimeout).isEqualTo(Duration.ofSeconds(2));
          assertThat(b.firstByteTimeout).isEqualTo(Duration.ofSeconds(45));
          assertThat(b.streamIdleTimeout).isEqualTo(Duration.ofSeconds(20));
          assertThat(b.stallTimeout).isEqualTo(Duration.ZERO);
          assertThat(b.callTimeout).isEqualTo(Duration.ofMinutes(2));
          assertThat(b.slowStart).isEqualTo(Duration.ofSeconds(10));
          assertThat(b.modelDiscoveryInterval).isEqualTo(Duration.ZERO);
          assertThat(b.maxConcurrentRequests).isEqualTo(64);
          assertThat(b.maxWaitingCalls).isEqualTo(8);
          assertThat(b.maxStreamResumptions).isEqualTo(1);
          RetryPolicy retry = b.retryPolicy;
          assertThat(retry.maxAttempts()).isEqualTo(5);
          assertThat(retry.initialBackoff()).isEqualTo(Duration.ofMillis(10));
          assertThat(retry.maxBackoff()).isEqualTo(Duration.ofSeconds(1));
          assertThat(b.loadMonitoring.scraping()).isFalse();
          assertThat(b.healthCheck).isNotNull();
          assertThat(b.healthCheck.path()).isEqualTo("/ready");
          assertThat(b.healthCheck.interval()).isEqualTo(Duration.ofSeconds(7));
          FleetSnapshot fleet = context.getBean(LlmClient.class).fleet();
          assertThat(fleet.replicas()).extracting(FleetSnapshot.ReplicaLoad::replicaId)
              .containsExactlyInAnyOrder("127.0.0.1:9001", "127.0.0.1:9002");
          assertThat(context.getBean(LlmRouterProperties.class).toString())
              .doesNotContain("sk-test");
        });
  }

  @Configuration(proxyBeanMethods = false)
  static class Registries {
    @Bean
    MeterRegistry meterRegistry() {
      return new SimpleMeterRegistry();
    }

    @Bean
    ObservationRegistry observationRegistry() {
      return ObservationRegistry.create();
    }
  }

  @Test
  void theApplicationsRegistriesGetTheRoutersMetersAndObservations() {
    try (EmulatedReplica replica = EmulatedReplica.builder().instant().build().start()) {
      runner.withUserConfiguration(Capture.class, Registries.class)
          .withPropertyValues("llm-router.replicas=" + replica.baseUrl())
          .run(context -> {
            assertThat(context).hasNotFailed();
            assertThat(Capture.BUILDER.get().listeners).hasAtLeastOneElementOfType(
                LlmRouterMetrics.class).hasAtLeastOneElementOfType(LlmRouterObservations.class);
            context.getBean(LlmClient.class).chat(
                ChatRequest.builder("m").message(ChatMessage.user("hi")).build());
            assertThat(context.getBean(MeterRegistry.class).get("llm.router.calls").timer()
                .count()).isEqualTo(1);
          });
    }
    runner.withUserConfiguration(Capture.class)
        .withPropertyValues("llm-router.replicas=http://127.0.0.1:9001")
        .run(context -> assertThat(Capture.BUILDER.get().listeners).isEmpty());
  }

  @Test
  void theDefaultsAreTheBuildersOwn() {
    runner.withUserConfiguration(Capture.class)
        .withPropertyValues("llm-router.replicas=http://127.0.0.1:9001")
        .run(context -> {
          assertThat(context).hasNotFailed();
          LlmClientBuilder b = Capture.BUILDER.get();
          LlmClientBuilder defaults = LlmClient.builder();
          assertThat(b.apiKey).isNull();
          assertThat(b.routingPolicy.name()).isEqualTo(defaults.routingPolicy.name());
          assertThat(b.connectTimeout).isEqualTo(defaults.connectTimeout);
          assertThat(b.firstByteTimeout).isEqualTo(defaults.firstByteTimeout);
          assertThat(b.streamIdleTimeout).isEqualTo(defaults.streamIdleTimeout);
          assertThat(b.stallTimeout).isEqualTo(defaults.stallTimeout);
          assertThat(b.callTimeout).isEqualTo(defaults.callTimeout);
          assertThat(b.slowStart).isEqualTo(defaults.slowStart);
          assertThat(b.modelDiscoveryInterval).isEqualTo(defaults.modelDiscoveryInterval);
          assertThat(b.maxConcurrentRequests).isEqualTo(defaults.maxConcurrentRequests);
          assertThat(b.maxWaitingCalls).isEqualTo(defaults.maxWaitingCalls);
          assertThat(b.maxStreamResumptions).isEqualTo(defaults.maxStreamResumptions);
          RetryPolicy retry = b.retryPolicy;
          assertThat(retry.maxAttempts()).isEqualTo(RetryPolicy.defaults().maxAttempts());
          assertThat(retry.initialBackoff()).isEqualTo(RetryPolicy.DEFAULT_INITIAL_BACKOFF);
          assertThat(retry.maxBackoff()).isEqualTo(RetryPolicy.DEFAULT_MAX_BACKOFF);
          assertThat(b.loadMonitoring.scrapeInterval())
              .isEqualTo(LoadMonitoring.DEFAULT_SCRAPE_INTERVAL);
          assertThat(b.healthCheck).isNull();
        });
  }

  @Test
  void anApplicationThatSetsNoPropertyGetsNoClientAndNoFailure() {
    runner.run(context -> assertThat(context).hasNotFailed().doesNotHaveBean(LlmClient.class));
  }

  @Test
  void aMissingOrBadPropertyFailsStartUpNamingItAndNeverTheKey() {
    runner.withPropertyValues("llm-router.policy=round-robin").run(context -> assertThat(context)
        .hasFailed().getFailure().rootCause().hasMessageContaining("llm-router.replicas"));
    runner.withPropertyValues("llm-router.replicas=http://127.0.0.1:9001",
            "llm-router.api-key=sk-secret-value", "llm-router.connect-timeout=0s")
        .run(context -> {
          assertThat(context).hasFailed();
          Throwable failure = context.getStartupFailure();
          assertThat(failure).hasStackTraceContaining(
              "invalid llm-router.connect-timeout: connectTimeout must be in (0, 5 min]");
          for (Throwable t = failure; t != null; t = t.getCause()) {
            assertThat(String.valueOf(t.getMessage())).doesNotContain("sk-secret-value");
          }
        });
    runner.withPropertyValues("llm-router.replicas=http://127.0.0.1:9001",
            "llm-router.retry.max-attempts=0")
        .run(context -> assertThat(context).hasFailed().getFailure()
            .hasStackTraceContaining("invalid llm-router.retry.max-attempts"));
    runner.withPropertyValues("llm-router.replicas=http://127.0.0.1:9001",
            "llm-router.dns.name=llm.svc")
        .run(context -> assertThat(context).hasFailed().getFailure()
            .hasStackTraceContaining("llm-router.replicas and llm-router.dns.name"));
    runner.withPropertyValues("llm-router.replicas=http://127.0.0.1:9001",
            "llm-router.policy=fastest")
        .run(context -> assertThat(context).hasFailed().getFailure()
            .hasStackTraceContaining("llm-router.policy"));
  }

  @Test
  void theApplicationsOwnClientWinsAndTheClientIsClosedWithTheContext() {
    runner.withUserConfiguration(OwnClient.class).run(context -> {
      assertThat(context).hasNotFailed().hasSingleBean(LlmClient.class);
      assertThat(context).hasBean("myClient").doesNotHaveBean("llmClient");
    });
    AtomicReference<LlmClient> client = new AtomicReference<>();
    runner.withPropertyValues("llm-router.replicas=http://127.0.0.1:9001")
        .run(context -> client.set(context.getBean(LlmClient.class)));
    assertThatThrownBy(() -> client.get().chat(
        ChatRequest.builder("m").message(ChatMessage.user("hi")).build()))
        .isInstanceOf(LlmException.class).hasMessageContaining("closed");
  }

  @Test
  void theMetadataDescribesEveryPropertyWithItsDefault() throws IOException {
    JsonNode metadata;
    try (InputStream in = LlmRouterProperties.class.getClassLoader()
        .getResourceAsStream("META-INF/spring-configuration-metadata.json")) {
      assertThat(in).as("the configuration processor's output").isNotNull();
      metadata = JsonMapper.builder().build().readTree(in);
    }
    Set<String> described = new TreeSet<>();
    for (JsonNode p : metadata.path("properties")) {
      described.add(p.path("name").stringValue());
      assertThat(p.path("description").stringValue()).as(p.path("name").stringValue())
          .isNotBlank();
      if (!p.path("name").stringValue().matches("llm-router\\.(api-key|replicas|dns\\.name)")) {
        assertThat(p.has("defaultValue")).as("default of " + p.path("name").stringValue())
            .isTrue();
      }
    }
    assertThat(described).isEqualTo(bound("llm-router", LlmRouterProperties.class));
    try (InputStream in = LlmRouterProperties.class.getClassLoader().getResourceAsStream(
        "META-INF/spring/org.springframework.boot.autoconfigure.AutoConfiguration.imports")) {
      assertThat(in).isNotNull();
      assertThat(new String(in.readAllBytes(), StandardCharsets.UTF_8).trim())
          .isEqualTo(LlmRouterAutoConfiguration.class.getName());
    }
  }

  /** The property names a class binds: its getters, nested classes' under their own prefix. */
  private static Set<String> bound(String prefix, Class<?> type) {
    Set<String> names = new TreeSet<>();
    List<Method> getters = new ArrayList<>();
    for (Method m : type.getDeclaredMethods()) {
      if (Modifier.isPublic(m.getModifiers()) && m.getParameterCount() == 0
          && (m.getName().startsWith("get") || m.getName().startsWith("is"))) {
        getters.add(m);
      }
    }
    for (Method m : getters) {
      String bean = m.getName().substring(m.getName().startsWith("is") ? 2 : 3);
      String kebab = (Character.toLowerCase(bean.charAt(0)) + bean.substring(1))
          .replaceAll("([A-Z])", "-$1").toLowerCase(Locale.ROOT);
      Class<?> r = m.getReturnType();
      if (r.getEnclosingClass() == LlmRouterProperties.class && !r.isEnum()) {
        names.addAll(bound(prefix + "." + kebab, r));
      } else {
        names.add(prefix + "." + kebab);
      }
    }
    return names;
  }
}
