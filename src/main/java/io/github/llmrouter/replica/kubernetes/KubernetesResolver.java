package io.github.llmrouter.replica.kubernetes;

import static java.util.Objects.requireNonNull;

import io.fabric8.kubernetes.api.model.ObjectReference;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.discovery.v1.Endpoint;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointPort;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSlice;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import io.github.llmrouter.replica.Replica;
import io.github.llmrouter.replica.ReplicaResolver;
import io.github.llmrouter.replica.ReplicaSet;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Resolves the fleet from the EndpointSlices of a Kubernetes Service: every endpoint that is
 * ready, straight to pod IPs, followed live through a watch (a fabric8 informer: list, then
 * watch, re-listing and re-watching after any error or disconnection).
 *
 * <pre>{@code
 * LlmClient client = LlmClient.builder()
 *     .resolver(KubernetesResolver.builder("vllm").namespace("inference").portName("http").build())
 *     .build();
 * }</pre>
 *
 * <p><b>Needs</b> {@code io.fabric8:kubernetes-client} on the classpath (an optional dependency of
 * llm-router; nothing else in the library loads fabric8 classes) and, in the pod's service
 * account, {@code get}, {@code list} and {@code watch} on {@code endpointslices} in the
 * Service's namespace (plus {@code get} on {@code pods} for {@link Builder#podWeightAnnotation}).
 *
 * <p><b>Connection.</b> Without {@link Builder#client} or {@link Builder#kubeconfig}, fabric8's
 * auto-configuration applies: in a pod, the service account's token, CA and namespace; outside,
 * {@code ~/.kube/config} or {@code $KUBECONFIG}.
 *
 * <p><b>Endpoints.</b> An endpoint is used when its {@code ready} condition is true or unset
 * (Kubernetes asks consumers to read "unset" as ready); terminating and not-ready pods are left
 * out. Each address becomes the replica {@code http://ADDRESS:PORT} with id {@code ADDRESS:PORT},
 * the id a DNS or static configuration of the same pod would give it. The port is the slice port
 * named {@link Builder#portName portName}, or the slice's only (else first) port.
 *
 * @since 0.2.0
 */
public final class KubernetesResolver implements ReplicaResolver {
  /** The label that ties an EndpointSlice to its Service: {@value}. */
  public static final String SERVICE_NAME_LABEL = "kubernetes.io/service-name";
  /** Default URL scheme of the replicas: {@value}. */
  public static final String DEFAULT_SCHEME = "http";
  /** The namespace used when neither the builder nor the configuration names one: {@value}. */
  public static final String DEFAULT_NAMESPACE = "default";

  private static final Logger log = LoggerFactory.getLogger(KubernetesResolver.class);

  private final String service;
  private final @Nullable String namespace;
  private final @Nullable String portName;
  private final String scheme;
  private final @Nullable KubernetesClient suppliedClient;
  private final @Nullable Path kubeconfig;
  private final @Nullable String podWeightAnnotation;
  private final Map<String, Double> podWeights = new ConcurrentHashMap<>();
  private final Object lock = new Object();
  private @Nullable KubernetesClient client; // guarded by lock
  private @Nullable SharedIndexInformer<EndpointSlice> informer; // guarded by lock
  private boolean closed; // guarded by lock
  private volatile String resolvedNamespace = DEFAULT_NAMESPACE;
  /** Set once the initial list is in: the informer's add events during it see partial lists. */
  private volatile boolean synced;

  private KubernetesResolver(Builder b) {
    this.service = b.service;
    this.namespace = b.namespace;
    this.portName = b.portName;
    this.scheme = b.scheme;
    this.suppliedClient = b.client;
    this.kubeconfig = b.kubeconfig;
    this.podWeightAnnotation = b.podWeightAnnotation;
  }

  /**
   * A builder for the endpoints of the Service named {@code service}.
   *
   * @param service the Service's name, in the namespace set on the builder; not null
   * @return a new builder holding every other default; not thread-safe
   */
  public static Builder builder(String service) {
    return new Builder(service);
  }

  @Override
  public void start(Context context) {
    SharedIndexInformer<EndpointSlice> started;
    synchronized (lock) {
      if (closed) return;
      if (informer != null) throw new IllegalStateException(name() + " already started");
      KubernetesClient k = suppliedClient != null ? suppliedClient : newClient();
      client = k;
      String ns = namespace != null ? namespace : k.getNamespace();
      resolvedNamespace = ns != null ? ns : DEFAULT_NAMESPACE;
      started = k.discovery().v1().endpointSlices().inNamespace(resolvedNamespace)
          .withLabel(SERVICE_NAME_LABEL, service).runnableInformer(0);
      informer = started;
    }
    started.addEventHandler(new ResourceEventHandler<>() {
      @Override
      public void onAdd(EndpointSlice slice) {
        publish(context, started);
      }

      @Override
      public void onUpdate(EndpointSlice before, EndpointSlice after) {
        publish(context, started);
      }

      @Override
      public void onDelete(EndpointSlice slice, boolean finalStateUnknown) {
        publish(context, started);
      }

      @Override
      public void onNothing() {
        // A re-list found nothing at all: the Service has no slices, so no replicas.
        publish(context, started);
      }
    });
    // Keep retrying the initial list and every failed watch (the informer backs off), and say so.
    started.exceptionHandler((isStarted, t) -> {
      context.failed(t);
      return true;
    });
    started.start().whenComplete((v, t) -> {
      if (t != null) {
        context.failed(t);
        return;
      }
      synced = true;
      publish(context, started); // the initial list, even when empty
    });
  }

  private KubernetesClient newClient() {
    if (kubeconfig == null) return new KubernetesClientBuilder().build();
    String yaml;
    try {
      yaml = Files.readString(kubeconfig, StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read kubeconfig " + kubeconfig, e);
    }
    return new KubernetesClientBuilder().withConfig(Config.fromKubeconfig(yaml)).build();
  }

  /**
   * Publishes the ready endpoints of every slice now in the informer's cache. With a pod weight
   * annotation, on the client's scheduler: reading a pod is a blocking call, which must not run on
   * the informer's own thread.
   */
  private void publish(Context context, SharedIndexInformer<EndpointSlice> from) {
    if (!synced) return;
    if (podWeightAnnotation == null) {
      publishNow(context, from);
      return;
    }
    try {
      context.scheduler().execute(() -> publishNow(context, from));
    } catch (java.util.concurrent.RejectedExecutionException closedClient) {
      // the client is closing: nobody to publish to
    }
  }

  /** Serialised, and reading the cache when it runs: whichever run is last publishes the latest. */
  private synchronized void publishNow(Context context, SharedIndexInformer<EndpointSlice> from) {
    try {
      context.publish(toReplicas(from.getStore().list()));
    } catch (RuntimeException e) {
      context.failed(e);
    }
  }

  ReplicaSet toReplicas(List<EndpointSlice> slices) {
    TreeMap<String, Replica> byId = new TreeMap<>(); // sorted: equal fleets make equal snapshots
    for (EndpointSlice slice : slices) {
      Integer port = portOf(slice);
      if (port == null || slice.getEndpoints() == null) continue;
      String type = slice.getAddressType();
      for (Endpoint e : slice.getEndpoints()) {
        if (!isReady(e) || e.getAddresses() == null) continue;
        double weight = weightOf(e);
        for (String address : e.getAddresses()) {
          String host = "IPv6".equals(type) || address.indexOf(':') >= 0 ? "[" + address + "]" : address;
          Replica.Builder r = Replica.builder(scheme + "://" + host + ":" + port);
          if (weight != Replica.DEFAULT_WEIGHT) r.weight(weight);
          Replica replica = r.build();
          byId.putIfAbsent(replica.id(), replica);
        }
      }
    }
    return ReplicaSet.of(new ArrayList<>(byId.values()));
  }

  private static boolean isReady(Endpoint e) {
    // Unset means unknown, which Kubernetes asks consumers to treat as ready.
    return e.getConditions() == null || !Boolean.FALSE.equals(e.getConditions().getReady());
  }

  private @Nullable Integer portOf(EndpointSlice slice) {
    List<EndpointPort> ports = slice.getPorts();
    if (ports == null || ports.isEmpty()) return null;
    if (portName == null) return ports.get(0).getPort();
    for (EndpointPort p : ports) if (portName.equals(p.getName())) return p.getPort();
    return null;
  }

  /** The weight named by the pod's annotation, if configured; cached per pod uid. */
  private double weightOf(Endpoint e) {
    ObjectReference ref = e.getTargetRef();
    if (podWeightAnnotation == null || ref == null || !"Pod".equals(ref.getKind())) {
      return Replica.DEFAULT_WEIGHT;
    }
    String key = ref.getName() + "/" + ref.getUid();
    return podWeights.computeIfAbsent(key, k -> readPodWeight(ref));
  }

  private double readPodWeight(ObjectReference ref) {
    KubernetesClient k;
    synchronized (lock) {
      k = client;
    }
    try {
      Pod pod = k == null ? null : k.pods()
          .inNamespace(ref.getNamespace() != null ? ref.getNamespace() : resolvedNamespace)
          .withName(ref.getName()).get();
      String value = pod == null || pod.getMetadata().getAnnotations() == null ? null
          : pod.getMetadata().getAnnotations().get(podWeightAnnotation);
      if (value == null) return Replica.DEFAULT_WEIGHT;
      double w = Double.parseDouble(value.trim());
      if (w > 0 && w <= Replica.MAX_WEIGHT) return w;
      log.warn("pod {} annotation {}={} is not a weight in (0, {}]; using {}", ref.getName(),
          podWeightAnnotation, value, Replica.MAX_WEIGHT, Replica.DEFAULT_WEIGHT);
    } catch (RuntimeException ex) {
      log.warn("cannot read the weight of pod {}: {}", ref.getName(), ex.toString());
    }
    return Replica.DEFAULT_WEIGHT;
  }

  @Override
  public void close() {
    SharedIndexInformer<EndpointSlice> i;
    KubernetesClient k;
    synchronized (lock) {
      if (closed) return;
      closed = true;
      i = informer;
      k = client;
    }
    if (i != null) i.stop();
    if (k != null && suppliedClient == null) k.close();
  }

  @Override
  public String name() {
    return "KubernetesResolver: " + (namespace != null ? namespace + "/" : "") + service
        + (portName != null ? ":" + portName : "");
  }

  @Override
  public String toString() {
    return name();
  }

  /** Builds a {@link KubernetesResolver}; {@link #build()} validates. Not thread-safe. */
  public static final class Builder {
    private final String service;
    private @Nullable String namespace;
    private @Nullable String portName;
    private String scheme = DEFAULT_SCHEME;
    private @Nullable KubernetesClient client;
    private @Nullable Path kubeconfig;
    private @Nullable String podWeightAnnotation;

    private Builder(String service) {
      this.service = requireNonNull(service, "service");
    }

    /**
     * The Service's namespace; default the client configuration's (in a pod: the pod's own), else
     * {@value #DEFAULT_NAMESPACE}.
     *
     * @param namespace the namespace; not null
     * @return this builder
     */
    public Builder namespace(String namespace) {
      this.namespace = requireNonNull(namespace, "namespace");
      return this;
    }

    /**
     * The name of the Service port to use; default the slice's only (else first) port.
     *
     * @param portName the port name; not null
     * @return this builder
     */
    public Builder portName(String portName) {
      this.portName = requireNonNull(portName, "portName");
      return this;
    }

    /**
     * {@code http} or {@code https}; default {@value #DEFAULT_SCHEME}.
     *
     * @param scheme the scheme; not null
     * @return this builder
     */
    public Builder scheme(String scheme) {
      this.scheme = requireNonNull(scheme, "scheme");
      return this;
    }

    /**
     * A fabric8 client to use (and leave open on close); default one auto-configured (in-cluster
     * service account, else kubeconfig) and closed with the resolver. fabric8's type appears here
     * because this resolver is the optional fabric8 integration: an application that already has a
     * configured {@code KubernetesClient} (credentials, proxy, a mock server in tests) shares it
     * rather than configuring a second one.
     *
     * @param client the client; not null
     * @return this builder
     */
    public Builder client(KubernetesClient client) {
      this.client = requireNonNull(client, "client");
      return this;
    }

    /**
     * A kubeconfig file to connect with, instead of auto-configuration.
     *
     * @param kubeconfig the kubeconfig; not null
     * @return this builder
     */
    public Builder kubeconfig(Path kubeconfig) {
      this.kubeconfig = requireNonNull(kubeconfig, "kubeconfig");
      return this;
    }

    /**
     * A pod annotation whose value is the replica's weight (e.g. {@code llm-router.io/weight: "2"}
     * on an H100 pod next to L4s); default none (every replica weighs 1). Read once per pod, which
     * needs {@code get} on {@code pods}.
     *
     * @param annotation the annotation; not null
     * @return this builder
     */
    public Builder podWeightAnnotation(String annotation) {
      this.podWeightAnnotation = requireNonNull(annotation, "annotation");
      return this;
    }

    /**
     * Validates every setting and builds the KubernetesResolver.
     *
     * @return an immutable, thread-safe {@code KubernetesResolver}
     * @throws IllegalArgumentException naming the first knob out of range
     */
    public KubernetesResolver build() {
      if (service.isBlank()) {
        throw new IllegalArgumentException("KubernetesResolver.service must not be blank");
      }
      if (namespace != null && namespace.isBlank()) {
        throw new IllegalArgumentException("KubernetesResolver.namespace must not be blank");
      }
      if (!scheme.equals("http") && !scheme.equals("https")) {
        throw new IllegalArgumentException("KubernetesResolver.scheme must be http or https, got "
            + scheme);
      }
      if (client != null && kubeconfig != null) {
        throw new IllegalArgumentException(
            "KubernetesResolver.client and KubernetesResolver.kubeconfig are exclusive");
      }
      return new KubernetesResolver(this);
    }
  }
}
