package io.github.llmrouter;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.github.llmrouter.api.ChatMessage;
import io.github.llmrouter.api.ChatRequest;
import io.github.llmrouter.replica.AddressLookup;
import io.github.llmrouter.replica.DnsResolver;
import io.github.llmrouter.replica.HealthCheck;
import io.github.llmrouter.emulator.EmulatedReplica;
import java.io.File;
import java.io.IOException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The fabric8 client is an optional dependency: the core must never need it. Proven twice: the
 * client runs in a class loader whose class path has no fabric8 (nor its Vert.x and Netty), and
 * no compiled class outside {@code replica.kubernetes} refers to a fabric8 class.
 */
class CoreWithoutFabric8Test {
  private static final List<String> OPTIONAL = List.of("/io/fabric8/", "/io/vertx/", "/io/netty/");

  @Test
  void theClientWorksWithFabric8AbsentFromTheClassPath() throws Exception {
    String classPath = System.getProperty("surefire.test.class.path",
        System.getProperty("java.class.path"));
    List<URL> kept = new ArrayList<>();
    int dropped = 0;
    for (String entry : classPath.split(File.pathSeparator)) {
      if (entry.isBlank()) continue;
      String normalized = entry.replace('\\', '/');
      if (OPTIONAL.stream().anyMatch(normalized::contains)) {
        dropped++;
        continue;
      }
      kept.add(Paths.get(entry).toUri().toURL());
    }
    assertThat(dropped).as("fabric8 jars found on the test class path to leave out").isPositive();

    // The platform loader as parent: nothing of the test's own class path leaks in.
    try (URLClassLoader bare = new URLClassLoader(kept.toArray(URL[]::new),
        ClassLoader.getPlatformClassLoader())) {
      assertThatThrownBy(() -> Class.forName("io.fabric8.kubernetes.client.KubernetesClient", false, bare))
          .isInstanceOf(ClassNotFoundException.class);
      Class<?> probe = Class.forName(Probe.class.getName(), true, bare);
      assertThat(probe.getClassLoader()).isSameAs(bare);
      Object answer = probe.getMethod("run").invoke(null);
      assertThat((String) answer).isNotEmpty();
    }
  }

  @Test
  void noCoreClassRefersToFabric8() throws IOException {
    Path classes = Paths.get(LlmClient.class.getProtectionDomain().getCodeSource().getLocation()
        .getPath());
    List<String> offenders = new ArrayList<>();
    try (Stream<Path> files = Files.walk(classes)) {
      for (Path p : (Iterable<Path>) files.filter(f -> f.toString().endsWith(".class"))::iterator) {
        String relative = classes.relativize(p).toString().replace('\\', '/');
        if (relative.startsWith("io/github/llmrouter/replica/kubernetes/")) continue;
        String bytes = new String(Files.readAllBytes(p), StandardCharsets.ISO_8859_1);
        if (bytes.contains("io/fabric8")) offenders.add(relative);
      }
    }
    assertThat(offenders).isEmpty();
  }

  /** Runs inside the fabric8-free class loader: a static fleet and a DNS-resolved one. */
  public static final class Probe {
    public static String run() throws Exception {
      try (EmulatedReplica replica = EmulatedReplica.builder().instant().build().start()) {
        ChatRequest hello = ChatRequest.builder("m").message(ChatMessage.user("hi")).build();
        String text;
        try (LlmClient client = LlmClient.builder().replicas(replica.baseUrl())
            .healthCheck(HealthCheck.defaults()).build()) {
          text = client.chat(hello).text();
        }
        try (LlmClient client = LlmClient.builder()
            .resolver(DnsResolver.builder("127.0.0.1", replica.port())
                .lookup(AddressLookup.uncached()).build())
            .build()) {
          client.whenReady().get(10, TimeUnit.SECONDS);
          text += client.chat(hello).text();
        }
        return text;
      }
    }

    private Probe() {}
  }
}
