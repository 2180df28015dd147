package io.github.llmrouter.internal.dispatch;

import io.github.llmrouter.api.ChatChunk;
import io.github.llmrouter.api.ChatMessage;
import io.github.llmrouter.api.CompletionResponse;
import io.github.llmrouter.api.RawRequest;
import io.github.llmrouter.api.StreamChunk;
import io.github.llmrouter.internal.transport.Endpoint;
import io.github.llmrouter.internal.transport.Json;
import java.util.Set;
import org.jspecify.annotations.Nullable;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * What continuing a broken stream on another replica asks of it, and when that would corrupt the
 * answer. A chat continues with the text delivered so far as the assistant's final message, with
 * {@code "continue_final_message": true, "add_generation_prompt": false} (vLLM's and SGLang's
 * switches; llama.cpp's server honours them too, and without them repeats the partial text before
 * the continuation); a completion continues from its prompt followed by the text delivered. The
 * token limit is lowered by the tokens already produced. Stateless; reads a request's body only
 * when its stream breaks.
 */
final class StreamContinuation {
  /** Request fields that constrain the output to a grammar: a continuation could break it. */
  private static final Set<String> CONSTRAINED = Set.of("guided_json", "guided_regex",
      "guided_choice", "guided_grammar", "structured_outputs", "grammar", "json_schema", "regex",
      "ebnf");
  private static final Set<String> TOKEN_LIMITS = Set.of("max_tokens", "max_completion_tokens");

  private StreamContinuation() {}

  /**
   * Why a stream of {@code body}, a request of {@code endpoint}, must not be continued; null if it
   * may be: a chat or completion stream asking for one choice, without log probabilities, without
   * a forced tool call, structured output or a grammar, and (a completion) with one text prompt
   * and no echo, suffix or best-of.
   */
  static @Nullable String whyNot(Endpoint<?> endpoint, JsonNode body) {
    if (!body.isObject()) return "the request is not a JSON object";
    if (body.path("n").asInt(1) > 1) return "it asks for several choices (n > 1)";
    if (body.path("logprobs").asBoolean(false) || body.path("logprobs").isInt()
        || body.hasNonNull("top_logprobs")) {
      return "it asks for log probabilities";
    }
    JsonNode format = body.get("response_format");
    if (format != null && !format.isNull()
        && !"text".equals(format.path("type").asString("text"))) {
      return "it asks for structured output (response_format)";
    }
    for (String field : CONSTRAINED) {
      if (body.hasNonNull(field)) return "its output is constrained (" + field + ")";
    }
    JsonNode toolChoice = body.get("tool_choice");
    if (toolChoice != null && (toolChoice.isObject() || "required".equals(toolChoice.asString("")))) {
      return "it forces a tool call";
    }
    if (endpoint == Endpoint.COMPLETION_STREAM) {
      if (!body.path("prompt").isString()) return "its prompt is not one text";
      if (body.path("echo").asBoolean(false) || body.hasNonNull("suffix")
          || body.path("best_of").asInt(1) > 1) {
        return "it asks for echo, suffix or best_of";
      }
    } else if (!body.path("messages").isArray() || body.path("messages").isEmpty()) {
      return "it has no messages";
    }
    return null;
  }

  /**
   * Why a chunk the caller is about to read makes the stream one that must not be continued (a
   * tool-call or function-call delta, log probabilities, a second choice); null if it does not.
   */
  static @Nullable String whyNot(StreamChunk chunk) {
    if (chunk instanceof ChatChunk chat) {
      for (ChatChunk.Delta d : chat.choices()) {
        if (d.index() != 0) return "it carries a second choice";
        if (d.extra().get("logprobs") != null) return "it carries log probabilities";
        ChatMessage delta = d.delta();
        if (delta != null && (delta.extra().get("tool_calls") != null
            || delta.extra().get("function_call") != null)) {
          return "a tool call was under way";
        }
      }
    } else if (chunk instanceof CompletionResponse completion) {
      for (CompletionResponse.Choice c : completion.choices()) {
        if (c.index() != 0) return "it carries a second choice";
        if (c.extra().get("logprobs") != null) return "it carries log probabilities";
      }
    }
    return null;
  }

  /**
   * The request that continues {@code original} after {@code delivered} (the text its caller
   * has read, {@code produced} tokens of it), or null if its token limit is used up.
   *
   * @param body the original's body, parsed, that {@link #whyNot(Endpoint, JsonNode)} accepted;
   *     changed into the continuation's
   */
  static @Nullable RawRequest of(Endpoint<?> endpoint, RawRequest original, ObjectNode body,
      String delivered, int produced) {
    for (String limit : TOKEN_LIMITS) {
      JsonNode max = body.get(limit);
      if (max == null || !max.isIntegralNumber()) continue;
      long left = max.asLong() - produced;
      if (left <= 0) return null;
      body.put(limit, left);
    }
    if (endpoint == Endpoint.COMPLETION_STREAM) {
      body.put("prompt", body.path("prompt").asString("") + delivered);
    } else {
      ArrayNode messages = (ArrayNode) body.get("messages");
      JsonNode last = messages.get(messages.size() - 1);
      if (body.path("continue_final_message").asBoolean(false)
          && "assistant".equals(last.path("role").asString("")) && last.path("content").isString()) {
        // The caller had begun the answer itself: the delivered text follows its own.
        ((ObjectNode) last).put("content", last.path("content").stringValue() + delivered);
      } else {
        messages.addObject().put("role", "assistant").put("content", delivered);
      }
      body.put("continue_final_message", true);
      body.put("add_generation_prompt", false);
    }
    return RawRequest.post(original.path(), Json.MAPPER.writeValueAsBytes(body))
        .hedgeable(original.hedgeable()).build();
  }
}
