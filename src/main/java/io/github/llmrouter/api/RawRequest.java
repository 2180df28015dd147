package io.github.llmrouter.api;

import static java.util.Objects.requireNonNull;

import io.github.llmrouter.internal.util.HeaderFields;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.jspecify.annotations.Nullable;

/**
 * Any OpenAI-compatible HTTP request, sent through {@code LlmClient.send} with the same routing,
 * retries and failover as the typed calls: a method, a path under each replica's base URL, headers
 * and a body. This is what SDK adapters (openai-java, LangChain4j) send, and what an application
 * uses for an operation the typed calls do not cover (the Responses API, a server's own
 * extensions).
 *
 * <p>The path includes the API version, as the server serves it: {@code /v1/chat/completions},
 * {@code /v1/responses}, {@code /v1/embeddings}, with a query string if any. A JSON body is read
 * once, when the call starts, for what routing needs (its {@code model}; its {@code messages},
 * {@code input}, {@code instructions} or {@code prompt} as the prompt; whether it asks for a
 * {@code stream}); the bytes are sent as they are.
 *
 * <p>Headers are sent as given, except those the HTTP layer owns ({@code Host}, {@code
 * Content-Length}, {@code Connection}, {@code Transfer-Encoding}, {@code Accept-Encoding}),
 * which are dropped. The client's own headers take precedence: its API key's {@code
 * Authorization}, then each replica's configured headers.
 *
 * <pre>{@code
 * RawRequest request = RawRequest.post("/v1/responses", json).routingKey(sessionId).build();
 * try (RawResponse response = client.send(request)) {
 *   byte[] answer = response.bodyBytes();
 * }
 * }</pre>
 *
 * <p>Immutable and thread-safe; {@link #toString()} shows neither header values nor the body.
 *
 * @since 0.3.0
 */
public final class RawRequest {
  /** The headers the HTTP layer sets itself: dropped from a raw request. */
  private static final Set<String> OWNED_HEADERS = Set.of("host", "content-length", "connection",
      "transfer-encoding", "accept-encoding", "keep-alive", "upgrade", "te", "trailer",
      "proxy-connection");
  private static final byte[] NO_BODY = new byte[0];

  private final String method;
  private final String path;
  /** By name, case-insensitive, in the order given. */
  private final Map<String, List<String>> headers;
  private final byte[] body;
  private final @Nullable String contentType;
  private final @Nullable String routingKey;
  private final boolean hedgeable;

  private RawRequest(Builder b) {
    this.method = b.method;
    this.path = b.path;
    Map<String, List<String>> map = new TreeMap<>(String.CASE_INSENSITIVE_ORDER);
    for (int i = 0; i < b.headers.size(); i += 2) {
      map.computeIfAbsent(b.headers.get(i), n -> new ArrayList<>()).add(b.headers.get(i + 1));
    }
    map.replaceAll((n, v) -> List.copyOf(v));
    this.headers = Collections.unmodifiableMap(map);
    this.body = b.body;
    this.contentType = b.contentType;
    this.routingKey = b.routingKey;
    this.hedgeable = b.hedgeable;
  }

  /**
   * Starts a {@code POST} of a JSON body.
   *
   * @param path the path under each replica's base URL, starting with {@code /}, e.g. {@code
   *     /v1/chat/completions}
   * @param json the body, UTF-8 JSON; not copied, so do not change it afterwards
   * @return a builder
   */
  public static Builder post(String path, byte[] json) {
    return builder("POST", path).body(json, "application/json");
  }

  /**
   * Starts a request.
   *
   * @param method the HTTP method, e.g. {@code GET}, {@code POST}, {@code DELETE}
   * @param path the path under each replica's base URL, starting with {@code /}, with a query
   *     string if any
   * @return a builder
   * @throws IllegalArgumentException if the method is not a token or the path does not start
   *     with {@code /}
   */
  public static Builder builder(String method, String path) {
    return new Builder(method, path);
  }

  /** {@return the HTTP method, in upper case} */
  public String method() {
    return method;
  }

  /** {@return the path under each replica's base URL, with its query string if any} */
  public String path() {
    return path;
  }

  /**
   * {@return the headers to send, by name (case-insensitive), in the order given; unmodifiable}
   */
  public Map<String, List<String>> headers() {
    return headers;
  }

  /**
   * {@return the body's bytes, empty if there is no body} The array itself, not a copy (bodies
   * of long prompts are large): do not modify it.
   */
  public byte[] body() {
    return body;
  }

  /** {@return the body's media type, or null if the request has no body} */
  public @Nullable String contentType() {
    return contentType;
  }

  /** {@return whether the body is JSON, the only kind read for routing} */
  public boolean jsonBody() {
    return contentType != null
        && contentType.toLowerCase(Locale.ROOT).startsWith("application/json");
  }

  /** {@return the affinity key (a session or conversation id) set for routing, or null} */
  public @Nullable String routingKey() {
    return routingKey;
  }

  /**
   * {@return whether the client may hedge this request (send it to a second replica while the
   * first is slow); true unless the builder said otherwise; never sent; a hedge goes only to the paths of chat,
   * completions and embeddings}
   */
  public boolean hedgeable() {
    return hedgeable;
  }

  @Override
  public String toString() {
    return "RawRequest{" + method + ' ' + path + ", headers=" + headers.size() + ", body="
        + body.length + " bytes}";
  }

  /**
   * Builds a {@link RawRequest}. Every setter checks its argument at once; no message shows a
   * header value. Not thread-safe.
   */
  public static final class Builder {
    private final String method;
    private final String path;
    private final List<String> headers = new ArrayList<>();
    private byte[] body = NO_BODY;
    private @Nullable String contentType;
    private @Nullable String routingKey;
    private boolean hedgeable = true;

    private Builder(String method, String path) {
      requireNonNull(method, "method");
      requireNonNull(path, "path");
      HeaderFields.checkName(method, "RawRequest method"); // a method is a token too
      this.method = method.toUpperCase(Locale.ROOT);
      if (!path.startsWith("/")) {
        throw new IllegalArgumentException("RawRequest path must start with '/'");
      }
      for (int i = 0; i < path.length(); i++) {
        char c = path.charAt(i);
        if (c <= 0x20 || c >= 0x7F) {
          throw new IllegalArgumentException("RawRequest path has a space, control or non-ASCII "
              + "character at index " + i + " (percent-encode it)");
        }
      }
      this.path = path;
    }

    /**
     * Adds a header; one the HTTP layer owns ({@code Host}, {@code Content-Length}, ...) is
     * dropped.
     *
     * @param name the name, a token
     * @param value the value, RFC 9110 field syntax; never shown in a message
     * @return this builder
     * @throws IllegalArgumentException naming the header if either is invalid
     */
    public Builder header(String name, String value) {
      HeaderFields.checkName(name, "RawRequest");
      HeaderFields.checkValue(name, value, "RawRequest");
      if (OWNED_HEADERS.contains(name.toLowerCase(Locale.ROOT))) return this;
      if (name.equalsIgnoreCase("Content-Type")) {
        contentType = value;
        return this;
      }
      headers.add(name);
      headers.add(value);
      return this;
    }

    /**
     * Sets the body.
     *
     * @param body the bytes; not copied, so do not change them afterwards
     * @param contentType their media type, e.g. {@code application/json}
     * @return this builder
     */
    public Builder body(byte[] body, String contentType) {
      this.body = requireNonNull(body, "body");
      HeaderFields.checkValue("Content-Type", requireNonNull(contentType, "contentType"),
          "RawRequest");
      this.contentType = contentType;
      return this;
    }

    /**
     * Sets the affinity key (a session or conversation id) that routing uses instead of the
     * prompt; never sent.
     *
     * @param routingKey the key; not null
     * @return this builder
     */
    public Builder routingKey(String routingKey) {
      this.routingKey = requireNonNull(routingKey, "routingKey");
      return this;
    }

    /**
     * Whether the client may send this request to two replicas at once, when its {@code
     * HedgePolicy} hedges a slow attempt; default true. Set false when the request must not be
     * run twice (one whose tools or server-side effects must happen once); retries after a
     * failure are not affected. Never sent.
     *
     * @param hedgeable whether the request may be hedged
     * @return this builder
     */
    public Builder hedgeable(boolean hedgeable) {
      this.hedgeable = hedgeable;
      return this;
    }

    /**
     * {@return the request}
     *
     * @throws IllegalArgumentException if a {@code GET} or {@code HEAD} has a body
     */
    public RawRequest build() {
      if (body.length > 0 && (method.equals("GET") || method.equals("HEAD"))) {
        throw new IllegalArgumentException("a RawRequest " + method + " cannot have a body");
      }
      if (body.length == 0 && contentType != null && !needsBody(method)) contentType = null;
      return new RawRequest(this);
    }

    private static boolean needsBody(String method) {
      return method.equals("POST") || method.equals("PUT") || method.equals("PATCH");
    }
  }
}
