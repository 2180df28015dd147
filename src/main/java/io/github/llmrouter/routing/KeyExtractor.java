package io.github.llmrouter.routing;

import static java.util.Objects.requireNonNull;

import io.github.llmrouter.internal.util.Hashing;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;

/**
 * Computes the 64-bit ring key of a request for {@link PrefixHash}.
 *
 * <p>Every client of a fleet must compute the same key for the same request, so an extractor must
 * be a pure function of the request (no per-client state, no randomness).
 *
 * @since 0.2.0
 */
@FunctionalInterface
public interface KeyExtractor {
  /** The default number of prompt characters hashed into the key: {@value}. */
  int DEFAULT_PREFIX_CHARS = 100;

  /**
   * The ring key of {@code request}. Called on the routing hot path by many threads at once: must
   * be thread-safe, fast and allocation-free where possible.
   *
   * @param request the request; not null
   * @return the 64-bit key; equal requests must give equal keys in every client
   */
  long key(RoutingRequest request);

  /**
   * The default extractor: the model name, then the request's explicit {@link
   * RoutingRequest#routingKey() routing key} if it has one, otherwise the first {@code prefixChars}
   * characters of its prompt. Hashes the characters in place (XXH64), without copying them.
   *
   * @param prefixChars how many leading prompt characters to hash, at least 1
   * @return a stateless, thread-safe extractor
   * @throws IllegalArgumentException if {@code prefixChars < 1}
   */
  static KeyExtractor prefix(int prefixChars) {
    if (prefixChars < 1) {
      throw new IllegalArgumentException("prefixChars must be >= 1, got " + prefixChars);
    }
    // The request keeps the default key once computed, for every consumer of it.
    if (prefixChars == DEFAULT_PREFIX_CHARS) return RoutingRequest::prefixKey;
    return request -> prefixKey(request, prefixChars);
  }

  /**
   * The key {@link #prefix(int)} describes.
   *
   * @param request the request; not null
   * @param prefixChars how many leading characters of its prompt the key covers
   * @return the key
   */
  static long prefixKey(RoutingRequest request, int prefixChars) {
    long seed = Hashing.xxh64(request.model(), 0);
    String explicit = request.routingKey();
    if (explicit != null) return Hashing.xxh64(explicit, ~seed);
    CharSequence prompt = request.prompt();
    if (prompt == null) return seed;
    return Hashing.xxh64(prompt, 0, Math.min(prefixChars, prompt.length()), seed);
  }

  /**
   * An extractor that hashes the model name and whatever text {@code key} returns for a request
   * (for example a session id taken from the request's explicit routing key or its prompt). A
   * {@code null} text hashes the model alone.
   *
   * @param key a pure, thread-safe function of the request; not null
   * @return a thread-safe extractor
   */
  static KeyExtractor of(Function<RoutingRequest, @Nullable CharSequence> key) {
    requireNonNull(key, "key");
    return request -> {
      long seed = Hashing.xxh64(request.model(), 0);
      CharSequence text = key.apply(request);
      return text == null ? seed : Hashing.xxh64(text, ~seed);
    };
  }
}
