package io.github.llmrouter.internal.transport;

import java.time.Duration;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import okhttp3.ConnectionPool;
import okhttp3.Dispatcher;
import okhttp3.OkHttpClient;
import org.jspecify.annotations.Nullable;

/**
 * Builds the OkHttp client a client's exchanges, scrapes and health checks run on, and releases
 * it. Retries are never OkHttp's: they are counted, budgeted and failed over by the dispatcher.
 */
public final class OkHttpClients {
  private OkHttpClients() {}

  /**
   * The OkHttp client for one client.
   *
   * @param shared an application's client whose connection pool, threads, interceptors, TLS and
   *     proxy settings to share, or null for a client of our own (daemon threads, a pool of
   *     {@code min(maxConcurrentRequests, 256)} idle connections)
   * @param maxConcurrentRequests asynchronous exchanges in flight, in total and per replica
   * @param connectTimeout to open a connection
   * @param firstByteTimeout from sending a request to its first response byte, and between reads
   * @return a new client; pass it to {@link #release} when done if {@code shared} was null
   */
  public static OkHttpClient configure(@Nullable OkHttpClient shared, int maxConcurrentRequests,
      Duration connectTimeout, Duration firstByteTimeout) {
    OkHttpClient.Builder http;
    Dispatcher dispatcher;
    if (shared != null) {
      http = shared.newBuilder();
      // Share the caller's threads and connection pool, but not their per-host limit: OkHttp's
      // default of 5 concurrent calls per host would throttle a replica serving many streams.
      dispatcher = new Dispatcher(shared.dispatcher().executorService());
    } else {
      http = new OkHttpClient.Builder()
          .connectionPool(new ConnectionPool(Math.min(maxConcurrentRequests, 256), 5,
              TimeUnit.MINUTES));
      // OkHttp's own executor makes non-daemon threads, which would keep the JVM alive for a
      // minute after the last exchange of a client nobody closed (scrapes run every second).
      dispatcher = new Dispatcher(new ThreadPoolExecutor(0, Integer.MAX_VALUE, 60,
          TimeUnit.SECONDS, new SynchronousQueue<>(), DaemonThreads.named("llm-router-http")));
    }
    dispatcher.setMaxRequests(maxConcurrentRequests);
    dispatcher.setMaxRequestsPerHost(maxConcurrentRequests);
    return http.dispatcher(dispatcher)
        .addNetworkInterceptor(RetryAfter.HIDE)
        // Tells a failure on a pooled connection the replica closed from the replica's own.
        .addNetworkInterceptor(new ConnectionReuse())
        .connectTimeout(connectTimeout)
        .readTimeout(firstByteTimeout)
        .writeTimeout(firstByteTimeout)
        .callTimeout(Duration.ZERO) // per-attempt deadlines are set on each call
        .retryOnConnectionFailure(false) // retries are ours: counted, budgeted, failed over
        .build();
  }

  /**
   * {@code http} without a connection pool: each call on a new connection, closed after it. For
   * asking a replica whether it accepts connections at all, which a pooled connection it had open
   * cannot tell (a stopping server may still answer, or hang, on one).
   *
   * @param http the client whose threads, interceptors and timeouts to share
   * @return a new client
   */
  public static OkHttpClient unpooled(OkHttpClient http) {
    return http.newBuilder().connectionPool(new ConnectionPool(0, 1, TimeUnit.SECONDS)).build();
  }

  /**
   * Releases the threads and idle connections of a client that {@link #configure} made without a
   * shared one; exchanges in progress finish.
   *
   * @param http the client
   */
  public static void release(OkHttpClient http) {
    http.dispatcher().executorService().shutdown();
    http.connectionPool().evictAll();
  }
}
