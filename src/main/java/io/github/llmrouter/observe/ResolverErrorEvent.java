package io.github.llmrouter.observe;

/**
 * A replica resolver failed to resolve; the client keeps routing to the last replicas it
 * published.
 *
 * @param resolver the resolver's name, e.g. {@code "DnsResolver: my-llm.default.svc."}
 * @param error what went wrong
 *
 * @since 0.2.0
 */
public record ResolverErrorEvent(String resolver, Throwable error) {}
