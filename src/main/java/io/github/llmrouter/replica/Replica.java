package io.github.llmrouter.replica;

import static java.util.Objects.requireNonNull;

import io.github.llmrouter.internal.util.HeaderFields;
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
 * every request identically. By default the id is the base URL's {@code host:port}, followed by
 * its path prefix if it has one ({@code gw:80/team-a/vllm}).
 *
 * <p>The base URL may carry a path prefix, as a gateway in front of several servers needs: {@code
 * http://gw/team-a/vllm/v1} sends chat requests to {@code /team-a/vllm/v1/chat/completions},
 * metrics scrapes to {@code /team-a/vllm/metrics} and health checks to {@code
 * /team-a/vllm/health}. It must not carry credentials ({@code user:password@host}), a query or a
 * fragment: send credentials as a {@linkplain Builder#header header} or with {@code
 * LlmClientBuilder.apiKey}.
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
 *
 * @since 0.2.0
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
  /**
   * The last path resolved by {@link #url}, with its URL: a client's calls mostly go to one path,
   * and resolving it again costs a URL parse per call. Not part of the value.
   */
  private volatile @Nullable ResolvedPath lastResolved;

  private Replica(Builder b) {
    this.baseUrl = b.baseUrl;
    this.id = b.id != null ? b.id : defaultId(b.baseUrl);
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
   * A builder for a replica at {@code baseUrl}. The URL may end in {@code /v1} or not, and may
   * carry a path prefix, which is kept in every request: see {@link #url(String)}.
   *
   * @param baseUrl an http(s) URL such as {@code http://10.0.0.7:8000} or {@code
   *     http://gw/team-a/vllm/v1}
   * @return a builder with the default id and weight
   * @throws IllegalArgumentException if {@code baseUrl} is not an http(s) URL, or carries
   *     credentials, a query or a fragment (the message never shows credentials)
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
   * The server root with its path prefix.
   *
   * @return the base URL with its path prefix, if any, and without a trailing {@code /v1}: {@code
   *     http://10.0.0.7:8000/} or {@code http://gw/team-a/vllm}
   */
  public HttpUrl baseUrl() {
    return baseUrl;
  }

  /**
   * The URL of {@code path} on this replica: the base URL's path prefix followed by {@code path}.
   * For {@code http://gw/team-a/vllm/v1}, {@code url("/v1/chat/completions")} is {@code
   * http://gw/team-a/vllm/v1/chat/completions} and {@code url("/metrics")} is {@code
   * http://gw/team-a/vllm/metrics}.
   *
   * <p>Cheap when called again with the path of the previous call (it is remembered); thread-safe.
   *
   * @param path an absolute path, starting with {@code /}; may end with a query
   * @return the URL on this replica
   * @throws IllegalArgumentException if {@code path} does not start with {@code /}
   */
  public HttpUrl url(String path) {
    requireNonNull(path, "path");
    ResolvedPath last = lastResolved;
    if (last != null && last.path().equals(path)) return last.url();
    if (!path.startsWith("/")) {
      throw new IllegalArgumentException("path must start with '/', got '" + path + "'");
    }
    String prefix = baseUrl.encodedPath();
    if (prefix.endsWith("/")) prefix = prefix.substring(0, prefix.length() - 1);
    HttpUrl url = baseUrl.resolve(prefix + path);
    if (url == null) throw new IllegalArgumentException("path is not a valid URL path: " + path);
    lastResolved = new ResolvedPath(path, url);
    return url;
  }

  /** A path and its URL on this replica. */
  private record ResolvedPath(String path, HttpUrl url) {}

  /** {@return the share of keys relative to other replicas (1.0 = one unit: 256 ring points)} */
  public double weight() {
    return weight;
  }

  /** {@return the headers sent with every request to this replica, besides the client's own} */
  public Map<String, String> headers() {
    return headers;
  }

  /**
   * The models this replica serves; empty means that it declares none (the client may then ask
   * it, see {@code LlmClientBuilder.modelDiscoveryInterval}). A request for a model that some
   * replica declares or lists goes only to those (never to another, not even when none is
   * eligible); a model the fleet served before and no replica serves now is waited for within
   * the call's deadline; a request that no replica may serve fails with {@code
   * NoReplicaAvailableException} naming the model.
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
      HttpUrl parsed = HttpUrl.parse(baseUrl.strip());
      if (parsed == null) {
        throw new IllegalArgumentException("replica baseUrl must be an http:// or https:// URL, got '"
            + redactUserinfo(baseUrl) + "'");
      }
      if (!parsed.encodedUsername().isEmpty() || !parsed.encodedPassword().isEmpty()) {
        throw new IllegalArgumentException("replica baseUrl must not carry credentials, got '"
            + redactUserinfo(baseUrl) + "': send them as a header, Replica.builder(url)"
            + ".header(\"Authorization\", ...), or with LlmClientBuilder.apiKey");
      }
      if (parsed.encodedQuery() != null || parsed.encodedFragment() != null) {
        throw new IllegalArgumentException("replica baseUrl must not have a query or a fragment, "
            + "got '" + parsed.newBuilder().query(null).fragment(null).build()
            + "' with one: put parameters in headers");
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
     * Adds a header sent with every request, metrics scrape and health check of this replica.
     * {@link #build()} checks the name and value against RFC 9110: a value read from a file with its trailing newline, for instance, fails there, with a
     * message that names the header but never shows its value.
     *
     * @param name the header's name
     * @param value its value
     * @return this builder
     */
    public Builder header(String name, String value) {
      requireNonNull(name, "name");
      requireNonNull(value, "value");
      headers.put(name, value);
      return this;
    }

    /**
     * Adds a model name this replica serves; requests for other models then never reach it (see
     * {@link Replica#models()}).
     *
     * @param model the model; not null
     * @return this builder
     */
    public Builder model(String model) {
      models.add(requireNonNull(model, "model"));
      return this;
    }

    /**
     * The replica.
     *
     * @return an immutable replica
     * @throws IllegalArgumentException if a header name or value is invalid (the message names
     *     the replica and the header, never the value)
     */
    public Replica build() {
      String where = "replica " + (id != null ? id : defaultId(baseUrl));
      for (Map.Entry<String, String> h : headers.entrySet()) {
        HeaderFields.checkName(h.getKey(), where);
        HeaderFields.checkValue(h.getKey(), h.getValue(), where);
      }
      return new Replica(this);
    }

    private static HttpUrl stripV1(HttpUrl url) {
      HttpUrl.Builder b = url.newBuilder();
      var segments = url.pathSegments();
      int n = segments.size();
      while (n > 0 && (segments.get(n - 1).isEmpty() || segments.get(n - 1).equals("v1"))) {
        b.removePathSegment(n - 1);
        n--;
      }
      return b.build();
    }
  }

  /** {@code host:port}, followed by the path prefix when there is one. */
  private static String defaultId(HttpUrl baseUrl) {
    String id = baseUrl.host() + ":" + baseUrl.port();
    String path = baseUrl.encodedPath();
    if (path.endsWith("/")) path = path.substring(0, path.length() - 1);
    return path.isEmpty() ? id : id + path;
  }

  /**
   * {@code url} with whatever precedes an {@code @} in its authority replaced, for messages about
   * URLs that may carry credentials (including URLs too broken to parse).
   */
  static String redactUserinfo(String url) {
    // The last '@' anywhere: a password may hold '/', '?' or '#' in a URL too broken to parse.
    // A path holding '@' is redacted too; better too much than a leak.
    int start = url.indexOf("://");
    start = start < 0 ? 0 : start + 3;
    int at = url.lastIndexOf('@');
    if (at < start) return url;
    return url.substring(0, start) + "<redacted>" + url.substring(at);
  }
}
