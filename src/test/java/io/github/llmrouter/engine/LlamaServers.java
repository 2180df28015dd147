package io.github.llmrouter.engine;

import static org.junit.jupiter.api.Assertions.fail;

import io.github.llmrouter.replica.Replica;
import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.HttpURLConnection;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Assumptions;

/**
 * Real llama.cpp servers ({@code llama-server}) on loopback for the integration tests, with the tiny
 * random model {@link TinyGguf} writes. The engine comes from {@code LLAMA_SERVER} (a path), else
 * {@code llama-server} on the {@code PATH}, else the cache of {@code scripts/build-llama-server.sh};
 * without one the tests are skipped, saying so in one line, except under CI ({@code CI=true}),
 * where they must run and fail instead.
 */
final class LlamaServers {
  private static final Path WORK = Paths.get("target", "llama");
  private static final Path MODEL = WORK.resolve("tiny-random.gguf");
  private static @Nullable Path engine;
  private static boolean looked;

  private LlamaServers() {}

  /** The engine binary; skips the calling test (or fails it under CI) when there is none. */
  static synchronized Path engine() {
    if (!looked) {
      looked = true;
      engine = find();
    }
    Path e = engine;
    if (e == null) {
      String why = "no llama-server: set LLAMA_SERVER to its path, put it on the PATH, or build "
          + "one with scripts/build-llama-server.sh";
      if ("true".equalsIgnoreCase(System.getenv("CI"))) fail(why + "; CI must run these tests");
      System.out.println("llama.cpp integration tests skipped: " + why);
      Assumptions.abort(why);
    }
    return e;
  }

  private static @Nullable Path find() {
    String configured = System.getenv("LLAMA_SERVER");
    if (configured != null && !configured.isBlank()) {
      Path p = Paths.get(configured);
      return Files.isExecutable(p) ? p : null;
    }
    String path = System.getenv("PATH");
    if (path != null) {
      for (String dir : path.split(File.pathSeparator)) {
        Path p = Paths.get(dir, "llama-server");
        if (Files.isExecutable(p)) return p;
      }
    }
    String cache = System.getenv("LLM_ROUTER_CACHE");
    Path built = (cache != null ? Paths.get(cache)
        : Paths.get(System.getProperty("user.home"), ".cache", "llm-router"))
        .resolve("llama.cpp-node-llama-cpp-3.22.1").resolve("llama-server");
    return Files.isExecutable(built) ? built : null;
  }

  /** The model file, written on first use. */
  static synchronized Path model() {
    try {
      if (!Files.exists(MODEL)) {
        Files.createDirectories(WORK);
        TinyGguf.write(MODEL);
      }
      return MODEL;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** A free port on 127.0.0.1 now. */
  static int freePort() {
    try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      s.setReuseAddress(true);
      return s.getLocalPort();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** One running server. */
  /**
   * Starts {@code n} servers named {@code prefix} and their number, ready to serve; without an
   * engine this skips the calling test class (or, under CI, fails it).
   */
  static List<Server> start(int n, String prefix) {
    engine();
    List<Server> servers = new ArrayList<>();
    for (int i = 0; i < n; i++) servers.add(Server.start(prefix + i));
    return servers;
  }

  /** {@return the servers as a client's replicas, each with its server's name as id} */
  static List<Replica> replicas(List<Server> servers) {
    List<Replica> replicas = new ArrayList<>();
    for (Server s : servers) {
      replicas.add(Replica.builder(s.baseUrl()).id(s.name).build());
    }
    return replicas;
  }

  /**
   * The share of prompt tokens {@code servers} served from their caches since they started, by
   * their own counters ({@code llamacpp:prompt_tokens_cached_total} against those evaluated).
   */
  static double cachedShare(List<Server> servers) throws IOException {
    long cached = 0;
    long evaluated = 0;
    for (Server s : servers) {
      for (String line : s.get("/metrics").split("\n")) {
        if (line.startsWith("llamacpp:prompt_tokens_cached_total ")) {
          cached += (long) Double.parseDouble(line.substring(line.indexOf(' ') + 1).trim());
        } else if (line.startsWith("llamacpp:prompt_tokens_total ")) {
          evaluated += (long) Double.parseDouble(line.substring(line.indexOf(' ') + 1).trim());
        }
      }
    }
    return cached + evaluated == 0 ? 0 : (double) cached / (cached + evaluated);
  }

  static final class Server implements AutoCloseable {
    final int port;
    final String name;
    private final List<String> extraArgs;
    /** A router-mode server's models directory (it loads them on demand); else null. */
    private final @Nullable Path modelsDir;
    private @Nullable Process process;

    private Server(String name, int port, List<String> extraArgs, @Nullable Path modelsDir) {
      this.name = name;
      this.port = port;
      this.extraArgs = extraArgs;
      this.modelsDir = modelsDir;
    }

    /** Starts a server on a free port and waits until it is ready. */
    static Server start(String name, String... extraArgs) {
      Server s = new Server(name, freePort(), List.of(extraArgs), null);
      s.restart();
      return s;
    }

    /**
     * Starts a server in router mode ({@code --models-dir}) serving the tiny model under each of
     * {@code models}' names, at most {@code maxLoaded} loaded at once ({@code --models-max}).
     */
    static Server startRouter(String name, int maxLoaded, String... models) {
      Path dir = WORK.resolve(name + "-models");
      try {
        Files.createDirectories(dir);
        for (String m : models) {
          Files.copy(model(), dir.resolve(m + ".gguf"), StandardCopyOption.REPLACE_EXISTING);
        }
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
      Server s = new Server(name, freePort(),
          List.of("--models-max", String.valueOf(maxLoaded)), dir);
      s.restart();
      return s;
    }

    /** {@return how many model instances a router-mode server has spawned: its model loads} */
    long modelLoads() throws IOException {
      try (var lines = Files.lines(WORK.resolve(name + "-" + port + ".log"))) {
        return lines.filter(l -> l.contains("spawning server instance with name=")).count();
      }
    }

    String baseUrl() {
      return "http://127.0.0.1:" + port;
    }

    /** (Re)starts the process on this server's port and waits until it is ready (60 s at most). */
    void restart() {
      close(); // a process told to stop earlier, if any
      Path dir = modelsDir;
      List<String> cmd = new ArrayList<>(List.of(engine().toString(),
          dir == null ? "-m" : "--models-dir",
          (dir == null ? model() : dir).toAbsolutePath().toString(), "--host", "127.0.0.1",
          "--port", String.valueOf(port), "--metrics", "--slots", "-c", "32768", "-np", "2", "-t",
          "1", "--no-webui", "--chat-template", "chatml"));
      // The model's output is noise: ban the byte and control tokens, or the server's chat parser
      // answers HTTP 500 to it.
      for (int id = 0; id <= 258; id++) {
        cmd.add("-l");
        cmd.add(id + "-inf");
      }
      cmd.addAll(extraArgs);
      try {
        Files.createDirectories(WORK);
        process = new ProcessBuilder(cmd).redirectErrorStream(true)
            .redirectOutput(WORK.resolve(name + "-" + port + ".log").toFile()).start();
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
      while (!ready()) {
        Process p = process;
        if (p != null && !p.isAlive()) {
          fail("llama-server " + name + " exited with " + p.exitValue() + "; see " + WORK);
        }
        if (System.nanoTime() > deadline) fail("llama-server " + name + " not ready in 60 s");
        try {
          Thread.sleep(50);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          fail("interrupted");
        }
      }
    }

    /** Whether {@code /health} answers 200. */
    boolean ready() {
      try {
        HttpURLConnection c = (HttpURLConnection) URI.create(baseUrl() + "/health").toURL()
            .openConnection();
        c.setConnectTimeout(500);
        c.setReadTimeout(2000);
        try {
          return c.getResponseCode() == 200;
        } finally {
          c.disconnect();
        }
      } catch (IOException e) {
        return false;
      }
    }

    /** {@code GET path}'s body. */
    String get(String path) throws IOException {
      HttpURLConnection c = (HttpURLConnection) URI.create(baseUrl() + path).toURL()
          .openConnection();
      c.setReadTimeout(10_000);
      try (var in = c.getInputStream()) {
        return new String(in.readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
      } finally {
        c.disconnect();
      }
    }

    /**
     * Sends SIGTERM, as Kubernetes does to a pod going away, and returns at once: llama-server
     * closes its listener then, and never answers the requests it holds. {@link #restart} or
     * {@link #close} ends the process.
     */
    void sigterm() {
      Process p = process;
      if (p != null) p.destroy();
    }

    /**
     * Sends SIGSTOP (or, with {@code false}, SIGCONT): the process freezes as a wedged or paused
     * server does, its kernel still accepting connections that nothing answers, until continued.
     */
    void freeze(boolean frozen) {
      Process p = process;
      if (p == null) return;
      try {
        Process kill = new ProcessBuilder("kill", frozen ? "-STOP" : "-CONT", Long.toString(p.pid()))
            .redirectErrorStream(true).start();
        if (!kill.waitFor(10, TimeUnit.SECONDS) || kill.exitValue() != 0) {
          throw new IllegalStateException("kill " + (frozen ? "-STOP" : "-CONT") + " failed");
        }
      } catch (java.io.IOException e) {
        throw new java.io.UncheckedIOException(e);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException(e);
      }
    }

    @Override
    public void close() {
      Process p = process;
      if (p == null) return;
      p.destroyForcibly();
      try {
        p.waitFor(10, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      process = null;
    }

  }
}
