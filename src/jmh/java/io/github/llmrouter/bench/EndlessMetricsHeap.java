package io.github.llmrouter.bench;

import com.sun.net.httpserver.HttpServer;
import io.github.llmrouter.LlmClient;
import io.github.llmrouter.api.ChatMessage;
import io.github.llmrouter.api.ChatRequest;
import io.github.llmrouter.api.LlmException;
import io.github.llmrouter.load.LoadMonitoring;
import java.io.IOException;
import java.io.OutputStream;
import java.lang.management.ManagementFactory;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Heap with an endless {@code /metrics} body. The server (its own JVM, so that its bookkeeping of
 * the connections the client cuts off is not counted in the client's heap) answers {@code
 * /metrics} with a body that never ends, writing until the client hangs up, and chat requests
 * with a small answer; it prints the bytes it wrote per scrape. The client JVM scrapes it every
 * 200 ms while one thread calls chat, and prints every 5 s the heap used after a full GC, scrapes
 * and failed scrapes, calls and failed calls, and OutOfMemoryErrors. Run by hand under a small
 * heap, not as a test:
 *
 * <pre>
 * mvn -B -q test-compile dependency:build-classpath -Dmdep.outputFile=target/cp.txt -Dmdep.includeScope=test
 * CP=target/test-classes:target/classes:$(cat target/cp.txt)
 * java -cp $CP io.github.llmrouter.bench.EndlessMetricsHeap serve 18090 &amp;
 * java -Xmx64m -cp $CP io.github.llmrouter.bench.EndlessMetricsHeap client 18090 60
 * </pre>
 */
public final class EndlessMetricsHeap {
  private static final String CHAT = "{\"id\":\"c\",\"object\":\"chat.completion\",\"choices\":"
      + "[{\"index\":0,\"message\":{\"role\":\"assistant\",\"content\":\"ok\"},"
      + "\"finish_reason\":\"stop\"}]}";

  private EndlessMetricsHeap() {}

  /**
   * Runs the server or the client.
   *
   * @param args {@code serve PORT}, or {@code client PORT SECONDS}
   */
  public static void main(String[] args) throws Exception {
    int port = Integer.parseInt(args[1]);
    if (args[0].equals("serve")) {
      serve(port);
    } else {
      client(port, Integer.parseInt(args[2]));
    }
  }

  private static void serve(int port) throws Exception {
    System.setProperty("sun.net.httpserver.nodelay", "true"); // no delayed-ACK stalls on chat
    AtomicLong written = new AtomicLong();
    AtomicLong scrapes = new AtomicLong();
    HttpServer server = HttpServer.create(
        new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 64);
    server.setExecutor(Executors.newCachedThreadPool());
    byte[] page = "vllm:num_requests_waiting{model_name=\"m\"} 1\n".repeat(1024)
        .getBytes(StandardCharsets.UTF_8);
    server.createContext("/metrics", ex -> {
      scrapes.incrementAndGet();
      ex.sendResponseHeaders(200, 0);
      try {
        OutputStream out = ex.getResponseBody();
        while (true) {
          out.write(page);
          written.addAndGet(page.length);
        }
      } catch (IOException clientHungUp) {
        ex.close();
      }
    });
    server.createContext("/v1/chat/completions", ex -> {
      ex.getRequestBody().readAllBytes();
      byte[] body = CHAT.getBytes(StandardCharsets.UTF_8);
      ex.getResponseHeaders().set("Content-Type", "application/json");
      ex.sendResponseHeaders(200, body.length);
      try (OutputStream out = ex.getResponseBody()) {
        out.write(body);
      }
    });
    server.start();
    while (true) {
      TimeUnit.SECONDS.sleep(5);
      long n = scrapes.get();
      System.out.printf("server: %d scrapes, %.1f MiB written per scrape%n", n,
          n == 0 ? 0 : written.get() / 1048576.0 / n);
    }
  }

  private static void client(int port, int seconds) throws Exception {
    AtomicLong calls = new AtomicLong();
    AtomicLong failedCalls = new AtomicLong();
    AtomicLong oom = new AtomicLong();
    Thread.setDefaultUncaughtExceptionHandler((t, e) -> {
      if (e instanceof OutOfMemoryError) oom.incrementAndGet();
      System.out.println("uncaught in " + t.getName() + ": " + e);
    });
    long maxHeap = 0;
    try (LlmClient client = LlmClient.builder().replicas("http://127.0.0.1:" + port)
        .loadMonitoring(LoadMonitoring.builder().scrapeInterval(Duration.ofMillis(200))
            .scrapeTimeout(Duration.ofMillis(200)).build())
        .build()) {
      long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
      Thread caller = new Thread(() -> {
        while (System.nanoTime() < end) {
          try {
            client.chat(ChatRequest.builder("m").message(ChatMessage.user("hi")).build());
            calls.incrementAndGet();
          } catch (LlmException e) {
            failedCalls.incrementAndGet();
          } catch (OutOfMemoryError e) {
            oom.incrementAndGet();
          }
        }
      }, "caller");
      caller.start();
      for (int s = 5; s <= seconds; s += 5) {
        TimeUnit.SECONDS.sleep(5);
        System.gc();
        long heap = ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
        maxHeap = Math.max(maxHeap, heap);
        System.out.printf("t=%2d s: heap after GC %.1f MiB, %d failed scrapes, %d calls (%d "
                + "failed), %d OutOfMemoryErrors%n", s, heap / 1048576.0,
            client.fleet().scrapeFailures(), calls.get(), failedCalls.get(), oom.get());
      }
      caller.join();
    }
    System.out.printf("max heap after GC %.1f MiB (-Xmx %d MiB)%n", maxHeap / 1048576.0,
        Runtime.getRuntime().maxMemory() >> 20);
  }
}
