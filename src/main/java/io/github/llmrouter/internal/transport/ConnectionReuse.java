package io.github.llmrouter.internal.transport;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.util.Collections;
import java.util.Set;
import java.util.WeakHashMap;
import okhttp3.Connection;
import okhttp3.Interceptor;
import okhttp3.Response;

/**
 * A network interceptor that tells a failure on a reused pooled connection from any other: an
 * exchange whose connection carried an earlier exchange, and that fails before the answer's
 * headers arrive, fails with {@link StaleConnection}. Servers that close idle connections, or (as
 * llama.cpp's server does) every connection after a streamed response while announcing
 * keep-alive, leave dead connections in the pool; the first request on one fails at once,
 * through no fault of the replica. Also tells a call's {@link AnswerWatch} when its answer begins.
 * One per OkHttp client; thread-safe (one short lock per exchange).
 */
final class ConnectionReuse implements Interceptor {
  /** Connections that have carried an exchange; weak, so closed ones go with the pool's. */
  private final Set<Connection> used =
      Collections.synchronizedSet(Collections.newSetFromMap(new WeakHashMap<>()));

  @Override
  public Response intercept(Chain chain) throws IOException {
    Connection connection = chain.connection();
    boolean reused = connection != null && !used.add(connection);
    Response response;
    try {
      response = chain.proceed(chain.request());
    } catch (IOException e) {
      // A timeout is the replica being slow, and a cancelled call is the caller's doing.
      if (reused && !(e instanceof InterruptedIOException) && !chain.call().isCanceled()) {
        throw new StaleConnection(e);
      }
      throw e;
    }
    AnswerWatch watch = chain.request().tag(AnswerWatch.class);
    if (watch != null) watch.answerBegan();
    return response;
  }

  /** The exchange failed on a reused connection before any answer arrived. */
  static final class StaleConnection extends IOException {
    private static final long serialVersionUID = 1L;

    StaleConnection(IOException cause) {
      super("reused connection failed before the answer: " + cause, cause);
    }
  }
}
