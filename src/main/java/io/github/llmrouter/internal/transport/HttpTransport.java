package io.github.llmrouter.internal.transport;

import static java.util.Objects.requireNonNull;

import io.github.llmrouter.api.ApiObject;
import io.github.llmrouter.api.LlmException;
import io.github.llmrouter.api.LlmTimeoutException;
import io.github.llmrouter.api.MalformedResponseException;
import io.github.llmrouter.api.RawRequest;
import io.github.llmrouter.api.RawResponse;
import io.github.llmrouter.api.ReplicaUnreachableException;
import io.github.llmrouter.api.ResponseStream;
import io.github.llmrouter.api.StreamChunk;
import io.github.llmrouter.api.Ticker;
import io.github.llmrouter.internal.load.LoadHeaders;
import io.github.llmrouter.load.LoadMonitoring;
import io.github.llmrouter.load.LoadReport;
import io.github.llmrouter.observe.ConnectionResentEvent;
import io.github.llmrouter.observe.RoutingListener;
import io.github.llmrouter.replica.Replica;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.net.SocketTimeoutException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.IntPredicate;
import okhttp3.Call;
import okhttp3.Callback;
import okhttp3.MediaType;
import okhttp3.OkHttpClient;
import okhttp3.Request;
import okhttp3.RequestBody;
import okhttp3.Response;
import org.jspecify.annotations.Nullable;
import tools.jackson.core.JacksonException;

/**
 * One HTTP exchange with one replica: the request built, the answer parsed and checked against its
 * {@link Endpoint}, every failure classified into the {@code api} exception hierarchy (an error
 * status is retryable exactly when the client's retry policy says so), and any load report the
 * response carries handed to the {@link LoadReportSink}. Holds no policy: whether and where to
 * retry is the dispatcher's decision. Thread-safe.
 */
public final class HttpTransport {
  private static final String JSON_TYPE = "application/json";
  private static final MediaType JSON = MediaType.get(JSON_TYPE);
  /** How much of an error body is read for its message and excerpt. */
  private static final int ERROR_BODY_PEEK_BYTES = 8192;

  private final OkHttpClient client;
  private final @Nullable String authorization;
  /** Makes what replicas send back as text fit to keep. */
  final ServerText serverText;
  private final Duration streamIdleTimeout;
  private final boolean loadMetricsHeader;
  private final @Nullable String queueHeader;
  private final LoadReportSink loadSink;
  private final Ticker ticker;
  private final RoutingListener listener;
  /**
   * The same client without a connection pool: each call on a connection of its own, closed
   * after it. For requests resent after a pooled connection turned out dead.
   */
  private final OkHttpClient unpooled;

  /**
   * {@return the threads of this transport's OkHttp dispatcher, where asynchronous exchanges run}
   */
  public java.util.concurrent.Executor executor() {
    return client.dispatcher().executorService();
  }

  /**
   * A transport for one client.
   *
   * @param client from {@link OkHttpClients#configure}: the connect timeout, and as read timeout
   *     the time-to-first-byte timeout
   * @param apiKey sent as {@code Authorization: Bearer}, or null
   * @param streamIdleTimeout the longest gap between stream events once the first has arrived
   * @param retryableStatus which HTTP statuses are worth another attempt (the retry policy's)
   * @param monitoring which load headers to ask for and read
   * @param loadSink where the load reports read from responses go
   * @param ticker stamps the reports
   * @param listener told of requests resent after a pooled connection turned out dead
   */
  public HttpTransport(OkHttpClient client, @Nullable String apiKey, Duration streamIdleTimeout,
      IntPredicate retryableStatus, LoadMonitoring monitoring, LoadReportSink loadSink,
      Ticker ticker, RoutingListener listener) {
    this.client = requireNonNull(client, "client");
    this.authorization = apiKey == null ? null : "Bearer " + apiKey;
    this.serverText = new ServerText(apiKey,
        requireNonNull(retryableStatus, "retryableStatus"));
    this.streamIdleTimeout = requireNonNull(streamIdleTimeout, "streamIdleTimeout");
    this.loadMetricsHeader = monitoring.loadMetricsHeader();
    this.queueHeader = monitoring.queueHeader();
    this.loadSink = requireNonNull(loadSink, "loadSink");
    this.ticker = requireNonNull(ticker, "ticker");
    this.listener = requireNonNull(listener, "listener");
    this.unpooled = OkHttpClients.unpooled(client);
  }

  /**
   * A prepared exchange.
   *
   * @param replica where it goes
   * @param endpoint the operation
   * @param raw what to send, its path resolved under the replica's base URL
   * @param timeoutNanos bounds the whole exchange (0 = none)
   * @param watch told when the answer begins, or null
   * @param added headers the listeners set, or null
   * @return the call, not yet started
   * @throws LlmException if the request cannot be built (never with a header value in the message)
   */
  public Call newCall(Replica replica, Endpoint<?> endpoint, RawRequest raw, long timeoutNanos,
      @Nullable AnswerWatch watch, @Nullable AddedHeaders added) {
    Request request;
    try {
      Request.Builder b = new Request.Builder().url(replica.url(raw.path()));
      for (Map.Entry<String, List<String>> h : raw.headers().entrySet()) {
        for (String value : h.getValue()) b.addHeader(h.getKey(), value);
      }
      String type = raw.contentType();
      b.method(raw.method(), type == null ? null
          : RequestBody.create(raw.body(), JSON_TYPE.equals(type) ? JSON : MediaType.parse(type)));
      if (endpoint.streaming() && raw.headers().get("Accept") == null) {
        b.header("Accept", "text/event-stream");
      }
      if (loadMetricsHeader) b.header(LoadHeaders.ENDPOINT_LOAD_METRICS_FORMAT, "TEXT");
      if (authorization != null) b.header("Authorization", authorization);
      for (Map.Entry<String, String> h : replica.headers().entrySet()) {
        b.header(h.getKey(), h.getValue());
      }
      if (added != null) added.applyTo(b);
      if (watch != null) b.tag(AnswerWatch.class, watch);
      request = b.build();
    } catch (IllegalArgumentException e) {
      // Headers are checked when replicas, keys and raw requests are built; OkHttp's own message
      // would show the offending value, so it is not passed on.
      throw new LlmException("the request to replica " + replica.id() + " could not be built: "
          + "an invalid method, path, header name or value (" + e.getClass().getSimpleName()
          + ")");
    }
    Call call = client.newCall(request);
    if (timeoutNanos > 0) call.timeout().timeout(timeoutNanos, TimeUnit.NANOSECONDS);
    return call;
  }

  /**
   * Runs {@code call} on this thread and parses its answer.
   *
   * @param <T> the answer type
   * @param replica the replica called
   * @param call from {@link #newCall}
   * @param endpoint what the answer binds to and must hold
   * @return the answer, never null
   * @throws LlmException the classified failure
   */
  public <T> T execute(Replica replica, Call call, Endpoint<T> endpoint) {
    return parse(replica, call, send(replica, call, endpoint), endpoint);
  }

  /**
   * Runs {@code call} on OkHttp's threads.
   *
   * @param <T> the answer type
   * @param replica the replica called
   * @param call from {@link #newCall}
   * @param endpoint what the answer binds to and must hold
   * @param end told how a raw stream ended, once it has been handed out
   * @param outcome receives the answer (never null) or the classified failure
   */
  public <T> void enqueue(Replica replica, Call call, Endpoint<T> endpoint,
      StreamEnd end, Outcome<T> outcome) {
    call.enqueue(new Callback() {
      @Override
      public void onFailure(Call c, IOException e) {
        if (e instanceof ConnectionReuse.StaleConnection) {
          // Once, on a fresh connection. (Cancelling the caller's future cancels the first call
          // only; the resent one then runs to its end, and its answer is dropped.)
          resend(replica, c, endpoint, e).enqueue(this);
          return;
        }
        outcome.failed(classify(replica, c, e));
      }

      @Override
      public void onResponse(Call c, Response response) {
        T value;
        try {
          // A raw stream waits here, on OkHttp's thread, for its first event.
          value = endpoint.raw() && endpoint.streaming()
              ? endpoint.type().cast(rawStream(replica, c, response, end))
              : parse(replica, c, response, endpoint);
        } catch (LlmException e) {
          outcome.failed(e);
          return;
        }
        outcome.succeeded(value);
      }
    });
  }

  /**
   * Runs a streaming {@code call} on this thread and reads up to the first chunk. Failures up to
   * that point are thrown (and may be retried); the returned stream owns the response from then on.
   *
   * @param <T> the chunk type
   * @param replica the replica called
   * @param call from {@link #newCall} for a streaming endpoint
   * @param endpoint what each chunk binds to
   * @param end told once how the stream ended (not if this throws): completed with its last chunk
   *     (the one that carries the usage, if the server sent it), broken by the replica, or
   *     abandoned by the caller
   * @return the stream, its first chunk read
   * @throws LlmException the classified failure before the first chunk
   */
  public <T extends ApiObject & StreamChunk> ResponseStream<T> openStream(Replica replica,
      Call call, Endpoint<T> endpoint, StreamEnd end) {
    Response response = send(replica, call, endpoint);
    readLoadReport(replica, response);
    try {
      checkStatus(replica, response);
      return SseStream.open(this, replica, call, response, endpoint.type(), streamIdleTimeout,
          end);
    } catch (RuntimeException e) {
      response.close();
      throw e instanceof LlmException ? (LlmException) e : unexpected(replica, e);
    }
  }

  /**
   * Runs a raw streaming {@code call} on this thread up to its first event.
   *
   * @param replica the replica called
   * @param call from {@link #newCall} for a raw streaming endpoint
   * @param endpoint the operation
   * @param end told once how the stream ended, as for {@link #openStream}
   * @return the answer, its first event arrived
   * @throws LlmException the classified failure before the first event
   */
  public RawResponse openRaw(Replica replica, Call call, Endpoint<?> endpoint,
      StreamEnd end) {
    return rawStream(replica, call, send(replica, call, endpoint), end);
  }

  /**
   * Sends {@code call} on this thread: its response, or the classified failure. A call that fails
   * on a pooled connection the replica had closed is sent again, once, on a fresh connection.
   */
  private Response send(Replica replica, Call call, Endpoint<?> endpoint) {
    Call sent = call;
    try {
      try {
        return call.execute();
      } catch (ConnectionReuse.StaleConnection stale) {
        sent = resend(replica, call, endpoint, stale);
        return sent.execute();
      }
    } catch (IOException e) {
      throw classify(replica, sent, e);
    } catch (RuntimeException e) {
      throw unexpected(replica, e);
    }
  }

  /**
   * The call again, on a connection of its own that no other exchange used: nothing of the answer
   * arrived, so this is safe for any request; it bounds the same time as the first. Reported to
   * the listener; not an attempt.
   */
  private Call resend(Replica replica, Call call, Endpoint<?> endpoint, IOException stale) {
    if (listener != RoutingListener.NONE) {
      Throwable cause = stale.getCause() != null ? stale.getCause() : stale;
      listener.onConnectionResent(new ConnectionResentEvent(endpoint.operation(), replica.id(),
          serverText.redact(replica, cause.toString())));
    }
    Call again = unpooled.newCall(call.request());
    again.timeout().timeout(call.timeout().timeoutNanos(), TimeUnit.NANOSECONDS);
    return again;
  }

  private <T> T parse(Replica replica, Call call, Response response, Endpoint<T> endpoint) {
    readLoadReport(replica, response);
    T value;
    try (response) {
      checkStatus(replica, response);
      if (endpoint.raw()) return endpoint.type().cast(WholeAnswer.read(replica, response, serverText));
      value = Json.MAPPER.readValue(response.body().byteStream(), endpoint.type());
    } catch (IOException e) {
      throw classify(replica, call, e);
    } catch (JacksonException e) {
      if (e.getCause() instanceof IOException) throw classify(replica, call, (IOException) e.getCause());
      throw new MalformedResponseException(replica.id(), "JSON body",
          serverText.scrubbed(replica, call.request(), e));
    } catch (LlmException e) {
      throw e;
    } catch (RuntimeException e) {
      throw unexpected(replica, e);
    }
    String defect = value == null ? "null" : endpoint.defect(value);
    if (defect != null) {
      throw new MalformedResponseException(replica.id(), "JSON body (" + defect + ")",
          new IOException("a " + endpoint.type().getSimpleName() + " needs what the body lacks"));
    }
    return value;
  }

  /**
   * A raw answer that is an event stream, from {@code response}: handed out once its first event
   * has arrived ({@link RawStream#open}); failures before it are thrown and may be retried.
   */
  private RawResponse rawStream(Replica replica, Call call, Response response,
      StreamEnd end) {
    readLoadReport(replica, response);
    try {
      checkStatus(replica, response);
      return RawStream.open(this, replica, call, response, streamIdleTimeout, end);
    } catch (RuntimeException e) {
      response.close();
      throw e instanceof LlmException ? (LlmException) e : unexpected(replica, e);
    }
  }

  /** A failure no exchange should produce, kept typed so that only LlmExceptions reach callers. */
  private static LlmException unexpected(Replica replica, RuntimeException e) {
    return new ReplicaUnreachableException(replica.id(), e);
  }

  /**
   * Hands a load report carried by {@code response} (any status: a 503 says the most) to the
   * sink. Malformed headers are ignored; a failing sink never fails the call.
   */
  private void readLoadReport(Replica replica, Response response) {
    try {
      LoadReport report = null;
      if (loadMetricsHeader) {
        report = LoadHeaders.parseEndpointLoadMetrics(
            response.header(LoadHeaders.ENDPOINT_LOAD_METRICS), ticker.read());
      }
      if (report == null && queueHeader != null) {
        report = LoadHeaders.parseQueueDepth(response.header(queueHeader), ticker.read());
      }
      if (report != null) loadSink.report(replica, report);
    } catch (RuntimeException e) {
      // A load report is advice; the call's outcome must not depend on it.
    }
  }

  private void checkStatus(Replica replica, Response response) {
    if (response.isSuccessful()) return;
    String excerpt;
    try {
      excerpt = response.peekBody(ERROR_BODY_PEEK_BYTES).string();
    } catch (IOException | RuntimeException e) {
      excerpt = "";
    }
    int status = response.code();
    response.close();
    throw serverText.httpError(replica, response.request(), status, excerpt,
        RetryAfter.of(response));
  }

  /** Maps an I/O failure of one exchange to the exception hierarchy. */
  LlmException classify(Replica replica, Call call, IOException e) {
    if (e instanceof InterruptedIOException && Thread.currentThread().isInterrupted()) {
      // The caller's thread was interrupted: stop, do not fail over.
      return new LlmException("interrupted while calling replica " + replica.id(), replica.id(), e);
    }
    if (e instanceof SocketTimeoutException) {
      // Connect, first-byte or stream-idle timeout of one replica: another may answer in time.
      return new LlmTimeoutException("replica " + replica.id() + " timed out ("
          + e.getMessage() + ")", replica.id(), e, true);
    }
    if (e instanceof InterruptedIOException && call.isCanceled()) {
      // OkHttp's whole-call timeout cancels the call: the caller's deadline, final.
      return new LlmTimeoutException("call deadline expired on replica " + replica.id(),
          replica.id(), e, false);
    }
    return new ReplicaUnreachableException(replica.id(), e);
  }

  /**
   * Receives the outcome of an enqueued exchange, on an OkHttp thread: exactly one of the two
   * methods is called, once.
   *
   * @param <T> the answer type
   */
  public interface Outcome<T> {
    /**
     * The replica answered.
     *
     * @param value the answer, never null
     */
    void succeeded(T value);

    /**
     * The exchange failed.
     *
     * @param failure the classified failure
     */
    void failed(LlmException failure);
  }
}
