package io.github.llmrouter.internal.dispatch;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.llmrouter.api.ChatChunk;
import io.github.llmrouter.api.CompletionResponse;
import io.github.llmrouter.api.RawRequest;
import io.github.llmrouter.internal.transport.Endpoint;
import io.github.llmrouter.internal.transport.Json;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import tools.jackson.databind.JsonNode;

/** When a broken stream may be continued, and the request that continues it. */
class StreamContinuationTest {
  private static final String CHAT = "{\"model\":\"m\",\"messages\":[{\"role\":\"user\","
      + "\"content\":\"hi\"}]";

  private static JsonNode json(String text) {
    return Json.MAPPER.readTree(text);
  }

  @ParameterizedTest
  @CsvSource(delimiter = '|', value = {
      ",\"n\":2|it asks for several choices (n > 1)",
      ",\"logprobs\":true|it asks for log probabilities",
      ",\"top_logprobs\":3|it asks for log probabilities",
      ",\"response_format\":{\"type\":\"json_object\"}|it asks for structured output (response_format)",
      ",\"guided_regex\":\"a+\"|its output is constrained (guided_regex)",
      ",\"structured_outputs\":{}|its output is constrained (structured_outputs)",
      ",\"tool_choice\":\"required\"|it forces a tool call",
      ",\"tool_choice\":{\"type\":\"function\"}|it forces a tool call"})
  void chatsAContinuationCouldCorruptSayWhy(String field, String why) {
    assertThat(StreamContinuation.whyNot(Endpoint.CHAT_STREAM, json(CHAT + field + "}")))
        .isEqualTo(why);
  }

  @Test
  void plainChatsAndTextFormatsAndOptionalToolsMayBeContinued() {
    assertThat(StreamContinuation.whyNot(Endpoint.CHAT_STREAM, json(CHAT + "}"))).isNull();
    assertThat(StreamContinuation.whyNot(Endpoint.CHAT_STREAM, json(CHAT
        + ",\"n\":1,\"logprobs\":false,\"response_format\":{\"type\":\"text\"},"
        + "\"tool_choice\":\"auto\",\"response_format\":null}"))).isNull();
    assertThat(StreamContinuation.whyNot(Endpoint.CHAT_STREAM, json("[]")))
        .isEqualTo("the request is not a JSON object");
    assertThat(StreamContinuation.whyNot(Endpoint.CHAT_STREAM, json("{\"messages\":[]}")))
        .isEqualTo("it has no messages");
  }

  @ParameterizedTest
  @CsvSource(delimiter = '|', value = {
      "{\"prompt\":[\"a\",\"b\"]}|its prompt is not one text",
      "{\"prompt\":\"a\",\"echo\":true}|it asks for echo, suffix or best_of",
      "{\"prompt\":\"a\",\"suffix\":\"z\"}|it asks for echo, suffix or best_of",
      "{\"prompt\":\"a\",\"best_of\":2}|it asks for echo, suffix or best_of",
      "{\"prompt\":\"a\",\"logprobs\":2}|it asks for log probabilities",
      "{\"prompt\":\"a\",\"best_of\":1,\"echo\":false}|"})
  void completionsSayWhyNotOrMayBeContinued(String body, String why) {
    assertThat(StreamContinuation.whyNot(Endpoint.COMPLETION_STREAM, json(body))).isEqualTo(why);
  }

  @Test
  void chunksShowingToolCallsLogprobsOrASecondChoiceStopResumption() {
    assertThat(StreamContinuation.whyNot(chat("{\"index\":0,\"delta\":{\"content\":\"a\"}}")))
        .isNull();
    assertThat(StreamContinuation.whyNot(chat("{\"index\":0,\"delta\":{\"tool_calls\":[]}}")))
        .isEqualTo("a tool call was under way");
    assertThat(StreamContinuation.whyNot(chat("{\"index\":0,\"delta\":{\"function_call\":{}}}")))
        .isEqualTo("a tool call was under way");
    assertThat(StreamContinuation.whyNot(chat("{\"index\":0,\"delta\":{},\"logprobs\":{}}")))
        .isEqualTo("it carries log probabilities");
    assertThat(StreamContinuation.whyNot(chat("{\"index\":1,\"delta\":{\"content\":\"a\"}}")))
        .isEqualTo("it carries a second choice");
    assertThat(StreamContinuation.whyNot(completion("{\"index\":0,\"text\":\"a\"}"))).isNull();
    assertThat(StreamContinuation.whyNot(completion("{\"index\":0,\"text\":\"a\",\"logprobs\":{}}")))
        .isEqualTo("it carries log probabilities");
    assertThat(StreamContinuation.whyNot(completion("{\"index\":2,\"text\":\"a\"}")))
        .isEqualTo("it carries a second choice");
  }

  @Test
  void aChatContinuesWithTheDeliveredTextAsTheAssistantsFinalMessage() {
    RawRequest original = post(CHAT + ",\"max_tokens\":10,\"max_completion_tokens\":12}");
    JsonNode body = body(continued(Endpoint.CHAT_STREAM, original, "Hello", 3));
    assertThat(body.path("max_tokens").asInt()).isEqualTo(7);
    assertThat(body.path("max_completion_tokens").asInt()).isEqualTo(9);
    assertThat(body.path("messages").get(1).path("role").asString()).isEqualTo("assistant");
    assertThat(body.path("messages").get(1).path("content").asString()).isEqualTo("Hello");
    assertThat(body.path("continue_final_message").asBoolean()).isTrue();
    assertThat(body.path("add_generation_prompt").asBoolean(true)).isFalse();
  }

  @Test
  void aCallersOwnPrefillIsExtendedNotRepeated() {
    RawRequest original = post("{\"messages\":[{\"role\":\"user\",\"content\":\"hi\"},"
        + "{\"role\":\"assistant\",\"content\":\"Sure: \"}],\"continue_final_message\":true}");
    JsonNode body = body(continued(Endpoint.CHAT_STREAM, original, "one", 1));
    assertThat(body.path("messages").size()).isEqualTo(2);
    assertThat(body.path("messages").get(1).path("content").asString()).isEqualTo("Sure: one");
    RawRequest notContinuing = post("{\"messages\":[{\"role\":\"user\",\"content\":\"hi\"},"
        + "{\"role\":\"assistant\",\"content\":\"Sure: \"}]}");
    assertThat(body(continued(Endpoint.CHAT_STREAM, notContinuing, "one", 1))
        .path("messages").size()).as("a finished assistant turn stays as it was").isEqualTo(3);
  }

  @Test
  void nothingContinuesOnceTheTokenLimitIsUsedUp() {
    assertThat(continued(Endpoint.CHAT_STREAM, post(CHAT + ",\"max_tokens\":3}"),
        "abc", 3)).isNull();
    assertThat(continued(Endpoint.CHAT_STREAM, post(CHAT + ",\"max_tokens\":4}"),
        "abc", 3)).isNotNull();
    assertThat(body(continued(Endpoint.CHAT_STREAM, post(CHAT + "}"), "abc", 3))
        .has("max_tokens")).as("no limit asked, none added").isFalse();
  }

  @Test
  void aCompletionContinuesFromItsPromptAndKeepsWhetherItMayBeHedged() {
    RawRequest original = RawRequest.post("/v1/completions",
        "{\"prompt\":\"Once \",\"max_tokens\":5}".getBytes(StandardCharsets.UTF_8))
        .hedgeable(false).build();
    RawRequest next = continued(Endpoint.COMPLETION_STREAM, original, "upon", 1);
    assertThat(next.path()).isEqualTo("/v1/completions");
    assertThat(next.hedgeable()).isFalse();
    JsonNode body = body(next);
    assertThat(body.path("prompt").asString()).isEqualTo("Once upon");
    assertThat(body.path("max_tokens").asInt()).isEqualTo(4);
    assertThat(body.has("continue_final_message")).isFalse();
  }

  private static RawRequest post(String body) {
    return RawRequest.post("/v1/chat/completions", body.getBytes(StandardCharsets.UTF_8)).build();
  }

  private static JsonNode body(RawRequest r) {
    return json(new String(r.body(), StandardCharsets.UTF_8));
  }

  private static ChatChunk chat(String choice) {
    return Json.MAPPER.readValue("{\"id\":\"c\",\"choices\":[" + choice + "]}", ChatChunk.class);
  }

  private static CompletionResponse completion(String choice) {
    return Json.MAPPER.readValue("{\"id\":\"c\",\"choices\":[" + choice + "]}",
        CompletionResponse.class);
  }

  private static RawRequest continued(Endpoint<?> endpoint, RawRequest original, String delivered,
      int produced) {
    return StreamContinuation.of(endpoint, original,
        (tools.jackson.databind.node.ObjectNode) json(new String(original.body(),
            StandardCharsets.UTF_8)), delivered, produced);
  }
}
