package io.github.llmrouter.replica;

import static java.util.Objects.requireNonNull;

import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeMap;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;

/**
 * Resolves the fleet from DNS: every A and AAAA record of a name, such as a Kubernetes headless
 * Service (which has one record per ready pod), re-resolved on an interval.
 *
 * <pre>{@code
 * LlmClient client = LlmClient.builder()
 *     .resolver(DnsResolver.builder("vllm.inference.svc.cluster.local", 8000).build())
 *     .build();
 * }</pre>
 *
 * <p>Each address becomes a replica {@code http://ADDRESS:PORT} with id {@code ADDRESS:PORT}
 * (the same id a static {@code Replica.of("http://ADDRESS:PORT")} gets, so switching from a
 * static list keeps the ring). Lookups bypass the JVM's address cache by default (see {@link
 * AddressLookup#uncached()}). A failed lookup keeps the last good answer, reports a {@code
 * ResolverErrorEvent} and retries after a backoff that doubles from the interval up to {@link
 * Builder#maxBackoff}; an answer with no address is treated as a failure too, so a DNS hiccup
 * never empties the fleet.
 *
 * @since 0.2.0
 */
public final class DnsResolver implements ReplicaResolver {
  /** Default re-resolution interval: 5 s. */
  public static final Duration DEFAULT_INTERVAL = Duration.ofSeconds(5);
  /** Default longest wait between retries after repeated failures: 60 s. */
  public static final Duration DEFAULT_MAX_BACKOFF = Duration.ofSeconds(60);
  /** Default URL scheme of the replicas: {@value}. */
  public static final String DEFAULT_SCHEME = "http";

  private final String host;
  private final int port;
  private final String scheme;
  private final long intervalNanos;
  private final long maxBackoffNanos;
  private final AddressLookup lookup;
  private final Object lock = new Object();
  private @Nullable Context context; // guarded by lock
  private @Nullable ScheduledFuture<?> next; // guarded by lock
  private boolean closed; // guarded by lock
  private int failures; // confined to the scheduler thread

  private DnsResolver(Builder b) {
    this.host = b.host;
    this.port = b.port;
    this.scheme = b.scheme;
    this.intervalNanos = b.interval.toNanos();
    this.maxBackoffNanos = b.maxBackoff.toNanos();
    this.lookup = b.lookup;
  }

  /**
   * A builder for the addresses of {@code host}, each serving on {@code port}.
   *
   * @param host a DNS name (a headless Service's, typically); not null
   * @param port the port every address serves on
   * @return a new builder holding every other default; not thread-safe
   */
  public static Builder builder(String host, int port) {
    return new Builder(host, port);
  }

  @Override
  public void start(Context context) {
    synchronized (lock) {
      if (this.context != null) throw new IllegalStateException(name() + " already started");
      this.context = context;
    }
    schedule(0);
  }

  /** Resolves once, publishes on success, and schedules the next resolution. */
  void resolveNow() {
    Context c;
    synchronized (lock) {
      c = context;
      if (c == null || closed) return;
    }
    long delay = intervalNanos;
    try {
      List<InetAddress> addresses = lookup.lookup(host);
      if (addresses == null || addresses.isEmpty()) {
        throw new UnknownHostException(host + " has no address");
      }
      c.publish(toReplicas(addresses));
      failures = 0;
    } catch (UnknownHostException | RuntimeException e) {
      failures++;
      // interval, 2×, 4×, ... up to maxBackoff: a struggling DNS server is not hammered.
      delay = Math.min(maxBackoffNanos, intervalNanos << Math.min(failures - 1, 20));
      c.failed(e);
    }
    schedule(delay);
  }

  private void schedule(long delayNanos) {
    synchronized (lock) {
      if (closed || context == null) return;
      try {
        next = context.scheduler().schedule(this::resolveNow, delayNanos, TimeUnit.NANOSECONDS);
      } catch (RejectedExecutionException shutDown) {
        closed = true;
      }
    }
  }

  private ReplicaSet toReplicas(List<InetAddress> addresses) {
    // Sorted by id so that equal answers in another order make equal snapshots.
    TreeMap<String, Replica> byId = new TreeMap<>();
    for (InetAddress a : addresses) {
      String literal = a.getHostAddress();
      int zone = literal.indexOf('%');
      if (zone >= 0) literal = literal.substring(0, zone);
      String hostPart = a instanceof Inet6Address ? "[" + literal + "]" : literal;
      Replica r = Replica.of(scheme + "://" + hostPart + ":" + port);
      byId.putIfAbsent(r.id(), r);
    }
    return ReplicaSet.of(new ArrayList<>(byId.values()));
  }

  /** The lookup in use: {@link AddressLookup#uncached()} unless the builder set another. */
  AddressLookup lookup() {
    return lookup;
  }

  @Override
  public void close() {
    synchronized (lock) {
      closed = true;
      if (next != null) next.cancel(false);
    }
  }

  @Override
  public String name() {
    return "DnsResolver: " + host + ":" + port;
  }

  @Override
  public String toString() {
    return name();
  }

  /** Builds a {@link DnsResolver}; {@link #build()} validates. Not thread-safe. */
  public static final class Builder {
    private final String host;
    private final int port;
    private String scheme = DEFAULT_SCHEME;
    private Duration interval = DEFAULT_INTERVAL;
    private Duration maxBackoff = DEFAULT_MAX_BACKOFF;
    private AddressLookup lookup = AddressLookup.uncached();

    private Builder(String host, int port) {
      this.host = requireNonNull(host, "host");
      this.port = port;
    }

    /**
     * {@code http} or {@code https}; default {@value #DEFAULT_SCHEME}.
     *
     * @param scheme the scheme; not null
     * @return this builder
     */
    public Builder scheme(String scheme) {
      this.scheme = requireNonNull(scheme, "scheme");
      return this;
    }

    /**
     * How often to re-resolve, in [100 ms, 1 h]; default 5 s.
     *
     * @param interval the interval; not null
     * @return this builder
     */
    public Builder interval(Duration interval) {
      this.interval = requireNonNull(interval, "interval");
      return this;
    }

    /**
     * The longest wait between retries after repeated failures, in [interval, 1 h]; default 60 s.
     *
     * @param maxBackoff the max backoff; not null
     * @return this builder
     */
    public Builder maxBackoff(Duration maxBackoff) {
      this.maxBackoff = requireNonNull(maxBackoff, "maxBackoff");
      return this;
    }

    /**
     * How names become addresses; default {@link AddressLookup#uncached()}.
     *
     * @param lookup the lookup; not null
     * @return this builder
     */
    public Builder lookup(AddressLookup lookup) {
      this.lookup = requireNonNull(lookup, "lookup");
      return this;
    }

    /**
     * Validates every setting and builds the DnsResolver.
     *
     * @return an immutable, thread-safe {@code DnsResolver}
     * @throws IllegalArgumentException naming the first knob out of range
     */
    public DnsResolver build() {
      if (host.isBlank()) throw new IllegalArgumentException("DnsResolver.host must not be blank");
      if (port < 1 || port > 65_535) {
        throw new IllegalArgumentException("DnsResolver.port must be in [1, 65535], got " + port);
      }
      if (!scheme.equals("http") && !scheme.equals("https")) {
        throw new IllegalArgumentException("DnsResolver.scheme must be http or https, got " + scheme);
      }
      if (interval.compareTo(Duration.ofMillis(100)) < 0 || interval.compareTo(Duration.ofHours(1)) > 0) {
        throw new IllegalArgumentException("DnsResolver.interval must be in [100 ms, 1 h], got "
            + interval);
      }
      if (maxBackoff.compareTo(interval) < 0 || maxBackoff.compareTo(Duration.ofHours(1)) > 0) {
        throw new IllegalArgumentException("DnsResolver.maxBackoff must be in [interval, 1 h], got "
            + maxBackoff);
      }
      return new DnsResolver(this);
    }
  }
}
