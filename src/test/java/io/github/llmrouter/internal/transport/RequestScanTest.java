package io.github.llmrouter.internal.transport;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.llmrouter.api.ChatMessage;
import io.github.llmrouter.api.ChatRequest;
import io.github.llmrouter.api.RawRequest;
import io.github.llmrouter.routing.PromptBlocks;
import io.github.llmrouter.routing.RoutingRequest;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class RequestScanTest {
  private static RequestScan scan(String path, String json) {
    return RequestScan.of(RawRequest.post(path, json.getBytes(StandardCharsets.UTF_8)).build());
  }

  private static RoutingRequest typed(ChatRequest r) {
    RoutingRequest.Builder b = RoutingRequest.builder(r.model(), r.messages().size());
    for (ChatMessage m : r.messages()) b.message(m.role(), m.text() == null ? "" : m.text());
    return b.prompt(r.firstUserText()).build();
  }

  @Test
  void aChatReadsAsTheSameChatTypedDoes() {
    ChatRequest chat = ChatRequest.builder("llama").message(ChatMessage.system("be brief"))
        .message(ChatMessage.user("what is a KV cache?")).build();
    RequestScan raw = RequestScan.of(Endpoint.CHAT_STREAM.request(chat, true));

    assertThat(raw.routing().model()).isEqualTo("llama");
    assertThat(raw.routing().prompt()).hasToString("what is a KV cache?");
    assertThat(raw.routing().prefixKey()).isEqualTo(typed(chat).prefixKey());
    PromptBlocks rawBlocks = raw.routing().blocks(PromptBlocks.DEFAULT_BLOCK_CHARS);
    PromptBlocks typedBlocks = typed(chat).blocks(PromptBlocks.DEFAULT_BLOCK_CHARS);
    assertThat(rawBlocks.size()).isEqualTo(typedBlocks.size()).isPositive();
    for (int i = 0; i < rawBlocks.size(); i++) {
      assertThat(rawBlocks.hash(i)).isEqualTo(typedBlocks.hash(i));
    }
    assertThat(raw.endpoint().operation()).isEqualTo("chat.stream");
    assertThat(raw.endpoint().streaming()).isTrue();
  }

  @Test
  void contentPartsJoinTheirTextAndOtherFieldsAreSkipped() {
    RequestScan s = scan("/v1/chat/completions", "{\"tools\":[{\"type\":\"function\"}],"
        + "\"messages\":[{\"role\":\"user\",\"content\":[{\"type\":\"text\",\"text\":\"a\"},"
        + "{\"type\":\"image_url\",\"image_url\":{\"url\":\"x\"}},{\"type\":\"text\","
        + "\"text\":\"b\"}]},{\"role\":\"assistant\",\"tool_calls\":[{\"id\":\"1\"}]}],"
        + "\"model\":\"m\",\"stream\":false}");
    assertThat(s.routing().model()).isEqualTo("m");
    assertThat(s.routing().prompt()).hasToString("ab");
    assertThat(s.endpoint().operation()).isEqualTo("chat");
  }

  @Test
  void nestedValuesAnywhereAreSkippedWhole() {
    RequestScan s = scan("/v1/chat/completions", "{\"metadata\":{\"model\":\"wrong\","
        + "\"messages\":[{\"role\":\"user\",\"content\":\"wrong\"}]},\"model\":{\"x\":1},"
        + "\"instructions\":{\"text\":\"wrong\"},\"prompt\":{\"text\":\"wrong\"},"
        + "\"messages\":[[\"odd\"],7,{\"role\":\"user\",\"name\":{\"content\":\"wrong\"},"
        + "\"content\":[[1],\"odd\",{\"type\":\"image_url\",\"text\":{\"t\":\"wrong\"}},"
        + "{\"type\":\"text\",\"text\":\"right\"}]}],\"stream\":{\"x\":true},"
        + "\"model\":\"m\"}");
    assertThat(s.routing().model()).isEqualTo("m");
    assertThat(s.routing().prompt()).hasToString("right");
    assertThat(s.endpoint().streaming()).isFalse();

    RequestScan input = scan("/v1/embeddings", "{\"input\":{\"text\":\"wrong\"},"
        + "\"model\":\"e\",\"prompt\":[{\"a\":\"wrong\"},\"first\"]}");
    assertThat(input.routing().prompt()).hasToString("first");
    assertThat(input.routing().model()).isEqualTo("e");
  }

  @Test
  void aMessageWithoutRoleOrContentIsNotAMessage() {
    RequestScan s = scan("/v1/responses", "{\"model\":\"m\",\"input\":[{\"type\":"
        + "\"reasoning\",\"id\":\"r\"},{\"role\":\"user\",\"content\":\"hi\"}]}");
    RoutingRequest one = RoutingRequest.builder("m", 1).message("user", "hi").prompt("hi").build();
    assertThat(s.routing().blocks(PromptBlocks.DEFAULT_BLOCK_CHARS).hash(0))
        .isEqualTo(one.blocks(PromptBlocks.DEFAULT_BLOCK_CHARS).hash(0));
    RequestScan roleOnly = scan("/v1/chat/completions", "{\"model\":\"m\",\"messages\":["
        + "{\"role\":\"assistant\",\"tool_calls\":[]},{\"role\":\"user\",\"content\":"
        + "\"q\"}]}");
    RoutingRequest two = RoutingRequest.builder("m", 2).message("assistant", "")
        .message("user", "q").prompt("q").build();
    assertThat(roleOnly.routing().blocks(PromptBlocks.DEFAULT_BLOCK_CHARS).hash(0))
        .isEqualTo(two.blocks(PromptBlocks.DEFAULT_BLOCK_CHARS).hash(0));
  }

  @Test
  void theRoutingKeyOfTheRequestIsKept() {
    RawRequest keyed = RawRequest.post("/v1/chat/completions", "{\"model\":\"m\"}"
        .getBytes(StandardCharsets.UTF_8)).routingKey("session-7").build();
    assertThat(RequestScan.of(keyed).routing().routingKey()).isEqualTo("session-7");
    RawRequest notJson = RawRequest.builder("POST", "/v1/audio/transcriptions")
        .body("{\"model\":\"m\"}".getBytes(StandardCharsets.UTF_8), "multipart/form-data")
        .build();
    assertThat(RequestScan.of(notJson).routing().model()).isEmpty(); // only JSON is read
  }

  @Test
  void theResponsesApiReadsInstructionsThenInput() {
    RequestScan s = scan("/v1/responses", "{\"model\":\"m\",\"instructions\":\"be brief\","
        + "\"input\":\"hello\",\"stream\":true}");
    assertThat(s.routing().prompt()).hasToString("hello");
    assertThat(s.endpoint().operation()).isEqualTo("responses.stream");

    RequestScan items = scan("/v1/responses", "{\"model\":\"m\",\"input\":[{\"type\":"
        + "\"message\",\"role\":\"user\",\"content\":[{\"type\":\"input_text\",\"text\":\"hi\"}]},"
        + "{\"type\":\"function_call_output\",\"call_id\":\"c\",\"output\":\"42\"}]}");
    assertThat(items.routing().prompt()).hasToString("hi");
  }

  @Test
  void completionsAndEmbeddingsReadTheirFirstText() {
    assertThat(scan("/v1/completions", "{\"model\":\"m\",\"prompt\":[\"one\",\"two\"]}")
        .routing().prompt()).hasToString("one");
    RequestScan e = scan("/v1/embeddings", "{\"input\":[\"x\",\"y\"],\"model\":\"e\"}");
    assertThat(e.routing().prompt()).hasToString("x");
    assertThat(e.routing().model()).isEqualTo("e");
    assertThat(e.endpoint().operation()).isEqualTo("embeddings");
    assertThat(scan("/v1/completions", "{\"prompt\":[[1,2,3]]}").routing().prompt()).isNull();
  }

  @Test
  void aBodyThatIsNotJsonRoutesOnWhatWasReadAndNeverThrows() {
    assertThat(scan("/v1/chat/completions", "{\"model\":\"m\",\"messages\":[{\"role\":")
        .routing().model()).isEqualTo("m");
    assertThat(scan("/v1/chat/completions", "not json").routing().model()).isEmpty();
    assertThat(scan("/v1/chat/completions", "[1,2]").routing().prompt()).isNull();
    assertThat(scan("/v1/chat/completions", "{\"model\":7,\"messages\":{}}").routing().model())
        .isEmpty();
    assertThat(scan("/v1/x", "{\"a\":" + "[".repeat(5000)).routing().model()).isEmpty();
    RequestScan get = RequestScan.of(RawRequest.builder("GET", "/v1/models").build());
    assertThat(get.routing().model()).isEmpty();
    assertThat(get.endpoint().operation()).isEqualTo("http");
  }

  @Test
  void operationsAreNamedByThePathsEnd() {
    assertThat(Endpoint.raw("/v1/chat/completions/?a=b", false).operation()).isEqualTo("chat");
    assertThat(Endpoint.raw("/openai/v1/completions", true).operation())
        .isEqualTo("completion.stream");
    assertThat(Endpoint.raw("/v1/files/file-123", false).operation()).isEqualTo("http");
    assertThat(Endpoint.raw("/v1/files/file-123", true).operation()).isEqualTo("http.stream");
  }
}
