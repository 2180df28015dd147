package io.github.llmrouter.internal.transport;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.llmrouter.api.FleetSaturatedException;
import io.github.llmrouter.api.LlmException;
import io.github.llmrouter.api.LlmTimeoutException;
import io.github.llmrouter.api.MalformedResponseException;
import io.github.llmrouter.api.NoReplicaAvailableException;
import io.github.llmrouter.api.ReplicaHttpException;
import io.github.llmrouter.api.ReplicaUnreachableException;
import io.github.llmrouter.api.StreamInterruptedException;
import io.github.llmrouter.internal.transport.Verdict.Blame;
import java.io.IOException;
import java.net.ConnectException;
import java.net.SocketTimeoutException;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Every failure an attempt can end with, and what it means: one table of rules. */
class VerdictTest {

  @Test
  void aFiveHundredIsTheReplicasFaultAndAFourHundredTheRequests() {
    Verdict v503 = Verdict.of(new ReplicaHttpException("r", 503, "", true, null));
    assertThat(v503).isEqualTo(new Verdict(Blame.REPLICA, true, false, false, 503, null,
        "HTTP 503"));
    assertThat(v503.replicaFault()).isTrue();
    assertThat(v503.deadline()).isFalse();
    assertThat(Verdict.of(new ReplicaHttpException("r", 500, "", true, null)).blame())
        .isEqualTo(Blame.REPLICA);
    assertThat(Verdict.of(new ReplicaHttpException("r", 501, "", false, null)))
        .as("a 5xx the policy does not retry still counts against the replica")
        .extracting(Verdict::blame, Verdict::retryable).containsExactly(Blame.REPLICA, false);
    assertThat(Verdict.of(new ReplicaHttpException("r", 499, "", false, null)))
        .extracting(Verdict::blame, Verdict::retryable).containsExactly(Blame.REQUEST, false);
    assertThat(Verdict.of(new ReplicaHttpException("r", 429, "", true, null)))
        .as("a 429 is retried elsewhere, and the replica works")
        .extracting(Verdict::blame, Verdict::retryable, Verdict::replicaFault)
        .containsExactly(Blame.REQUEST, true, false);
    assertThat(Verdict.of(new ReplicaHttpException("r", 400, "", false, null)).label())
        .isEqualTo("HTTP 400");
  }

  @Test
  void retryAfterComesFromTheAnswer() {
    Duration wait = Duration.ofSeconds(7);
    assertThat(Verdict.of(new ReplicaHttpException("r", 429, "", true, wait)).retryAfter())
        .isEqualTo(wait);
    assertThat(Verdict.of(new ReplicaHttpException("r", 503, "", true, null)).retryAfter())
        .isNull();
  }

  @Test
  void aTimeoutThatIsNotRetryableIsTheCallsDeadlineAndAnotherIsASlowReplica() {
    Verdict deadline = Verdict.of(new LlmTimeoutException("deadline", null, null, false));
    assertThat(deadline).isEqualTo(new Verdict(Blame.DEADLINE, false, false, false, -1, null,
        "deadline"));
    assertThat(deadline.deadline()).isTrue();
    assertThat(deadline.replicaFault()).isFalse();
    Verdict slow = Verdict.of(new LlmTimeoutException("first byte", "r0", null, true));
    assertThat(slow).isEqualTo(new Verdict(Blame.REPLICA, true, false, false, -1, null,
        "timeout"));
    assertThat(slow.deadline()).isFalse();
  }

  @Test
  void aRefusedConnectionAndAReplicaGoneAreUnreachableAndOtherIoFailuresAreNot() {
    Verdict refused = Verdict.of(new ReplicaUnreachableException("r",
        new ConnectException("refused")));
    assertThat(refused).isEqualTo(new Verdict(Blame.REPLICA, true, true, true, -1, null,
        "unreachable (ConnectException)"));
    Verdict gone = Verdict.of(new ReplicaUnreachableException("r", new Verdict.ReplicaGone("stopped accepting connections")));
    assertThat(gone).extracting(Verdict::blame, Verdict::retryable, Verdict::unreachable,
        Verdict::refused).containsExactly(Blame.REPLICA, true, true, false);
    assertThat(gone.label()).isEqualTo("unreachable (ReplicaGone)");
    Verdict reset = Verdict.of(new ReplicaUnreachableException("r",
        new IOException("connection reset")));
    assertThat(reset).extracting(Verdict::blame, Verdict::retryable, Verdict::unreachable,
        Verdict::refused).containsExactly(Blame.REPLICA, true, false, false);
    assertThat(Verdict.of(new ReplicaUnreachableException("r",
        new SocketTimeoutException("connect timed out"))).unreachable()).isFalse();
  }

  @Test
  void aMalformedAnswerIsTheReplicasFaultAndRetryable() {
    assertThat(Verdict.of(new MalformedResponseException("r", "not JSON",
        new IOException("unexpected end")))).isEqualTo(new Verdict(Blame.REPLICA, true, false,
            false, -1, null, "malformed response"));
  }

  @Test
  void whatTheCallerOrTheClientEndedSaysNothingAboutAReplica() {
    for (LlmException e : List.of(new LlmException("cancelled by the caller"),
        new StreamInterruptedException("r", List.of(), "partial", new IOException("reset")),
        new NoReplicaAvailableException("none"), new FleetSaturatedException("full"))) {
      Verdict v = Verdict.of(e);
      assertThat(v.blame()).as("%s", e.getClass().getSimpleName()).isEqualTo(Blame.NONE);
      assertThat(v.retryable()).isFalse();
      assertThat(v.replicaFault()).isFalse();
      assertThat(v.deadline()).isFalse();
      assertThat(v.unreachable()).isFalse();
      assertThat(v.status()).isEqualTo(-1);
      assertThat(v.label()).isEqualTo("failed");
    }
  }

  @Test
  void aReplicaGoneSaysWhatHappenedWithoutNamingTheReplica() {
    assertThat(new Verdict.ReplicaGone("stopped accepting connections").getMessage())
        .isEqualTo("stopped accepting connections before this attempt got any answer; failed over");
  }

  @Test
  void unknownModelAnswersAre404OrA400ThatSaysTheModelWasNotFound() {
    assertThat(Verdict.modelUnknown(error(404, "The model `x` does not exist.")))
        .isTrue();
    assertThat(Verdict.modelUnknown(error(404, null))).isTrue();
    assertThat(Verdict.modelUnknown(error(400, "model 'x' not found"))).isTrue();
    assertThat(Verdict.modelUnknown(error(400, "Model Not Found"))).isTrue();
    assertThat(Verdict.modelUnknown(error(400, "max_tokens too large"))).isFalse();
    assertThat(Verdict.modelUnknown(error(400, "file not found"))).isFalse();
    assertThat(Verdict.modelUnknown(error(400, null))).isFalse();
    assertThat(Verdict.modelUnknown(error(500, "model not found"))).isFalse();
  }

  private static ReplicaHttpException error(int status, String message) {
    return new ReplicaHttpException("r", status, message, "", false, null);
  }
}
