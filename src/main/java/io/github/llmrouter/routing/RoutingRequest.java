package io.github.llmrouter.routing;

import static java.util.Objects.requireNonNull;

import org.jspecify.annotations.Nullable;

/**
 * What a routing policy may know about a request: the model it names, the text that identifies its
 * prefix, an optional caller-supplied key and, when whoever built the request hashed it, the whole
 * prompt as chained block hashes. Built once per call by the client (or by the simulator); policies
 * must not retain it beyond the request's life.
 *
 * @param model the model name as sent to the server; with KubeAI-style LoRA naming
 *     ({@code base_adapter}) the adapter is part of it, so each adapter has its own key space
 * @param prompt the text whose beginning identifies the request's prefix: the first user message of
 *     a chat, the prompt of a completion, the first input of an embedding; {@code null} if none
 * @param routingKey an explicit affinity key (a session or conversation id) that replaces the
 *     prompt prefix in the default key extractor; {@code null} if none
 * @param blocks the whole prompt as chained block hashes with its token count, for policies that
 *     index prefixes block by block; {@code null} when the request was not hashed into blocks
 */
public record RoutingRequest(
    String model, @Nullable CharSequence prompt, @Nullable String routingKey,
    @Nullable PromptBlocks blocks) {
  /**
   * Creates the routing view of a request.
   *
   * @param model the model name as sent to the server; not null
   * @param prompt the text whose beginning identifies the request's prefix, or null
   * @param routingKey an explicit affinity key, or null
   * @param blocks the whole prompt as chained block hashes, or null
   */
  public RoutingRequest {
    requireNonNull(model, "model");
  }

  /**
   * A request without prompt blocks.
   *
   * @param model the model name as sent to the server; not null
   * @param prompt the text whose beginning identifies the request's prefix, or null
   * @param routingKey an explicit affinity key, or null
   */
  public RoutingRequest(String model, @Nullable CharSequence prompt, @Nullable String routingKey) {
    this(model, prompt, routingKey, null);
  }

  /**
   * {@return a request with no explicit routing key and no prompt blocks}
   *
   * @param model the model name; not null
   * @param prompt the text whose beginning identifies the prefix, or null
   */
  public static RoutingRequest of(String model, @Nullable CharSequence prompt) {
    return new RoutingRequest(model, prompt, null, null);
  }

  /**
   * {@return this request carrying {@code blocks} as its prompt blocks}
   *
   * @param blocks the prompt's chained block hashes; not null
   */
  public RoutingRequest withBlocks(PromptBlocks blocks) {
    return new RoutingRequest(model, prompt, routingKey, requireNonNull(blocks, "blocks"));
  }

  @Override
  public String toString() {
    // Never print the prompt: it is user data.
    return "RoutingRequest{model=" + model
        + ", promptChars=" + (prompt == null ? 0 : prompt.length())
        + (routingKey == null ? "" : ", routingKey=<set>")
        + (blocks == null ? "" : ", blocks=" + blocks.size()) + '}';
  }
}
