package io.github.llmrouter.internal.transport;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;
import tools.jackson.core.JacksonException;

class ReportedTest {
  private static Reported scan(String json) {
    return Reported.scan(json.getBytes(StandardCharsets.UTF_8));
  }

  @Test
  void aChatAnswerReportsItsUsageAndModel() {
    Reported r = scan("{\"id\":\"x\",\"choices\":[{\"message\":{\"content\":\"usage\"}}],"
        + "\"model\":\"m\",\"usage\":{\"prompt_tokens\":12,\"completion_tokens\":3,"
        + "\"prompt_tokens_details\":{\"cached_tokens\":8}}}");
    assertThat(r.model()).isEqualTo("m");
    assertThat(r.usage().promptTokens()).isEqualTo(12);
    assertThat(r.usage().cachedTokens()).isEqualTo(8);
  }

  @Test
  void theResponsesApiReportsInItsOwnNamesAndInsideItsCompletedEvent() {
    String response = "{\"id\":\"resp_1\",\"model\":\"m\",\"usage\":{\"input_tokens\":20,"
        + "\"output_tokens\":5,\"input_tokens_details\":{\"cached_tokens\":16}}}";
    Reported whole = scan(response);
    assertThat(whole.usage().promptTokens()).isEqualTo(20);
    assertThat(whole.usage().completionTokens()).isEqualTo(5);
    assertThat(whole.usage().cachedTokens()).isEqualTo(16);

    Reported event = scan("{\"type\":\"response.completed\",\"response\":" + response + "}");
    assertThat(event.model()).isEqualTo("m");
    assertThat(event.usage().cachedTokens()).isEqualTo(16);
  }

  @Test
  void anAnswerWithoutUsageReportsNothingAndOneThatIsNotJsonThrows() {
    assertThat(scan("{\"data\":[]}")).isSameAs(Reported.NOTHING);
    assertThat(scan("[1,2]")).isSameAs(Reported.NOTHING);
    assertThatThrownBy(() -> scan("{\"usage\":")).isInstanceOf(JacksonException.class);
  }
}
