package io.github.llmrouter.routing;

import static java.util.Objects.requireNonNull;

import org.jspecify.annotations.Nullable;

/**
 * What a routing policy may know about a request: the model it names, the text that identifies its
 * prefix, and an optional caller-supplied key. Built once per call by the client (or by the
 * simulator); policies must not retain it.
 *
 * @param model the model name as sent to the server; with KubeAI-style LoRA naming
 *     ({@code base_adapter}) the adapter is part of it, so each adapter has its own key space
 * @param prompt the text whose beginning identifies the request's prefix: the first user message of
 *     a chat, the prompt of a completion, the first input of an embedding; {@code null} if none
 * @param routingKey an explicit affinity key (a session or conversation id) that replaces the
 *     prompt prefix in the default key extractor; {@code null} if none
 */
public record RoutingRequest(String model, @Nullable CharSequence prompt, @Nullable String routingKey) {
  /**
   * Creates the routing view of a request.
   *
   * @param model the model name as sent to the server; with KubeAI-style LoRA naming ({@code
   *     base_adapter}) the adapter is part of it, so each adapter has its own key space
   * @param prompt the text whose beginning identifies the request's prefix: the first user message
   *     of a chat, the prompt of a completion, the first input of an embedding; {@code null} if
   *     none
   * @param routingKey an explicit affinity key (a session or conversation id) that replaces the
   *     prompt prefix in the default key extractor; {@code null} if none
   */
  public RoutingRequest {
    requireNonNull(model, "model");
  }

  /**
   * {@return a request with no explicit routing key}
   *
   * @param model the model name; not null
   * @param prompt the text whose beginning identifies the prefix, or null
   */
  public static RoutingRequest of(String model, @Nullable CharSequence prompt) {
    return new RoutingRequest(model, prompt, null);
  }

  @Override
  public String toString() {
    // Never print the prompt: it is user data.
    return "RoutingRequest{model=" + model
        + ", promptChars=" + (prompt == null ? 0 : prompt.length())
        + (routingKey == null ? "" : ", routingKey=<set>") + '}';
  }
}
