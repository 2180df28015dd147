package io.github.llmrouter.replica;

import static java.util.Objects.requireNonNull;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import okhttp3.HttpUrl;
import org.jspecify.annotations.Nullable;

/**
 * One inference server of the fleet: an immutable value.
 *
 * <p>The {@link #id()} is the replica's identity for routing: the consistent-hash ring places a
 * replica by its id alone, so every client that names the same replicas with the same ids ranks
 * every request identically. By default the id is the base URL's {@code host:port}.
 *
 * <pre>{@code
 * Replica a = Replica.of("http://10.0.0.7:8000");
 * Replica b = Replica.builder("http://10.0.0.8:8000")
 *     .weight(2.0)                       // an H100 next to L4s: twice the keys
 *     .header("X-Tenant", "search")
 *     .build();
 * }</pre>
 *
 * <p>{@link #toString()} never shows header values: they may hold credentials.
 */
public final class Replica {
  /** The default weight: {@value}. */
  public static final double DEFAULT_WEIGHT = 1.0;
  /** The largest accepted weight: {@value}. */
  public static final double MAX_WEIGHT = 100.0;

  private final String id;
  private final HttpUrl baseUrl;
  private final double weight;
  private final Map<String, String> headers;
  private final Set<String> models;

  private Replica(Builder b) {
    this.baseUrl = b.baseUrl;
    this.id = b.id != null ? b.id : b.baseUrl.host() + ":" + b.baseUrl.port();
    this.weight = b.weight;
    this.headers = Map.copyOf(b.headers);
    this.models = Set.copyOf(b.models);
  }

  /**
   * A replica with default id and weight at {@code baseUrl}.
   *
   * @param baseUrl an http(s) URL such as {@code http://10.0.0.7:8000}, with or without {@code /v1}
   * @return an immutable replica
   * @throws IllegalArgumentException if {@code baseUrl} is not an http(s) URL
   */
  public static Replica of(String baseUrl) {
    return builder(baseUrl).build();
  }

  /**
   * A builder for a replica at {@code baseUrl}. The URL may end in {@code /v1} or not; request
   * paths such as {@code /v1/chat/completions} are resolved against the server root.
   *
   * @param baseUrl an http(s) URL such as {@code http://10.0.0.7:8000}
   * @return a new builder; not thread-safe
   * @throws IllegalArgumentException if {@code baseUrl} is not an http(s) URL
   */
  public static Builder builder(String baseUrl) {
    return new Builder(baseUrl);
  }

  /**
   * {@return the routing identity: stable across membership changes and identical across clients}
   */
  public String id() {
    return id;
  }

  /**
   * The server root, without a trailing {@code /v1}. OkHttp's {@code HttpUrl} rather than a
   * string: it is parsed and normalised once, when the replica is built, so that no request parses
   * it again; {@code toString()} and {@code uri()} give the JDK forms.
   *
   * @return the parsed root URL
   */
  public HttpUrl baseUrl() {
    return baseUrl;
  }

  /** {@return the share of keys relative to other replicas (1.0 = one unit: 256 ring points)} */
  public double weight() {
    return weight;
  }

  /** {@return the headers sent with every request to this replica, besides the client's own} */
  public Map<String, String> headers() {
    return headers;
  }

  /**
   * The models this replica serves; empty means "whatever it is asked for". Informational in this
   * version: routing does not filter on it yet.
   *
   * @return the model names; immutable, possibly empty
   */
  public Set<String> models() {
    return models;
  }

  /** {@return a builder initialised from this replica} */
  public Builder toBuilder() {
    Builder b = new Builder(baseUrl.toString());
    b.id = id;
    b.weight = weight;
    b.headers.putAll(headers);
    b.models.addAll(models);
    return b;
  }

  @Override
  public boolean equals(Object o) {
    if (this == o) return true;
    if (!(o instanceof Replica)) return false;
    Replica r = (Replica) o;
    return id.equals(r.id) && baseUrl.equals(r.baseUrl) && weight == r.weight
        && headers.equals(r.headers) && models.equals(r.models);
  }

  @Override
  public int hashCode() {
    return id.hashCode() * 31 + baseUrl.hashCode();
  }

  @Override
  public String toString() {
    StringBuilder s = new StringBuilder("Replica{id=").append(id).append(", url=").append(baseUrl);
    if (weight != DEFAULT_WEIGHT) s.append(", weight=").append(weight);
    if (!headers.isEmpty()) s.append(", headers=").append(new TreeSet<>(headers.keySet()));
    if (!models.isEmpty()) s.append(", models=").append(new TreeSet<>(models));
    return s.append('}').toString();
  }

  /** Builds a {@link Replica}. Not thread-safe. */
  public static final class Builder {
    private final HttpUrl baseUrl;
    private @Nullable String id;
    private double weight = DEFAULT_WEIGHT;
    private final Map<String, String> headers = new LinkedHashMap<>();
    private final Set<String> models = new TreeSet<>();

    private Builder(String baseUrl) {
      requireNonNull(baseUrl, "baseUrl");
      HttpUrl parsed = HttpUrl.parse(baseUrl);
      if (parsed == null) {
        throw new IllegalArgumentException("replica baseUrl must be an http:// or https:// URL, got '"
            + baseUrl + "'");
      }
      this.baseUrl = stripV1(parsed);
    }

    /**
     * The routing identity; default {@code host:port} of the base URL.
     *
     * @param id the id; not null
     * @return this builder
     */
    public Builder id(String id) {
      requireNonNull(id, "id");
      if (id.isBlank()) throw new IllegalArgumentException("replica id must not be blank");
      this.id = id;
      return this;
    }

    /**
     * The share of keys, in (0, {@value #MAX_WEIGHT}]; default {@value #DEFAULT_WEIGHT}.
     *
     * @param weight the weight
     * @return this builder
     * @throws IllegalArgumentException if {@code weight} is out of range
     */
    public Builder weight(double weight) {
      if (!(weight > 0 && weight <= MAX_WEIGHT)) {
        throw new IllegalArgumentException("replica weight must be in (0, " + MAX_WEIGHT + "], got "
            + weight);
      }
      this.weight = weight;
      return this;
    }

    /**
     * Adds a header sent with every request to this replica.
     *
     * @param name the name; not null
     * @param value the value; not null
     * @return this builder
     */
    public Builder header(String name, String value) {
      requireNonNull(name, "name");
      requireNonNull(value, "value");
      headers.put(name, value);
      return this;
    }

    /**
     * Adds a model name this replica serves.
     *
     * @param model the model; not null
     * @return this builder
     */
    public Builder model(String model) {
      models.add(requireNonNull(model, "model"));
      return this;
    }

    /** {@return an immutable replica with this builder's settings} */
    public Replica build() {
      return new Replica(this);
    }

    private static HttpUrl stripV1(HttpUrl url) {
      HttpUrl.Builder b = url.newBuilder().query(null).fragment(null);
      var segments = url.pathSegments();
      int n = segments.size();
      while (n > 0 && (segments.get(n - 1).isEmpty() || segments.get(n - 1).equals("v1"))) {
        b.removePathSegment(n - 1);
        n--;
      }
      return b.build();
    }
  }
}
