package io.github.llmrouter.sim;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.StringReader;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

class MooncakeTraceReaderTest {
  private static Trace read(String text) {
    return MooncakeTraceReader.read(new StringReader(text), "t.jsonl", 512);
  }

  @Test
  void readsTheMooncakeFields() {
    Trace t = read("{\"timestamp\": 1500, \"input_length\": 700, \"output_length\": 20,"
        + " \"hash_ids\": [0, 7]}\n");
    TraceRequest r = t.requests().get(0);
    assertThat(r.arrivalSeconds()).isEqualTo(1.5);
    assertThat(r.inputTokens()).isEqualTo(700);
    assertThat(r.outputTokens()).isEqualTo(20);
    assertThat(r.blockIds()).containsExactly(0, 7);
    assertThat(r.sessionId()).isNull();
    assertThat(t.blockTokens()).isEqualTo(512);
  }

  @Test
  void skipsBlankLinesIgnoresUnknownFieldsAndReadsOptionalSessionIds() {
    Trace t = read("\n{\"timestamp\": 0, \"input_length\": 1, \"output_length\": 1, \"hash_ids\": [1],"
        + " \"session_id\": \"abc\", \"extra\": true}\n   \n"
        + "{\"timestamp\": 0, \"input_length\": 1, \"output_length\": 1, \"hash_ids\": [2],"
        + " \"conversation_id\": 42}\n");
    assertThat(t.size()).isEqualTo(2);
    assertThat(t.requests().get(0).sessionId()).isEqualTo("abc");
    assertThat(t.requests().get(1).sessionId()).isEqualTo("42");
  }

  @Test
  void sortsByArrivalKeepingTheFileOrderOfTies() {
    Trace t = read("{\"timestamp\": 9, \"input_length\": 1, \"output_length\": 1, \"hash_ids\": [1]}\n"
        + "{\"timestamp\": 3, \"input_length\": 1, \"output_length\": 1, \"hash_ids\": [2]}\n"
        + "{\"timestamp\": 3, \"input_length\": 1, \"output_length\": 1, \"hash_ids\": [3]}\n");
    assertThat(t.requests()).extracting(r -> r.blockIds()[0]).containsExactly(2L, 3L, 1L);
  }

  @Test
  void anOutputLengthOfZeroCountsAsOneToken() {
    Trace t = read("{\"timestamp\": 0, \"input_length\": 5, \"output_length\": 0, \"hash_ids\": [1]}");
    assertThat(t.requests().get(0).outputTokens()).isEqualTo(1);
  }

  @Test
  void malformedJsonFailsNamingTheLine() {
    String text = "{\"timestamp\": 0, \"input_length\": 1, \"output_length\": 1, \"hash_ids\": [1]}\n"
        + "\n"
        + "{\"timestamp\": 0, \"input_length\": 1,\n";
    assertThatThrownBy(() -> read(text))
        .isInstanceOf(TraceFormatException.class)
        .hasMessageStartingWith("t.jsonl:3: not valid JSON")
        .satisfies(e -> assertThat(((TraceFormatException) e).line()).isEqualTo(3));
  }

  @Test
  void missingOrWrongFieldsFailNamingTheLineAndTheField() {
    assertThatThrownBy(() -> read("{\"timestamp\": 0, \"output_length\": 1, \"hash_ids\": [1]}"))
        .hasMessage("t.jsonl:1: missing field 'input_length'");
    assertThatThrownBy(() -> read("{\"timestamp\": \"x\", \"input_length\": 1, \"output_length\": 1,"
        + " \"hash_ids\": [1]}"))
        .hasMessage("t.jsonl:1: 'timestamp' must be a number");
    assertThatThrownBy(() -> read("{\"timestamp\": 0, \"input_length\": 1, \"output_length\": 1,"
        + " \"hash_ids\": []}"))
        .hasMessage("t.jsonl:1: 'hash_ids' must not be empty");
    assertThatThrownBy(() -> read("{\"timestamp\": 0, \"input_length\": 1, \"output_length\": 1,"
        + " \"hash_ids\": [1, \"b\"]}"))
        .hasMessage("t.jsonl:1: 'hash_ids'[1] must be an integer");
    assertThatThrownBy(() -> read("[1, 2]")).hasMessage("t.jsonl:1: expected a JSON object");
    assertThatThrownBy(() -> read("{\"timestamp\": 0, \"input_length\": 0, \"output_length\": 1,"
        + " \"hash_ids\": [1]}"))
        .hasMessage("t.jsonl:1: inputTokens must be >= 1, got 0");
  }

  @Test
  void readsTheBundledMooncakeConversationTrace() {
    Trace t = MooncakeTraceReader.read(Path.of(SimulatorCli.DEFAULT_TRACE));
    assertThat(t.size()).isEqualTo(12_031);
    assertThat(t.durationSeconds()).isEqualTo(3536.999);
    // Every request opens with the shared system prompt block 0.
    assertThat(t.requests()).allSatisfy(r -> assertThat(r.blockIds()[0]).isZero());
  }
}
