package io.github.llmrouter.internal.transport;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import okio.Buffer;
import org.junit.jupiter.api.Test;

class SseReaderTest {
  private static List<String> events(String text) throws IOException {
    SseReader reader = new SseReader(new Buffer().writeUtf8(text));
    List<String> out = new ArrayList<>();
    for (String d; (d = reader.nextData()) != null; ) out.add(d);
    return out;
  }

  @Test
  void readsDataEventsSeparatedByBlankLines() throws IOException {
    assertThat(events("data: {\"a\":1}\n\ndata: [DONE]\n\n")).containsExactly("{\"a\":1}", "[DONE]");
  }

  @Test
  void joinsMultiLineDataWithNewlines() throws IOException {
    assertThat(events("data: first\ndata: second\ndata:third\n\n"))
        .containsExactly("first\nsecond\nthird");
  }

  @Test
  void skipsCommentsKeepAlivesAndOtherFields() throws IOException {
    assertThat(events(": keep-alive\n\n:\n\nevent: message\nid: 7\nretry: 1000\ndata: x\nfoo: bar\n\n"))
        .containsExactly("x");
  }

  @Test
  void acceptsCrLfAndLoneCrLineEndings() throws IOException {
    assertThat(events("data: a\r\n\r\ndata: b\r\rdata: c\n\n")).containsExactly("a", "b", "c");
  }

  @Test
  void removesOnlyOneLeadingSpace() throws IOException {
    assertThat(events("data:  two spaces\n\n")).containsExactly(" two spaces");
  }

  @Test
  void fieldWithoutColonAndEmptyDataAreHandled() throws IOException {
    assertThat(events("data\n\n")).containsExactly("");
    assertThat(events("\n\n\n")).isEmpty();
  }

  @Test
  void dropsAnUnterminatedEventAtEndOfStream() throws IOException {
    assertThat(events("data: complete\n\ndata: partial")).containsExactly("complete");
    assertThat(events("data: partial\n")).isEmpty();
  }

  @Test
  void readsUtf8Content() throws IOException {
    assertThat(events("data: héllo ✓ 你好\n\n")).containsExactly("héllo ✓ 你好");
  }

  @Test
  void remembersEventType() throws IOException {
    SseReader reader = new SseReader(new Buffer().writeUtf8(
        "event: error\ndata: boom\n\ndata: plain\n\nevent: dropped\n\nevent: usage\ndata: u\n\n"));
    assertThat(reader.eventType()).as("before any event").isNull();
    assertThat(reader.nextData()).isEqualTo("boom");
    assertThat(reader.eventType()).isEqualTo("error");
    // The type is reset once its event is dispatched: the next event is a plain message.
    assertThat(reader.nextData()).isEqualTo("plain");
    assertThat(reader.eventType()).isNull();
    // A type whose event carries no data is dropped with it.
    assertThat(reader.nextData()).isEqualTo("u");
    assertThat(reader.eventType()).isEqualTo("usage");
    assertThat(reader.nextData()).isNull();
  }
}
