package io.github.llmrouter.testing;

import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

/**
 * A loopback HTTP server answering every request with the current scripted answer, for tests that
 * send hundreds of exchanges (fuzzing): the JDK server with TCP_NODELAY answers in well under a
 * millisecond, where MockWebServer's separate header and body writes meet delayed ACKs and take
 * about 40 ms per exchange.
 */
public final class ScriptedServer implements AutoCloseable {
  static {
    // Read once, when the JDK server's configuration is first loaded; the emulated replica sets
    // it the same way.
    if (System.getProperty("sun.net.httpserver.nodelay") == null) {
      System.setProperty("sun.net.httpserver.nodelay", "true");
    }
  }

  /** One scripted answer. */
  public record Answer(int status, Map<String, String> headers, String body) {}

  private final HttpServer server;
  private final ExecutorService pool;
  private final AtomicReference<Answer> next =
      new AtomicReference<>(new Answer(200, Map.of(), ""));
  private final AtomicInteger requests = new AtomicInteger();

  /** Starts on 127.0.0.1, on a free port. */
  public ScriptedServer() {
    try {
      server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 64);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    AtomicInteger n = new AtomicInteger();
    pool = Executors.newCachedThreadPool(r -> {
      Thread t = new Thread(r, "scripted-server-" + n.incrementAndGet());
      t.setDaemon(true);
      return t;
    });
    server.setExecutor(pool);
    server.createContext("/", ex -> {
      requests.incrementAndGet();
      ex.getRequestBody().readAllBytes();
      Answer a = next.get();
      a.headers().forEach((k, v) -> ex.getResponseHeaders().set(k, v));
      byte[] body = a.body().getBytes(StandardCharsets.UTF_8);
      ex.sendResponseHeaders(a.status(), body.length == 0 ? -1 : body.length);
      try (OutputStream out = ex.getResponseBody()) {
        out.write(body);
      }
    });
    server.start();
  }

  /** Answers every later request with {@code answer}. */
  public void answer(int status, Map<String, String> headers, String body) {
    next.set(new Answer(status, Map.copyOf(headers), body));
  }

  /** {@code http://127.0.0.1:PORT}. */
  public String url() {
    return "http://127.0.0.1:" + server.getAddress().getPort();
  }

  /** Requests received so far. */
  public int requests() {
    return requests.get();
  }

  @Override
  public void close() {
    server.stop(0);
    pool.shutdownNow();
  }
}
