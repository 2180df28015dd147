package io.github.llmrouter.internal.transport;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.llmrouter.api.FailedAttempt;
import io.github.llmrouter.api.FleetSaturatedException;
import io.github.llmrouter.api.LlmTimeoutException;
import io.github.llmrouter.api.NoReplicaAvailableException;
import io.github.llmrouter.api.ReplicaHttpException;
import io.github.llmrouter.api.ReplicaUnreachableException;
import io.github.llmrouter.api.RetriesExhaustedException;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

class SdkErrorsTest {
  private static ReplicaHttpException http(int status, String body) {
    return new ReplicaHttpException("r1", status, "server said no", body, status >= 500, null);
  }

  private static JsonNode json(byte[] body) {
    return Json.MAPPER.readTree(new String(body, StandardCharsets.UTF_8));
  }

  @Test
  void eachFailureStandsForTheStatusAnSdkReads() {
    assertThat(SdkErrors.status(http(404, ""))).isEqualTo(404);
    RetriesExhaustedException gaveUp = new RetriesExhaustedException("attempt limit",
        List.of(new FailedAttempt(1, "r1", Duration.ofMillis(3), http(503, ""))));
    assertThat(SdkErrors.status(gaveUp)).isEqualTo(503);
    assertThat(SdkErrors.status(new FleetSaturatedException("every replica is saturated")))
        .isEqualTo(429);
    assertThat(SdkErrors.status(new NoReplicaAvailableException("no replicas"))).isEqualTo(503);
    assertThat(SdkErrors.status(new ReplicaUnreachableException("r1", new IOException("reset"))))
        .isEqualTo(-1);
    assertThat(SdkErrors.status(new LlmTimeoutException("slow", "r1", null, true))).isEqualTo(-1);
    RetriesExhaustedException unreachable = new RetriesExhaustedException("attempt limit",
        List.of(new FailedAttempt(1, "r1", Duration.ofMillis(3),
            new ReplicaUnreachableException("r1", new IOException("refused")))));
    assertThat(SdkErrors.status(unreachable)).isEqualTo(-1);
  }

  @Test
  void theServersJsonErrorIsKeptWhenWholeElseTheRoutersMessageStandsForIt() {
    String whole = "{\"error\":{\"message\":\"bad\",\"type\":\"invalid_request_error\"}}";
    assertThat(new String(SdkErrors.body(http(400, " " + whole + "\n")), StandardCharsets.UTF_8))
        .isEqualTo(whole);

    JsonNode cut = json(SdkErrors.body(http(400, "{\"error\":{\"message\":\"long")));
    assertThat(cut.get("error").get("message").asString())
        .isEqualTo("replica r1 answered HTTP 400: server said no");
    assertThat(cut.get("error").get("type").asString()).isEqualTo("ReplicaHttpException");

    JsonNode text = json(SdkErrors.body(http(502, "<html>Bad gateway</html>")));
    assertThat(text.get("error").get("message").asString()).contains("HTTP 502");
    JsonNode notAnError = json(SdkErrors.body(http(500, "{\"detail\":\"x\"}")));
    assertThat(notAnError.get("error").get("type").asString()).isEqualTo("ReplicaHttpException");

    JsonNode saturated = json(SdkErrors.body(new FleetSaturatedException("all saturated")));
    assertThat(saturated.get("error").get("message").asString()).isEqualTo("all saturated");
    assertThat(saturated.get("error").get("type").asString())
        .isEqualTo("FleetSaturatedException");
  }
}
