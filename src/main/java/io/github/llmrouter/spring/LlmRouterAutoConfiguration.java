package io.github.llmrouter.spring;

import io.github.llmrouter.LlmClient;
import io.github.llmrouter.LlmClientBuilder;
import io.github.llmrouter.dispatch.RetryPolicy;
import io.github.llmrouter.load.LoadMonitoring;
import io.github.llmrouter.micrometer.LlmRouterMetrics;
import io.github.llmrouter.micrometer.LlmRouterObservations;
import io.github.llmrouter.replica.DnsResolver;
import io.github.llmrouter.replica.HealthCheck;
import io.github.llmrouter.routing.LeastLoaded;
import io.github.llmrouter.routing.RoutingPolicy;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.observation.ObservationRegistry;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.util.Locale;
import java.util.function.Supplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionOutcome;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.SpringBootCondition;
import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Conditional;
import org.springframework.context.annotation.ConditionContext;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.type.AnnotatedTypeMetadata;

/**
 * An {@link LlmClient} bean built from the {@code llm-router.*} properties ({@link
 * LlmRouterProperties}) and every {@link LlmClientBuilderCustomizer} bean, closed with the
 * application context, when the application sets any of those properties; none if the
 * application defines its own {@code LlmClient}. With
 * Micrometer on the class path, the router's meters and observations go to the application's
 * {@code MeterRegistry} and {@code ObservationRegistry} beans, if it has them. A property out
 * of range fails start-up with a message naming it ({@code llm-router.connect-timeout}), never
 * showing the API key.
 *
 * @since 0.3.0
 */
@AutoConfiguration
@ConditionalOnClass(LlmClient.class)
@Conditional(LlmRouterAutoConfiguration.Configured.class)
@EnableConfigurationProperties(LlmRouterProperties.class)
public class LlmRouterAutoConfiguration {
  /**
   * Whether the application sets any {@code llm-router.*} property: an application that has the
   * jar but makes its clients itself gets no bean, and no start-up failure for the replicas it
   * did not configure.
   */
  static final class Configured extends SpringBootCondition {
    @Override
    public ConditionOutcome getMatchOutcome(ConditionContext context,
        AnnotatedTypeMetadata metadata) {
      boolean any = Binder.get(context.getEnvironment())
          .bind("llm-router", Bindable.mapOf(String.class, Object.class)).isBound();
      return any ? ConditionOutcome.match("llm-router.* properties are set")
          : ConditionOutcome.noMatch("no llm-router.* property is set");
    }
  }

  /**
   * A setting's name at the start of a builder's own messages: {@code connectTimeout}, or {@code
   * maxAttempts} of {@code RetryPolicy.maxAttempts}.
   */
  private static final Pattern SETTING = Pattern.compile("^(?:[A-Z][A-Za-z]*\\.)?([a-z][A-Za-z]*)");

  /** Made by Spring Boot, which applies it when its conditions hold. */
  public LlmRouterAutoConfiguration() {}

  /**
   * The router's meters ({@code LlmRouterMetrics}) in the application's {@code MeterRegistry},
   * when Micrometer is on the class path and the application has a registry (Spring Boot's
   * Actuator makes one): {@code /actuator/prometheus} shows them with no code.
   */
  @Configuration(proxyBeanMethods = false)
  @ConditionalOnClass(name = "io.micrometer.core.instrument.MeterRegistry")
  static class Meters {
    @Bean
    LlmClientBuilderCustomizer llmRouterMetrics(ObjectProvider<MeterRegistry> registries) {
      return builder -> registries.ifAvailable(r -> builder.listener(LlmRouterMetrics.of(r)));
    }
  }

  /**
   * The router's observations ({@code LlmRouterObservations}: a span per call and per attempt) in
   * the application's {@code ObservationRegistry}, when it has one (Spring Boot's Actuator makes
   * one): its traces carry the router's spans with no code.
   */
  @Configuration(proxyBeanMethods = false)
  @ConditionalOnClass(name = "io.micrometer.observation.ObservationRegistry")
  static class Observations {
    @Bean
    LlmClientBuilderCustomizer llmRouterObservations(
        ObjectProvider<ObservationRegistry> registries) {
      return builder -> registries.ifAvailable(
          r -> builder.listener(LlmRouterObservations.of(r)));
    }
  }

  /**
   * The application's client.
   *
   * @param properties the {@code llm-router.*} properties
   * @param customizers the application's customizers, applied after the properties
   * @return the client, started
   * @throws IllegalStateException if no replica or DNS name is set, or a property is out of range
   */
  @Bean(destroyMethod = "close")
  @ConditionalOnMissingBean
  public LlmClient llmClient(LlmRouterProperties properties,
      ObjectProvider<LlmClientBuilderCustomizer> customizers) {
    LlmClientBuilder builder = builder(properties);
    customizers.orderedStream().forEach(c -> c.customize(builder));
    try {
      return builder.build();
    } catch (IllegalArgumentException e) {
      throw invalid("", LlmRouterProperties.class, e);
    }
  }

  /** The builder the properties describe. */
  static LlmClientBuilder builder(LlmRouterProperties p) {
    LlmClientBuilder b = LlmClient.builder();
    LlmRouterProperties.Dns dns = p.getDns();
    String name = dns.getName();
    if (name != null && !name.isBlank()) {
      if (!p.getReplicas().isEmpty()) {
        throw new IllegalStateException("llm-router.replicas and llm-router.dns.name are both "
            + "set: set one");
      }
      b.resolver(DnsResolver.builder(name, dns.getPort()).scheme(dns.getScheme())
          .interval(dns.getInterval()).build());
    } else if (p.getReplicas().isEmpty()) {
      throw new IllegalStateException("llm-router.replicas (or llm-router.dns.name) must be set: "
          + "the base URLs of the replicas, for example http://10.0.0.7:8000");
    } else {
      b.replicas(p.getReplicas().toArray(String[]::new));
    }
    b.apiKey(p.getApiKey())
        .routingPolicy(policy(p.getPolicy()))
        .connectTimeout(p.getConnectTimeout())
        .firstByteTimeout(p.getFirstByteTimeout())
        .streamIdleTimeout(p.getStreamIdleTimeout())
        .stallTimeout(p.getStallTimeout())
        .callTimeout(p.getCallTimeout())
        .slowStart(p.getSlowStart())
        .modelDiscoveryInterval(p.getModelDiscoveryInterval())
        .maxConcurrentRequests(p.getMaxConcurrentRequests())
        .maxWaitingCalls(p.getMaxWaitingCalls())
        .maxStreamResumptions(p.getMaxStreamResumptions());
    LlmRouterProperties.Retry retry = p.getRetry();
    b.retryPolicy(built("retry", LlmRouterProperties.Retry.class,
        () -> RetryPolicy.builder().maxAttempts(retry.getMaxAttempts())
            .initialBackoff(retry.getInitialBackoff()).maxBackoff(retry.getMaxBackoff()).build()));
    LlmRouterProperties.LoadMonitoring load = p.getLoadMonitoring();
    b.loadMonitoring(!load.isEnabled() ? LoadMonitoring.disabled()
        : built("load-monitoring", LlmRouterProperties.LoadMonitoring.class,
            () -> LoadMonitoring.builder().scrapeInterval(load.getScrapeInterval()).build()));
    LlmRouterProperties.HealthCheck health = p.getHealthCheck();
    if (health.isEnabled()) {
      b.healthCheck(built("health-check", LlmRouterProperties.HealthCheck.class,
          () -> HealthCheck.builder().path(health.getPath()).interval(health.getInterval())
              .build()));
    }
    return b;
  }

  private static RoutingPolicy policy(LlmRouterProperties.Policy policy) {
    return switch (policy) {
      case CACHE_AWARE -> RoutingPolicy.cacheAware();
      case PREFIX_HASH -> RoutingPolicy.prefixHash();
      case ROUND_ROBIN -> RoutingPolicy.roundRobin();
      case LEAST_LOADED -> LeastLoaded.powerOfTwoChoices();
      case RANDOM -> RoutingPolicy.random(System.nanoTime());
    };
  }

  /** Builds a nested setting's value; one out of range fails naming its property. */
  private static <T> T built(String group, Class<?> properties, Supplier<T> build) {
    try {
      return build.get();
    } catch (IllegalArgumentException e) {
      throw invalid(group, properties, e);
    }
  }

  /**
   * The failure of a builder's check, naming the property it is about: a builder's message begins
   * with its setting's name ({@code connectTimeout must be ...}), which is {@code
   * llm-router.connect-timeout} when that is a field of {@code properties}, the class bound at
   * {@code group} ("" for the top level).
   */
  static IllegalStateException invalid(String group, Class<?> properties,
      IllegalArgumentException e) {
    String message = String.valueOf(e.getMessage());
    String prefix = group.isEmpty() ? "llm-router" : "llm-router." + group;
    Matcher m = SETTING.matcher(message);
    if (m.find()) {
      String setting = m.group(1);
      for (Field f : properties.getDeclaredFields()) {
        if (!Modifier.isStatic(f.getModifiers()) && f.getName().equals(setting)) {
          prefix += "." + setting.replaceAll("([A-Z])", "-$1").toLowerCase(Locale.ROOT);
          break;
        }
      }
    }
    return new IllegalStateException("invalid " + prefix + ": " + message, e);
  }
}
