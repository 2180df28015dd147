package io.github.llmrouter;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.github.llmrouter.api.ChatMessage;
import io.github.llmrouter.api.ChatRequest;
import io.github.llmrouter.api.RawRequest;
import io.github.llmrouter.api.RawResponse;
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
 * The optional dependencies (the fabric8 client for {@code replica.kubernetes}; Micrometer for
 * {@code micrometer}; openai-java for {@code openai}; LangChain4j for {@code langchain4j}; Spring
 * Boot for {@code spring}) are
 * never needed by the core. Proven twice: the client runs in a class loader whose class path has
 * none of them (nor what they bring: Vert.x, Netty, HdrHistogram, OpenTelemetry, Prometheus,
 * Jackson 2's databind), and no compiled class outside their packages refers to them.
 */
class CoreWithoutOptionalJarsTest {
  private static final List<String> OPTIONAL = List.of("/io/fabric8/", "/io/vertx/", "/io/netty/",
      "/io/micrometer/", "/org/hdrhistogram/", "/org/latencyutils/", "/io/opentelemetry/",
      "/io/prometheus/", "/com/openai/", "/dev/langchain4j/", "/org/springframework/",
      "/com/fasterxml/jackson/core/jackson-databind/", "/com/fasterxml/jackson/core/jackson-core/");

  @Test
  void theClientWorksWithTheOptionalJarsAbsentFromTheClassPath() throws Exception {
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
    assertThat(dropped).as("optional jars found on the test class path to leave out")
        .isGreaterThanOrEqualTo(OPTIONAL.size() - 2);

    // The platform loader as parent: nothing of the test's own class path leaks in.
    try (URLClassLoader bare = new URLClassLoader(kept.toArray(URL[]::new),
        ClassLoader.getPlatformClassLoader())) {
      assertThatThrownBy(() -> Class.forName("io.fabric8.kubernetes.client.KubernetesClient", false, bare))
          .isInstanceOf(ClassNotFoundException.class);
      assertThatThrownBy(() -> Class.forName("io.micrometer.core.instrument.MeterRegistry", false,
          bare)).isInstanceOf(ClassNotFoundException.class);
      assertThatThrownBy(() -> Class.forName("io.micrometer.observation.Observation", false,
          bare)).isInstanceOf(ClassNotFoundException.class);
      assertThatThrownBy(() -> Class.forName("com.openai.core.http.HttpClient", false, bare))
          .isInstanceOf(ClassNotFoundException.class);
      assertThatThrownBy(() -> Class.forName("dev.langchain4j.http.client.HttpClient", false,
          bare)).isInstanceOf(ClassNotFoundException.class);
      assertThatThrownBy(() -> Class.forName("org.springframework.context.ApplicationContext",
          false, bare)).isInstanceOf(ClassNotFoundException.class);
      Class<?> probe = Class.forName(Probe.class.getName(), true, bare);
      assertThat(probe.getClassLoader()).isSameAs(bare);
      Object answer = probe.getMethod("run").invoke(null);
      assertThat((String) answer).isNotEmpty();
    }
  }

  @Test
  void noCoreClassRefersToAnOptionalJar() throws IOException {
    Path classes = Paths.get(LlmClient.class.getProtectionDomain().getCodeSource().getLocation()
        .getPath());
    List<String> offenders = new ArrayList<>();
    try (Stream<Path> files = Files.walk(classes)) {
      for (Path p : (Iterable<Path>) files.filter(f -> f.toString().endsWith(".class"))::iterator) {
        String relative = classes.relativize(p).toString().replace('\\', '/');
        String bytes = new String(Files.readAllBytes(p), StandardCharsets.ISO_8859_1);
        if (!relative.startsWith("io/github/llmrouter/replica/kubernetes/")
            && bytes.contains("io/fabric8")) {
          offenders.add(relative);
        }
        if (!relative.startsWith("io/github/llmrouter/micrometer/")
            && !relative.startsWith("io/github/llmrouter/spring/") // binds the meters
            && bytes.contains("io/micrometer")) {
          offenders.add(relative);
        }
        if (!relative.startsWith("io/github/llmrouter/openai/") && bytes.contains("com/openai")) {
          offenders.add(relative);
        }
        if (!relative.startsWith("io/github/llmrouter/langchain4j/")
            && bytes.contains("dev/langchain4j")) {
          offenders.add(relative);
        }
        if (!relative.startsWith("io/github/llmrouter/spring/")
            && bytes.contains("org/springframework")) {
          offenders.add(relative);
        }
      }
    }
    assertThat(offenders).isEmpty();
  }

  /** Runs inside the class loader without optional jars: a static fleet and a DNS-resolved one. */
  public static final class Probe {
    public static String run() throws Exception {
      try (EmulatedReplica replica = EmulatedReplica.builder().instant().build().start()) {
        ChatRequest hello = ChatRequest.builder("m").message(ChatMessage.user("hi")).build();
        String text;
        try (LlmClient client = LlmClient.builder().replicas(replica.baseUrl())
            .healthCheck(HealthCheck.defaults()).build()) {
          text = client.chat(hello).text();
          byte[] raw = ("{\"model\":\"m\",\"messages\":[{\"role\":\"user\",\"content\":"
              + "\"hi\"}]}").getBytes(StandardCharsets.UTF_8);
          try (RawResponse answer = client.send(RawRequest.post("/v1/chat/completions", raw)
              .build())) {
            if (answer.bodyBytes().length == 0) throw new AssertionError("empty raw answer");
          }
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
