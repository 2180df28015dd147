package io.github.llmrouter.internal.transport;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.github.llmrouter.api.LlmException;
import io.github.llmrouter.api.LlmTimeoutException;
import io.github.llmrouter.api.MalformedResponseException;
import io.github.llmrouter.api.ReplicaUnreachableException;
import io.github.llmrouter.api.Usage;
import io.github.llmrouter.replica.Replica;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import okhttp3.MediaType;
import okhttp3.Protocol;
import okhttp3.Request;
import okhttp3.Response;
import okhttp3.ResponseBody;
import okio.Buffer;
import okio.BufferedSource;
import okio.ForwardingSource;
import okio.Okio;
import okio.Timeout;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

/** The one life of an event stream: its end told once, by one rule, with no socket. */
class StreamCoreTest {
  private static final Replica REPLICA = Replica.of("http://127.0.0.1:1");
  private static final Function<IOException, LlmException> UNREACHABLE =
      e -> new ReplicaUnreachableException("r0", e);

  private final Ends ends = new Ends();
  private final Closing body = new Closing();

  @Test
  void anAnswerInJsonIsNotAnEventStream() {
    assertThatThrownBy(() -> StreamCore.requireEventStream(REPLICA,
        response("application/json; charset=utf-8")))
        .isInstanceOf(MalformedResponseException.class)
        .hasMessageContaining("got application/json, expected text/event-stream");
    StreamCore.requireEventStream(REPLICA, response("text/event-stream"));
    StreamCore.requireEventStream(REPLICA, response(null));
  }

  @Test
  void fromTheFirstEventOnEachReadWaitsTheIdleTimeout() {
    Response r = response("text/event-stream");
    StreamCore.idleFromNowOn(r, Duration.ofMillis(1500));
    assertThat(r.body().source().timeout().timeoutNanos())
        .isEqualTo(TimeUnit.MILLISECONDS.toNanos(1500));
  }

  @Test
  void aReaderThatStopsBeforeTheReplicaSaidItWasCompleteLetsGo() {
    StreamCore core = core();
    assertThat(core.ended()).isFalse();
    core.end(null);
    assertThat(ends.told).containsExactly("abandoned");
    assertThat(core.ended()).isTrue();
    assertThat(body.closed).isTrue();
  }

  @Test
  void aReaderThatStopsAfterTheReplicaSaidItWasCompleteCompletesIt() {
    StreamCore core = core();
    assertThat(core.complete()).isFalse();
    core.completeSaid();
    assertThat(core.complete()).isTrue();
    core.end(null);
    assertThat(ends.told).containsExactly("completed");
    assertThat(ends.reported).isEqualTo(Reported.NOTHING);
  }

  @Test
  void theEndIsToldOnceWhateverComesAfter() {
    StreamCore core = core();
    LlmException cut = new ReplicaUnreachableException("r0", new IOException("reset"));
    core.end(cut);
    core.completeSaid();
    core.end(null);
    core.end(cut);
    assertThat(core.bodyEnded()).isNull();
    assertThat(ends.told).containsExactly("broke");
    assertThat(ends.failure).isSameAs(cut);
  }

  @Test
  void aBodyThatEndsBeforeTheAnswerIsCompleteIsACutConnection() {
    StreamCore core = core();
    LlmException cut = core.bodyEnded();
    assertThat(cut).isInstanceOf(ReplicaUnreachableException.class);
    assertThat(cut.getCause()).hasMessage("stream ended without [DONE]");
    assertThat(ends.told).containsExactly("broke");
    assertThat(ends.failure).isSameAs(cut);
  }

  @Test
  void aBodyThatEndsAfterTheAnswerIsCompleteCompletesIt() {
    StreamCore core = core();
    core.completeSaid();
    assertThat(core.bodyEnded()).isNull();
    assertThat(ends.told).containsExactly("completed");
  }

  @Test
  void aFailedReadBreaksTheStreamButTheCallsDeadlineBlamesNoOne() {
    StreamCore broken = core();
    LlmException failure = broken.readFailed(new IOException("connection reset"));
    assertThat(failure).isInstanceOf(ReplicaUnreachableException.class);
    assertThat(ends.told).containsExactly("broke");
    assertThat(ends.failure).isSameAs(failure);

    Ends deadlineEnds = new Ends();
    LlmTimeoutException deadline = new LlmTimeoutException("deadline", null, null, false);
    StreamCore cutShort = new StreamCore(response("text/event-stream"), deadlineEnds,
        e -> deadline);
    assertThat(cutShort.readFailed(new IOException("timeout"))).isSameAs(deadline);
    assertThat(deadlineEnds.told).containsExactly("abandoned");

    Ends idleEnds = new Ends();
    LlmTimeoutException idle = new LlmTimeoutException("idle", "r0", null, true);
    new StreamCore(response("text/event-stream"), idleEnds, UNREACHABLE).failed(idle);
    assertThat(idleEnds.told).as("a replica silent past the idle timeout broke it")
        .containsExactly("broke");
  }

  @Test
  void theLastUsageReportedIsTheAnswersAndAModelIsKeptOnceKnown() {
    StreamCore core = core();
    core.reported(null, null);
    core.completeSaid();
    Usage first = usage(10);
    Usage last = usage(12);
    core.reported(null, "m1");
    core.reported(null, "m2");
    core.reported(first, null);
    core.reported(last, null);
    core.end(null);
    assertThat(ends.reported.usage()).isSameAs(last);
    assertThat(ends.reported.model()).isEqualTo("m1");
  }

  @Test
  void aUsageWithItsOwnModelTakesBoth() {
    StreamCore core = core();
    core.reported(null, "m1");
    Usage usage = usage(5);
    core.reported(usage, "m2");
    core.reported(null, "m3");
    core.completeSaid();
    core.end(null);
    assertThat(ends.reported).isEqualTo(new Reported(usage, "m2"));
  }

  @Test
  void nothingReportedIsNothing() {
    StreamCore core = core();
    core.completeSaid();
    core.end(null);
    assertThat(ends.reported).isSameAs(Reported.NOTHING);
  }

  private static Usage usage(int promptTokens) {
    return Json.MAPPER.readValue("{\"prompt_tokens\":" + promptTokens + "}", Usage.class);
  }

  private StreamCore core() {
    return new StreamCore(response("text/event-stream"), ends, UNREACHABLE);
  }

  private Response response(@Nullable String contentType) {
    BufferedSource source = Okio.buffer(body);
    Response.Builder b = new Response.Builder()
        .request(new Request.Builder().url("http://127.0.0.1:1/v1/chat/completions").build())
        .protocol(Protocol.HTTP_1_1).code(200).message("OK")
        .body(ResponseBody.create(source, contentType == null ? null
            : MediaType.get(contentType), -1));
    if (contentType != null) b.header("Content-Type", contentType);
    return b.build();
  }

  /** A body that knows whether it was closed. */
  private static final class Closing extends ForwardingSource {
    private final Timeout timeout = new Timeout();
    boolean closed;

    Closing() {
      super(new Buffer().writeUtf8("data: {}\n\n"));
    }

    @Override
    public Timeout timeout() {
      return timeout;
    }

    @Override
    public void close() throws IOException {
      closed = true;
      super.close();
    }
  }

  /** What the stream's end was told. */
  private static final class Ends implements StreamEnd {
    final List<String> told = new ArrayList<>();
    Reported reported = Reported.NOTHING;
    @Nullable LlmException failure;

    @Override
    public void completed(Reported reported) {
      told.add("completed");
      this.reported = reported;
    }

    @Override
    public void broke(LlmException failure) {
      told.add("broke");
      this.failure = failure;
    }

    @Override
    public void abandoned() {
      told.add("abandoned");
    }
  }
}
