package io.github.llmrouter.langchain4j;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.langchain4j.exception.LangChain4jException;
import dev.langchain4j.http.client.HttpMethod;
import dev.langchain4j.http.client.HttpRequest;
import io.github.llmrouter.api.RawRequest;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** How a LangChain4j request becomes the router's. */
class RoutedHttpClientTest {
  @Test
  void aJsonRequestKeepsItsPathQueryHeadersAndBody() {
    RawRequest raw = RoutedHttpClient.toRaw(HttpRequest.builder().method(HttpMethod.POST)
        .url("http://llm-router/v1/chat/completions?api-version=1")
        .addHeader("Authorization", "Bearer k").addHeader("X-Two", "a", "b")
        .body("{\"model\":\"m\"}").build());
    assertThat(raw.method()).isEqualTo("POST");
    assertThat(raw.path()).isEqualTo("/v1/chat/completions?api-version=1");
    assertThat(raw.headers().get("authorization")).containsExactly("Bearer k");
    assertThat(raw.headers().get("X-Two")).containsExactly("a", "b");
    assertThat(new String(raw.body(), StandardCharsets.UTF_8)).isEqualTo("{\"model\":\"m\"}");
    assertThat(raw.jsonBody()).isTrue();

    RawRequest get = RoutedHttpClient.toRaw(HttpRequest.builder().method(HttpMethod.GET)
        .url("http://llm-router/v1/models").build());
    assertThat(get.body()).isEmpty();
    assertThat(get.contentType()).isNull();
  }

  @Test
  void formDataIsSentAsMultipart() {
    RawRequest raw = RoutedHttpClient.toRaw(HttpRequest.builder().method(HttpMethod.POST)
        .url("http://llm-router/v1/audio/transcriptions")
        .addFormDataField("model", "whisper")
        .addFormDataFile("file", "a.wav", "audio/wav", new byte[] {1, 2, 3}).build());
    assertThat(raw.contentType()).startsWith("multipart/form-data; boundary=");
    String body = new String(raw.body(), StandardCharsets.ISO_8859_1);
    assertThat(body).contains("name=\"model\"").contains("whisper")
        .contains("name=\"file\"; filename=\"a.wav\"").contains("audio/wav")
        .contains(new String(new byte[] {1, 2, 3}, StandardCharsets.ISO_8859_1));
  }

  @Test
  void aRequestTheRouterCannotSendFailsWithoutShowingAHeaderValue() {
    assertThatThrownBy(() -> RoutedHttpClient.toRaw(HttpRequest.builder()
        .method(HttpMethod.POST).url("file:///etc/passwd").body("{}").build()))
        .isInstanceOf(LangChain4jException.class).hasMessageContaining("URL");
    assertThatThrownBy(() -> RoutedHttpClient.toRaw(HttpRequest.builder()
        .method(HttpMethod.POST).url("http://llm-router/v1/chat/completions")
        .addHeader("Authorization", "Bearer sk-secret\n").body("{}").build()))
        .isInstanceOf(LangChain4jException.class).hasMessageContaining("Authorization")
        .hasMessageNotContaining("sk-secret");
  }
}
