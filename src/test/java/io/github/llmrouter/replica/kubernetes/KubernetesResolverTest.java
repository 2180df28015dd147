package io.github.llmrouter.replica.kubernetes;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointBuilder;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSlice;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSliceBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesMixedDispatcher;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.fabric8.mockwebserver.Context;
import io.fabric8.mockwebserver.MockWebServer;
import io.github.llmrouter.LlmClient;
import io.github.llmrouter.api.ChatMessage;
import io.github.llmrouter.api.ChatRequest;
import io.github.llmrouter.replica.Replica;
import io.github.llmrouter.replica.ReplicaSet;
import io.github.llmrouter.testing.RecordingContext;
import io.github.llmrouter.emulator.EmulatedReplica;
import io.github.llmrouter.testing.EventRecorder;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** EndpointSlice watching against fabric8's mock API server (CRUD mode), on loopback. */
class KubernetesResolverTest {
  private static final String NS = "inference";
  private static final Duration WAIT = Duration.ofSeconds(20);

  private KubernetesMockServer server;
  private KubernetesClient client;
  private final ScheduledExecutorService scheduler = new ScheduledThreadPoolExecutor(1);
  private final RecordingContext context = new RecordingContext(scheduler);
  private final List<ReplicaSet> published = context.published;
  private final List<Throwable> errors = context.errors;

  @BeforeEach
  void startServer() {
    server = crudServer(0);
    client = server.createClient();
  }

  @AfterEach
  void stopServer() {
    client.close();
    try {
      server.destroy();
    } catch (IllegalStateException slowShutdown) {
      // fabric8's mock server sometimes cannot finish closing a just-closed watch connection
      // within its own shutdown timeout ("Unable to close MockWebServer"). The test's assertions
      // have passed by then; the server's port and threads are released regardless.
    } finally {
      scheduler.shutdownNow();
    }
  }

  private static KubernetesMockServer crudServer(int port) {
    KubernetesMockServer s = new KubernetesMockServer(new Context(), new MockWebServer(),
        new HashMap<>(), new KubernetesMixedDispatcher(new HashMap<>()), false);
    s.init(InetAddress.getLoopbackAddress(), port);
    return s;
  }

  private static EndpointSlice slice(String name, String service, int port, Object... endpoints) {
    EndpointSliceBuilder b = new EndpointSliceBuilder().withNewMetadata().withName(name)
        .withNamespace(NS).addToLabels(KubernetesResolver.SERVICE_NAME_LABEL, service).endMetadata()
        .withAddressType("IPv4")
        .addNewPort().withName("metrics").withPort(9090).endPort()
        .addNewPort().withName("http").withPort(port).endPort();
    for (int i = 0; i < endpoints.length; i += 2) {
      b.addToEndpoints(new EndpointBuilder().withAddresses((String) endpoints[i])
          .withNewConditions().withReady((Boolean) endpoints[i + 1]).endConditions()
          .withNewTargetRef().withKind("Pod").withNamespace(NS)
          .withName("pod-" + ((String) endpoints[i]).replace('.', '-')).withUid("uid").endTargetRef()
          .build());
    }
    return b.build();
  }

  private Set<String> lastIds() {
    if (published.isEmpty()) return Set.of();
    return published.get(published.size() - 1).replicas().stream().map(Replica::id)
        .collect(Collectors.toSet());
  }

  private void awaitIds(String... ids) {
    try {
      EventRecorder.await("replicas " + List.of(ids), WAIT, () -> lastIds().equals(Set.of(ids)));
    } catch (AssertionError e) {
      errors.forEach(x -> e.addSuppressed(x));
      e.addSuppressed(new AssertionError("published: " + published));
      throw e;
    }
  }

  private KubernetesResolver resolver() {
    return KubernetesResolver.builder("vllm").namespace(NS).portName("http").client(client).build();
  }

  @Test
  void readyEndpointsOfEveryServiceSliceAreFollowedLive() {
    var slices = client.discovery().v1().endpointSlices().inNamespace(NS);
    slices.resource(slice("vllm-a", "vllm", 8000, "10.0.0.1", true, "10.0.0.2", true,
        "10.0.0.9", false)).create();
    slices.resource(slice("other-a", "other", 8000, "10.9.9.9", true)).create();
    try (KubernetesResolver k8s = resolver()) {
      k8s.start(context);
      awaitIds("10.0.0.1:8000", "10.0.0.2:8000"); // the not-ready one and the other Service's left out

      slices.resource(slice("vllm-b", "vllm", 8000, "10.0.0.3", true)).create();
      awaitIds("10.0.0.1:8000", "10.0.0.2:8000", "10.0.0.3:8000");

      slices.resource(slice("vllm-a", "vllm", 8000, "10.0.0.1", true, "10.0.0.2", false,
          "10.0.0.9", true)).update();
      awaitIds("10.0.0.1:8000", "10.0.0.3:8000", "10.0.0.9:8000");

      slices.withName("vllm-b").delete();
      awaitIds("10.0.0.1:8000", "10.0.0.9:8000");
      assertThat(published.get(published.size() - 1).get(0).baseUrl().toString())
          .isEqualTo("http://10.0.0.1:8000/");
    }
  }

  @Test
  void podAnnotationsGiveReplicasTheirWeight() {
    client.pods().inNamespace(NS).resource(new PodBuilder().withNewMetadata().withName("pod-10-0-0-1")
        .withNamespace(NS).addToAnnotations("llm-router.io/weight", "2.5").endMetadata().build())
        .create();
    client.discovery().v1().endpointSlices().inNamespace(NS)
        .resource(slice("vllm-a", "vllm", 8000, "10.0.0.1", true, "10.0.0.2", true)).create();
    try (KubernetesResolver k8s = KubernetesResolver.builder("vllm").namespace(NS).portName("http")
        .client(client).podWeightAnnotation("llm-router.io/weight").build()) {
      k8s.start(context);
      awaitIds("10.0.0.1:8000", "10.0.0.2:8000");
      ReplicaSet set = published.get(published.size() - 1);
      assertThat(set.get(set.indexOf("10.0.0.1:8000")).weight()).isEqualTo(2.5);
      assertThat(set.get(set.indexOf("10.0.0.2:8000")).weight()).isEqualTo(1.0);
    }
  }

  @Test
  void theWatchReconnectsAfterTheApiServerGoesAway() throws Exception {
    client.close();
    // The API server's address is a forwarder's, which outlives the server behind it: the
    // restarted server gets a port of its own, and no port is bound again after a server stopped.
    try (Forwarder apiServer = new Forwarder(address(server))) {
      // A client that retries quickly, as a real one would after a control-plane restart.
      client = server.createClient(b -> b.editOrNewConfig().withMasterUrl(apiServer.url())
          .withWatchReconnectInterval(50).withRequestRetryBackoffInterval(50).endConfig());
      reconnectAfterTheServerBehind(apiServer);
    }
  }

  private static InetSocketAddress address(KubernetesMockServer s) {
    return new InetSocketAddress(InetAddress.getLoopbackAddress(), s.getPort());
  }

  private void reconnectAfterTheServerBehind(Forwarder apiServer) {
    client.discovery().v1().endpointSlices().inNamespace(NS)
        .resource(slice("vllm-a", "vllm", 8000, "10.0.0.1", true)).create();
    try (KubernetesResolver k8s = resolver()) {
      k8s.start(context);
      awaitIds("10.0.0.1:8000");

      try {
        server.destroy();
      } catch (IllegalStateException slowShutdown) {
        // as in stopServer(): the port and threads are released regardless
      }
      apiServer.cutAll(); // what the server's going away does to its open connections
      server = crudServer(0); // a fresh API server: state re-created
      apiServer.retarget(address(server));
      KubernetesClient admin = server.createClient();
      try {
        admin.discovery().v1().endpointSlices().inNamespace(NS)
            .resource(slice("vllm-a", "vllm", 8000, "10.0.0.1", true, "10.0.0.4", true)).create();
        EventRecorder.await("the resolver to re-list or re-watch", WAIT, () -> {
          if (lastIds().contains("10.0.0.4:8000")) return true;
          // Touch the slice so that a re-established watch (without a re-list) sees an event.
          admin.discovery().v1().endpointSlices().inNamespace(NS).withName("vllm-a")
              .edit(s -> new EndpointSliceBuilder(s).editMetadata()
                  .addToAnnotations("touched", String.valueOf(System.nanoTime())).endMetadata().build());
          return false;
        });
      } finally {
        admin.close();
      }
      assertThat(lastIds()).containsExactlyInAnyOrder("10.0.0.1:8000", "10.0.0.4:8000");
    }
  }

  /**
   * Forwards the connections it accepts on a loopback port of its own to a target that can
   * change; connections it cannot forward are closed at once, as to a server that is down.
   */
  private static final class Forwarder implements AutoCloseable {
    private final ServerSocket listener;
    private final Set<Socket> open = ConcurrentHashMap.newKeySet();
    private final ExecutorService pool = Executors.newCachedThreadPool(r -> {
      Thread t = new Thread(r, "forwarder");
      t.setDaemon(true);
      return t;
    });
    private volatile InetSocketAddress target;

    Forwarder(InetSocketAddress target) throws IOException {
      this.target = target;
      listener = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
      pool.execute(this::acceptAll);
    }

    String url() {
      return "http://127.0.0.1:" + listener.getLocalPort();
    }

    void retarget(InetSocketAddress next) {
      target = next;
    }

    /** Closes every forwarded connection. */
    void cutAll() {
      open.forEach(Forwarder::closeQuietly);
      open.clear();
    }

    private void acceptAll() {
      while (!listener.isClosed()) {
        try {
          Socket accepted = listener.accept();
          pool.execute(() -> forward(accepted));
        } catch (IOException closed) {
          return;
        }
      }
    }

    private void forward(Socket downstream) {
      Socket upstream = new Socket();
      try {
        upstream.connect(target, 2_000);
      } catch (IOException down) {
        closeQuietly(downstream);
        closeQuietly(upstream);
        return;
      }
      open.add(downstream);
      open.add(upstream);
      pool.execute(() -> pipe(downstream, upstream));
      pool.execute(() -> pipe(upstream, downstream));
    }

    private static void pipe(Socket from, Socket to) {
      try {
        from.getInputStream().transferTo(to.getOutputStream());
      } catch (IOException ended) {
        // either side closed
      } finally {
        closeQuietly(from);
        closeQuietly(to);
      }
    }

    private static void closeQuietly(Socket s) {
      try {
        s.close();
      } catch (IOException ignored) {
        // closing
      }
    }

    @Override
    public void close() throws IOException {
      listener.close();
      cutAll();
      pool.shutdownNow();
    }
  }

  @Test
  void aKubeconfigFileConnects(@TempDir Path dir) throws Exception {
    client.discovery().v1().endpointSlices().inNamespace(NS)
        .resource(slice("vllm-a", "vllm", 8000, "10.0.0.1", true)).create();
    Path kubeconfig = dir.resolve("config");
    Files.writeString(kubeconfig, String.join("\n",
        "apiVersion: v1",
        "kind: Config",
        "clusters:",
        "- name: mock",
        "  cluster:",
        "    server: " + server.url("/").replaceAll("/$", ""),
        "contexts:",
        "- name: mock",
        "  context:",
        "    cluster: mock",
        "    user: tester",
        "    namespace: " + NS,
        "current-context: mock",
        "users:",
        "- name: tester",
        "  user:",
        "    token: not-a-secret",
        ""));
    try (KubernetesResolver k8s = KubernetesResolver.builder("vllm").portName("http")
        .kubeconfig(kubeconfig).build()) {
      k8s.start(context);
      awaitIds("10.0.0.1:8000"); // the namespace came from the kubeconfig's context
    }
  }

  @Test
  void autoConfigurationConnectsAsInAPod() {
    client.discovery().v1().endpointSlices().inNamespace(NS)
        .resource(slice("vllm-a", "vllm", 8000, "10.0.0.1", true)).create();
    // Auto-configuration (what runs in a pod, with the service account) read from system
    // properties here, since a test cannot mount a service-account token.
    String[][] props = {{"kubernetes.master", server.url("/")}, {"kubernetes.namespace", NS},
        {"kubernetes.auth.tryKubeConfig", "false"}, {"kubernetes.auth.tryServiceAccount", "false"}};
    for (String[] p : props) System.setProperty(p[0], p[1]);
    try (KubernetesResolver k8s = KubernetesResolver.builder("vllm").portName("http").build()) {
      k8s.start(context);
      awaitIds("10.0.0.1:8000");
    } finally {
      for (String[] p : props) System.clearProperty(p[0]);
    }
  }

  @Test
  void anLlmClientRoutesToThePodsOfAService() throws Exception {
    try (EmulatedReplica pod = EmulatedReplica.builder().id("pod").instant().build().start()) {
      client.discovery().v1().endpointSlices().inNamespace(NS)
          .resource(slice("vllm-a", "vllm", pod.port(), "127.0.0.1", true)).create();
      EventRecorder events = new EventRecorder();
      try (LlmClient llm = LlmClient.builder().resolver(resolver()).listener(events).build()) {
        assertThat(llm.whenReady().get(20, TimeUnit.SECONDS)).extracting(Replica::id)
            .containsExactly("127.0.0.1:" + pod.port());
        assertThat(llm.chat(ChatRequest.builder("m").message(ChatMessage.user("hi")).build()).text())
            .isNotEmpty();
        assertThat(events.membership).singleElement()
            .satisfies(e -> assertThat(e.reason()).isEqualTo("KubernetesResolver: inference/vllm:http"));
      }
    }
  }
}
