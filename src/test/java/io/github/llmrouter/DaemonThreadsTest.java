package io.github.llmrouter;

import static io.github.llmrouter.Fixtures.chat;
import static org.assertj.core.api.Assertions.assertThat;

import io.github.llmrouter.emulator.EmulatedReplica;
import io.github.llmrouter.load.LoadMonitoring;
import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Every thread the client starts is a daemon: a client nobody closed never keeps the JVM up. */
class DaemonThreadsTest {
  @Test
  void everyThreadTheClientStartsIsADaemon() throws Exception {
    // Threads other tests left behind (an application's own OkHttpClient has non-daemon
    // dispatcher threads that linger for a minute) are not this client's.
    Set<Thread> before = Set.copyOf(Thread.getAllStackTraces().keySet());
    try (EmulatedReplica replica = EmulatedReplica.builder().instant().build().start();
        LlmClient client = LlmClient.builder().replicas(replica.baseUrl())
            .loadMonitoring(LoadMonitoring.builder().scrapeInterval(Duration.ofMillis(100))
            .scrapeTimeout(Duration.ofMillis(100)).build())
            .build()) {
      client.chat(chat("hi"));
      client.chatAsync(chat("async")).get(10, TimeUnit.SECONDS);
      client.scrapeLoadNow().get(10, TimeUnit.SECONDS);

      List<Thread> ours = Thread.getAllStackTraces().keySet().stream()
          .filter(t -> !before.contains(t))
          .filter(t -> t.getName().startsWith("llm-router") || t.getName().startsWith("OkHttp"))
          .toList();
      assertThat(ours).isNotEmpty().allSatisfy(t -> assertThat(t.isDaemon())
          .as("%s is a daemon thread", t.getName()).isTrue());
    }
  }

  @Test
  void aJvmWhoseClientWasNeverClosedExitsByItself(@TempDir Path dir) throws Exception {
    String classpath = System.getProperty("surefire.test.class.path",
        System.getProperty("java.class.path"));
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    Path out = dir.resolve("out.txt");
    Process child = new ProcessBuilder(java, "-cp", classpath,
        UnclosedClientMain.class.getName())
        .redirectErrorStream(true).redirectOutput(out.toFile()).start();
    // OkHttp's own dispatcher threads would keep it alive for a minute after the last call.
    boolean exited = child.waitFor(30, TimeUnit.SECONDS);
    if (!exited) child.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
    String output = Files.readString(out, StandardCharsets.UTF_8);
    assertThat(exited).as("the child JVM exited within 30 s; its output:%n%s", output).isTrue();
    assertThat(child.exitValue()).as(output).isZero();
    assertThat(output).contains("returning without close()");
    assertThat(new File(classpath.split(File.pathSeparator)[0])).exists();
  }
}
