package io.github.llmrouter.load;

import static java.util.Objects.requireNonNull;

import java.time.Duration;
import java.util.Locale;
import org.jspecify.annotations.Nullable;

/**
 * How a client learns the replicas' own load: by scraping their Prometheus {@code /metrics} on an
 * interval, and from headers on their responses. Immutable; see {@link Builder} for every knob.
 *
 * <pre>{@code
 * LlmClient.builder()
 *     .replicas(...)
 *     .loadMonitoring(LoadMonitoring.builder()
 *         .scrapeInterval(Duration.ofMillis(500))
 *         .dialect(EngineDialect.SGLANG)
 *         .build())
 *     .build();
 * }</pre>
 *
 * <p>Scraping runs on its own daemon thread, never on the request path, with its own short
 * timeout; a replica whose {@code /metrics} fails is not declared down, its report just ages
 * until it is ignored (after {@link Builder#staleAfter(Duration) staleAfter}) and routing falls
 * back to this client's in-flight counts for it.
 *
 * @since 0.2.0
 */
public final class LoadMonitoring {
  /** Default scrape interval: 1 s. */
  public static final Duration DEFAULT_SCRAPE_INTERVAL = Duration.ofSeconds(1);
  /** Default scrape timeout: 500 ms. */
  public static final Duration DEFAULT_SCRAPE_TIMEOUT = Duration.ofMillis(500);
  /** Default scrape jitter, a fraction of the interval either way: {@value}. */
  public static final double DEFAULT_SCRAPE_JITTER = 0.2;
  /** Default metrics path: {@value}. */
  public static final String DEFAULT_METRICS_PATH = "/metrics";
  /** A report is stale after this many scrape intervals by default: {@value}. */
  public static final int DEFAULT_STALE_INTERVALS = 3;
  /** How long a report from a response header stays fresh when nothing is scraped. */
  private static final Duration STALE_AFTER_WITHOUT_SCRAPING = Duration.ofSeconds(3);

  private final Duration scrapeInterval;
  private final Duration scrapeTimeout;
  private final double scrapeJitter;
  private final String metricsPath;
  private final Duration staleAfter;
  private final EngineDialect dialect;
  private final @Nullable String modelName;
  private final boolean loadMetricsHeader;
  private final @Nullable String queueHeader;

  private LoadMonitoring(Builder b, Duration staleAfter) {
    this.scrapeInterval = b.scrapeInterval;
    this.scrapeTimeout = b.scrapeTimeout;
    this.scrapeJitter = b.scrapeJitter;
    this.metricsPath = b.metricsPath;
    this.staleAfter = staleAfter;
    this.dialect = b.dialect;
    this.modelName = b.modelName;
    this.loadMetricsHeader = b.loadMetricsHeader;
    this.queueHeader = b.queueHeader;
  }

  /**
   * {@return the defaults: scraping every second, {@code endpoint-load-metrics} requested and read}
   */
  public static LoadMonitoring defaults() {
    return builder().build();
  }

  /** {@return a configuration without scraping or load headers, so that routing sees only this
   * client's in-flight counts} */
  public static LoadMonitoring disabled() {
    return builder().scrapeInterval(Duration.ZERO).loadMetricsHeader(false).build();
  }

  /** {@return a new builder holding every default; not thread-safe} */
  public static Builder builder() {
    return new Builder();
  }

  /** {@return the scrape interval; zero when scraping is off} */
  public Duration scrapeInterval() {
    return scrapeInterval;
  }

  /** {@return whether {@code /metrics} is scraped} */
  public boolean scraping() {
    return !scrapeInterval.isZero();
  }

  /** {@return the scrape timeout, as set by {@link Builder#scrapeTimeout}} */
  public Duration scrapeTimeout() {
    return scrapeTimeout;
  }

  /** {@return the scrape jitter, as set by {@link Builder#scrapeJitter}} */
  public double scrapeJitter() {
    return scrapeJitter;
  }

  /** {@return the metrics path, as set by {@link Builder#metricsPath}} */
  public String metricsPath() {
    return metricsPath;
  }

  /** {@return the age beyond which a report is ignored} */
  public Duration staleAfter() {
    return staleAfter;
  }

  /** {@return the dialect, as set by {@link Builder#dialect}} */
  public EngineDialect dialect() {
    return dialect;
  }

  /**
   * {@return the {@code model_name} label value that series must carry to count, or null for all}
   */
  public @Nullable String modelName() {
    return modelName;
  }

  /**
   * {@return whether requests ask for, and responses are read for, {@code endpoint-load-metrics}}
   */
  public boolean loadMetricsHeader() {
    return loadMetricsHeader;
  }

  /** {@return a response header whose value is the replica's queue depth, or null} */
  public @Nullable String queueHeader() {
    return queueHeader;
  }

  @Override
  public String toString() {
    return "LoadMonitoring{scrapeInterval=" + scrapeInterval + ", scrapeTimeout=" + scrapeTimeout
        + ", jitter=" + scrapeJitter + ", path=" + metricsPath + ", staleAfter=" + staleAfter
        + ", dialect=" + dialect.name() + ", loadMetricsHeader=" + loadMetricsHeader
        + (queueHeader == null ? "" : ", queueHeader=" + queueHeader) + '}';
  }

  /** Builds {@link LoadMonitoring}. Setters record; {@link #build()} validates. Not thread-safe. */
  public static final class Builder {
    private Duration scrapeInterval = DEFAULT_SCRAPE_INTERVAL;
    private Duration scrapeTimeout = DEFAULT_SCRAPE_TIMEOUT;
    private double scrapeJitter = DEFAULT_SCRAPE_JITTER;
    private String metricsPath = DEFAULT_METRICS_PATH;
    private @Nullable Duration staleAfter;
    private EngineDialect dialect = EngineDialect.AUTO;
    private @Nullable String modelName;
    private boolean loadMetricsHeader = true;
    private @Nullable String queueHeader;

    private Builder() {}

    /**
     * How often each replica's {@code /metrics} is scraped, in [100 ms, 5 min], or {@link
     * Duration#ZERO} for no scraping; default 1 s.
     *
     * @param scrapeInterval the scrape interval; not null
     * @return this builder
     */
    public Builder scrapeInterval(Duration scrapeInterval) {
      this.scrapeInterval = requireNonNull(scrapeInterval, "scrapeInterval");
      return this;
    }

    /**
     * The timeout of one scrape, in (0, scrapeInterval]; default 500 ms.
     *
     * @param scrapeTimeout the scrape timeout; not null
     * @return this builder
     */
    public Builder scrapeTimeout(Duration scrapeTimeout) {
      this.scrapeTimeout = requireNonNull(scrapeTimeout, "scrapeTimeout");
      return this;
    }

    /**
     * Random spread of each interval, as a fraction either way, in [0, 0.5]; default {@value
     * #DEFAULT_SCRAPE_JITTER}. Keeps many clients from scraping a fleet in lockstep.
     *
     * @param scrapeJitter the scrape jitter, checked at {@link #build()}
     * @return this builder
     */
    public Builder scrapeJitter(double scrapeJitter) {
      this.scrapeJitter = scrapeJitter;
      return this;
    }

    /**
     * The metrics path, resolved against each replica's base URL; default {@value
     * #DEFAULT_METRICS_PATH}.
     *
     * @param metricsPath the metrics path; not null
     * @return this builder
     */
    public Builder metricsPath(String metricsPath) {
      this.metricsPath = requireNonNull(metricsPath, "metricsPath");
      return this;
    }

    /**
     * The age beyond which a report is ignored, in (0, 1 h]; default {@value
     * #DEFAULT_STALE_INTERVALS} × the scrape interval, or 3 s when scraping is off (header
     * reports only).
     *
     * @param staleAfter the stale after; not null
     * @return this builder
     */
    public Builder staleAfter(Duration staleAfter) {
      this.staleAfter = requireNonNull(staleAfter, "staleAfter");
      return this;
    }

    /**
     * The engine's metric names; default {@link EngineDialect#AUTO}.
     *
     * @param dialect the dialect; not null
     * @return this builder
     */
    public Builder dialect(EngineDialect dialect) {
      this.dialect = requireNonNull(dialect, "dialect");
      return this;
    }

    /**
     * Count only series with this {@code model_name} label; default all series.
     *
     * @param modelName the model name; not null
     * @return this builder
     */
    public Builder modelName(String modelName) {
      this.modelName = requireNonNull(modelName, "modelName");
      return this;
    }

    /**
     * Whether to send {@code endpoint-load-metrics-format: TEXT} with every request and read the
     * {@code endpoint-load-metrics} response header (vLLM's ORCA reports); default true.
     *
     * @param loadMetricsHeader the load metrics header, checked at {@link #build()}
     * @return this builder
     */
    public Builder loadMetricsHeader(boolean loadMetricsHeader) {
      this.loadMetricsHeader = loadMetricsHeader;
      return this;
    }

    /**
     * A response header carrying the replica's queue depth as a number; default none.
     *
     * @param queueHeader the queue header; not null
     * @return this builder
     */
    public Builder queueHeader(String queueHeader) {
      this.queueHeader = requireNonNull(queueHeader, "queueHeader");
      return this;
    }

    /**
     * Validates every setting and builds the LoadMonitoring.
     *
     * @return an immutable, thread-safe {@code LoadMonitoring}
     * @throws IllegalArgumentException naming the first knob out of range
     */
    public LoadMonitoring build() {
      boolean off = scrapeInterval.isZero();
      if (!off && (scrapeInterval.compareTo(Duration.ofMillis(100)) < 0
          || scrapeInterval.compareTo(Duration.ofMinutes(5)) > 0)) {
        throw new IllegalArgumentException(
            "LoadMonitoring.scrapeInterval must be 0 or in [100 ms, 5 min], got " + scrapeInterval);
      }
      if (scrapeTimeout.isNegative() || scrapeTimeout.isZero()
          || (!off && scrapeTimeout.compareTo(scrapeInterval) > 0)) {
        throw new IllegalArgumentException(
            "LoadMonitoring.scrapeTimeout must be in (0, scrapeInterval], got " + scrapeTimeout);
      }
      if (!(scrapeJitter >= 0 && scrapeJitter <= 0.5)) {
        throw new IllegalArgumentException("LoadMonitoring.scrapeJitter must be in [0, 0.5], got "
            + scrapeJitter);
      }
      if (!metricsPath.startsWith("/")) {
        throw new IllegalArgumentException("LoadMonitoring.metricsPath must start with '/', got "
            + metricsPath);
      }
      Duration stale = staleAfter != null ? staleAfter
          : off ? STALE_AFTER_WITHOUT_SCRAPING
          : scrapeInterval.multipliedBy(DEFAULT_STALE_INTERVALS);
      if (stale.isNegative() || stale.isZero() || stale.compareTo(Duration.ofHours(1)) > 0) {
        throw new IllegalArgumentException("LoadMonitoring.staleAfter must be in (0, 1 h], got "
            + stale);
      }
      if (queueHeader != null && (queueHeader.isBlank()
          || !queueHeader.chars().allMatch(c -> c > 32 && c < 127 && c != ':'))) {
        throw new IllegalArgumentException(
            "LoadMonitoring.queueHeader must be a header name (visible ASCII, no ':'), got '"
                + queueHeader + "'");
      }
      if (queueHeader != null) queueHeader = queueHeader.toLowerCase(Locale.ROOT);
      return new LoadMonitoring(this, stale);
    }
  }
}
