package io.github.llmrouter.spring;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * The {@code llm-router.*} properties from which {@link LlmRouterAutoConfiguration} builds the
 * application's {@code LlmClient}; each names the {@code LlmClientBuilder} setting of the same
 * name, with its default. Not thread-safe: Spring binds it once, at start-up.
 *
 * <pre>
 * llm-router:
 *   replicas: http://10.0.0.7:8000, http://10.0.0.8:8000
 *   api-key: ${VLLM_API_KEY}
 *   policy: cache-aware
 *   call-timeout: 2m
 * </pre>
 *
 * @since 0.3.0
 */
@ConfigurationProperties(prefix = "llm-router")
public class LlmRouterProperties {
  /** Base URLs of the replicas, for example http://10.0.0.7:8000. Or dns.name, to resolve them. */
  private List<String> replicas = new ArrayList<>();

  /**
   * API key sent to every replica as a bearer token (for example ${VLLM_API_KEY}). Never logged.
   */
  private @Nullable String apiKey;

  /** Routing policy. */
  private Policy policy = Policy.CACHE_AWARE;

  /** Time to open a connection to a replica. */
  private Duration connectTimeout = Duration.ofSeconds(5);

  /** Time from sending a request to the first byte of its answer. */
  private Duration firstByteTimeout = Duration.ofSeconds(60);

  /** Longest silence within a streamed answer. */
  private Duration streamIdleTimeout = Duration.ofSeconds(30);

  /**
   * How long a replica may leave scrapes and health checks unanswered before it is taken for hung;
   * 0 turns the watchdog off.
   */
  private Duration stallTimeout = Duration.ofSeconds(3);

  /** Deadline of a whole call, across attempts; 0 for none. */
  private Duration callTimeout = Duration.ofMinutes(10);

  /** Ramp of a replica that joined or came back; 0 for none. */
  private Duration slowStart = Duration.ofSeconds(30);

  /** How often each replica is asked which models it serves (GET /v1/models); 0 turns it off. */
  private Duration modelDiscoveryInterval = Duration.ofSeconds(30);

  /** Requests in flight at once, in total and per replica. */
  private int maxConcurrentRequests = 1024;

  /** Calls that may wait for replicas while the fleet is empty. */
  private int maxWaitingCalls = 1024;

  /** Times a broken stream is continued on another replica; 0 turns it off. */
  private int maxStreamResumptions = 2;

  /** Replicas found by DNS instead of a fixed list. */
  private final Dns dns = new Dns();

  /** Retries of a failed attempt on another replica. */
  private final Retry retry = new Retry();

  /** How replicas' own load is learnt: their /metrics, scraped. */
  private final LoadMonitoring loadMonitoring = new LoadMonitoring();

  /** Active health checks (GET /health). */
  private final HealthCheck healthCheck = new HealthCheck();

  /** The routing policies. */
  public enum Policy {
    /** Where the first token is expected soonest (the default). */
    CACHE_AWARE,
    /** Consistent hashing of the prompt's prefix, with bounded loads. */
    PREFIX_HASH,
    /** Each replica in turn. */
    ROUND_ROBIN,
    /** The less loaded of two random replicas. */
    LEAST_LOADED,
    /** A random replica. */
    RANDOM
  }

  /** Replicas found by resolving a DNS name (a headless Service's). */
  public static class Dns {
    /** DNS name to resolve; every address it has is a replica. */
    private @Nullable String name;

    /** Port every address serves on. */
    private int port = 8000;

    /** URL scheme of the replicas: http or https. */
    private String scheme = "http";

    /** How often the name is resolved again. */
    private Duration interval = Duration.ofSeconds(5);

    /** Every default. */
    public Dns() {}

    /** {@return the DNS name, or null} */
    public @Nullable String getName() {
      return name;
    }

    /**
     * Sets the DNS name, or null.
     *
     * @param name the value
     */
    public void setName(@Nullable String name) {
      this.name = name;
    }

    /** {@return the port} */
    public int getPort() {
      return port;
    }

    /**
     * Sets the port.
     *
     * @param port the value
     */
    public void setPort(int port) {
      this.port = port;
    }

    /** {@return the scheme} */
    public String getScheme() {
      return scheme;
    }

    /**
     * Sets the scheme.
     *
     * @param scheme the value
     */
    public void setScheme(String scheme) {
      this.scheme = scheme;
    }

    /** {@return the resolution interval} */
    public Duration getInterval() {
      return interval;
    }

    /**
     * Sets the resolution interval.
     *
     * @param interval the value
     */
    public void setInterval(Duration interval) {
      this.interval = interval;
    }
  }

  /** Retries of a failed attempt on another replica. */
  public static class Retry {
    /** Attempts per call at most, the first included; 1 turns retries off. */
    private int maxAttempts = 3;

    /** Backoff before the first retry. */
    private Duration initialBackoff = Duration.ofMillis(50);

    /** Longest backoff between attempts. */
    private Duration maxBackoff = Duration.ofSeconds(2);

    /** Every default. */
    public Retry() {}

    /** {@return the most attempts per call} */
    public int getMaxAttempts() {
      return maxAttempts;
    }

    /**
     * Sets the most attempts per call.
     *
     * @param maxAttempts the value
     */
    public void setMaxAttempts(int maxAttempts) {
      this.maxAttempts = maxAttempts;
    }

    /** {@return the first backoff} */
    public Duration getInitialBackoff() {
      return initialBackoff;
    }

    /**
     * Sets the first backoff.
     *
     * @param initialBackoff the value
     */
    public void setInitialBackoff(Duration initialBackoff) {
      this.initialBackoff = initialBackoff;
    }

    /** {@return the longest backoff} */
    public Duration getMaxBackoff() {
      return maxBackoff;
    }

    /**
     * Sets the longest backoff.
     *
     * @param maxBackoff the value
     */
    public void setMaxBackoff(Duration maxBackoff) {
      this.maxBackoff = maxBackoff;
    }
  }

  /** How replicas' own load is learnt. */
  public static class LoadMonitoring {
    /**
     * Whether replicas' /metrics are scraped; off, routing uses this client's in-flight counts.
     */
    private boolean enabled = true;

    /** How often each replica's /metrics is scraped. */
    private Duration scrapeInterval = Duration.ofSeconds(1);

    /** Every default. */
    public LoadMonitoring() {}

    /** {@return whether replicas' /metrics are scraped} */
    public boolean isEnabled() {
      return enabled;
    }

    /**
     * Sets whether replicas' /metrics are scraped.
     *
     * @param enabled the value
     */
    public void setEnabled(boolean enabled) {
      this.enabled = enabled;
    }

    /** {@return the scrape interval} */
    public Duration getScrapeInterval() {
      return scrapeInterval;
    }

    /**
     * Sets the scrape interval.
     *
     * @param scrapeInterval the value
     */
    public void setScrapeInterval(Duration scrapeInterval) {
      this.scrapeInterval = scrapeInterval;
    }
  }

  /** Active health checks. */
  public static class HealthCheck {
    /** Whether each replica's health path is checked; off, only passive ejection applies. */
    private boolean enabled;

    /** Path checked on each replica. */
    private String path = "/health";

    /** How often each replica is checked. */
    private Duration interval = Duration.ofSeconds(5);

    /** Every default. */
    public HealthCheck() {}

    /** {@return whether replicas are checked} */
    public boolean isEnabled() {
      return enabled;
    }

    /**
     * Sets whether replicas are checked.
     *
     * @param enabled the value
     */
    public void setEnabled(boolean enabled) {
      this.enabled = enabled;
    }

    /** {@return the path checked} */
    public String getPath() {
      return path;
    }

    /**
     * Sets the path checked.
     *
     * @param path the value
     */
    public void setPath(String path) {
      this.path = path;
    }

    /** {@return the check interval} */
    public Duration getInterval() {
      return interval;
    }

    /**
     * Sets the check interval.
     *
     * @param interval the value
     */
    public void setInterval(Duration interval) {
      this.interval = interval;
    }
  }

  /** Every default. */
  public LlmRouterProperties() {}

  /** {@return the replicas' base URLs} */
  public List<String> getReplicas() {
    return replicas;
  }

  /**
   * Sets the replicas' base URLs.
   *
   * @param replicas the value
   */
  public void setReplicas(List<String> replicas) {
    this.replicas = replicas;
  }

  /** {@return the API key, or null} */
  public @Nullable String getApiKey() {
    return apiKey;
  }

  /**
   * Sets the API key, or null.
   *
   * @param apiKey the value
   */
  public void setApiKey(@Nullable String apiKey) {
    this.apiKey = apiKey;
  }

  /** {@return the routing policy} */
  public Policy getPolicy() {
    return policy;
  }

  /**
   * Sets the routing policy.
   *
   * @param policy the value
   */
  public void setPolicy(Policy policy) {
    this.policy = policy;
  }

  /** {@return the connect timeout} */
  public Duration getConnectTimeout() {
    return connectTimeout;
  }

  /**
   * Sets the connect timeout.
   *
   * @param connectTimeout the value
   */
  public void setConnectTimeout(Duration connectTimeout) {
    this.connectTimeout = connectTimeout;
  }

  /** {@return the first-byte timeout} */
  public Duration getFirstByteTimeout() {
    return firstByteTimeout;
  }

  /**
   * Sets the first-byte timeout.
   *
   * @param firstByteTimeout the value
   */
  public void setFirstByteTimeout(Duration firstByteTimeout) {
    this.firstByteTimeout = firstByteTimeout;
  }

  /** {@return the stream idle timeout} */
  public Duration getStreamIdleTimeout() {
    return streamIdleTimeout;
  }

  /**
   * Sets the stream idle timeout.
   *
   * @param streamIdleTimeout the value
   */
  public void setStreamIdleTimeout(Duration streamIdleTimeout) {
    this.streamIdleTimeout = streamIdleTimeout;
  }

  /** {@return the stall timeout} */
  public Duration getStallTimeout() {
    return stallTimeout;
  }

  /**
   * Sets the stall timeout.
   *
   * @param stallTimeout the value
   */
  public void setStallTimeout(Duration stallTimeout) {
    this.stallTimeout = stallTimeout;
  }

  /** {@return the call timeout} */
  public Duration getCallTimeout() {
    return callTimeout;
  }

  /**
   * Sets the call timeout.
   *
   * @param callTimeout the value
   */
  public void setCallTimeout(Duration callTimeout) {
    this.callTimeout = callTimeout;
  }

  /** {@return the slow-start window} */
  public Duration getSlowStart() {
    return slowStart;
  }

  /**
   * Sets the slow-start window.
   *
   * @param slowStart the value
   */
  public void setSlowStart(Duration slowStart) {
    this.slowStart = slowStart;
  }

  /** {@return the model discovery interval} */
  public Duration getModelDiscoveryInterval() {
    return modelDiscoveryInterval;
  }

  /**
   * Sets the model discovery interval.
   *
   * @param modelDiscoveryInterval the value
   */
  public void setModelDiscoveryInterval(Duration modelDiscoveryInterval) {
    this.modelDiscoveryInterval = modelDiscoveryInterval;
  }

  /** {@return the most requests in flight} */
  public int getMaxConcurrentRequests() {
    return maxConcurrentRequests;
  }

  /**
   * Sets the most requests in flight.
   *
   * @param maxConcurrentRequests the value
   */
  public void setMaxConcurrentRequests(int maxConcurrentRequests) {
    this.maxConcurrentRequests = maxConcurrentRequests;
  }

  /** {@return the most calls waiting for replicas} */
  public int getMaxWaitingCalls() {
    return maxWaitingCalls;
  }

  /**
   * Sets the most calls waiting for replicas.
   *
   * @param maxWaitingCalls the value
   */
  public void setMaxWaitingCalls(int maxWaitingCalls) {
    this.maxWaitingCalls = maxWaitingCalls;
  }

  /** {@return the most resumptions of a stream} */
  public int getMaxStreamResumptions() {
    return maxStreamResumptions;
  }

  /**
   * Sets the most resumptions of a stream.
   *
   * @param maxStreamResumptions the value
   */
  public void setMaxStreamResumptions(int maxStreamResumptions) {
    this.maxStreamResumptions = maxStreamResumptions;
  }

  /** {@return the dns properties} */
  public Dns getDns() {
    return dns;
  }

  /** {@return the retry properties} */
  public Retry getRetry() {
    return retry;
  }

  /** {@return the loadMonitoring properties} */
  public LoadMonitoring getLoadMonitoring() {
    return loadMonitoring;
  }

  /** {@return the healthCheck properties} */
  public HealthCheck getHealthCheck() {
    return healthCheck;
  }

  /** Never shows the API key. */
  @Override
  public String toString() {
    return "LlmRouterProperties{replicas=" + replicas + ", apiKey="
        + (apiKey == null ? "none" : "<redacted>") + ", policy=" + policy + '}';
  }
}
