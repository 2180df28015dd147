package io.github.llmrouter.replica;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.github.llmrouter.testing.ManualScheduler;
import io.github.llmrouter.testing.RecordingContext;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** DNS re-resolution through the lookup seam, driven step by step: no timers fire. */
class DnsResolverTest {
  private final ManualScheduler scheduler = new ManualScheduler();
  private volatile List<String> answer = List.of();
  private volatile boolean dnsDown;
  private final RecordingContext context = new RecordingContext(scheduler);
  private final List<ReplicaSet> published = context.published;
  private final List<Throwable> errors = context.errors;

  private final AddressLookup seam = host -> {
    if (dnsDown) throw new UnknownHostException("SERVFAIL for " + host);
    List<InetAddress> out = new ArrayList<>();
    for (String a : answer) out.add(InetAddress.getByName(a));
    return out;
  };

  @AfterEach
  void stop() {
    scheduler.shutdownNow();
  }

  private DnsResolver resolver() {
    return DnsResolver.builder("vllm.inference.svc.cluster.local", 8000).lookup(seam).build();
  }

  private static List<String> ids(ReplicaSet set) {
    return set.replicas().stream().map(Replica::id).toList();
  }

  @Test
  void reResolutionPicksUpAddedAndRemovedAddressesEveryInterval() {
    DnsResolver dns = resolver();
    answer = List.of("10.0.0.2", "10.0.0.1");
    dns.start(context);
    assertThat(scheduler.runNext()).isZero(); // the first lookup runs at once
    assertThat(ids(published.get(0))).containsExactly("10.0.0.1:8000", "10.0.0.2:8000");
    assertThat(published.get(0).get(0).baseUrl().toString()).isEqualTo("http://10.0.0.1:8000/");

    answer = List.of("10.0.0.2", "10.0.0.3", "fd00::7");
    assertThat(scheduler.runNext()).isEqualTo(Duration.ofSeconds(5).toNanos());
    assertThat(ids(published.get(1))).containsExactly("10.0.0.2:8000", "10.0.0.3:8000",
        "fd00::7:8000");
    assertThat(published.get(1).get(2).baseUrl().toString()).isEqualTo("http://[fd00::7]:8000/");
    assertThat(errors).isEmpty();
  }

  @Test
  void aFailedLookupKeepsTheLastAnswerAndBacksOffUpToTheMaximum() {
    DnsResolver dns = DnsResolver.builder("vllm", 8000).lookup(seam)
        .interval(Duration.ofSeconds(5)).maxBackoff(Duration.ofSeconds(30)).build();
    answer = List.of("10.0.0.1");
    dns.start(context);
    scheduler.runNext();
    dnsDown = true;
    List<Long> delays = new ArrayList<>();
    for (int i = 0; i < 5; i++) delays.add(scheduler.runNext());
    // Each delay is the one before the failure that follows it: 5, then 5, 10, 20, 30 s.
    assertThat(delays).containsExactly(s(5), s(5), s(10), s(20), s(30));
    assertThat(published).hasSize(1); // nothing published: the last answer stays in use
    assertThat(errors).hasSize(5).allMatch(e -> e.getMessage().contains("SERVFAIL"));

    dnsDown = false;
    answer = List.of("10.0.0.1", "10.0.0.9");
    assertThat(scheduler.runNext()).isEqualTo(s(30));
    assertThat(ids(published.get(1))).containsExactly("10.0.0.1:8000", "10.0.0.9:8000");
    assertThat(scheduler.runNext()).as("back to the interval").isEqualTo(s(5));
  }

  @Test
  void anAnswerWithoutAddressesIsAFailureSoTheFleetNeverEmptiesOnAHiccup() {
    DnsResolver dns = resolver();
    answer = List.of("10.0.0.1");
    dns.start(context);
    scheduler.runNext();
    answer = List.of();
    scheduler.runNext();
    assertThat(published).hasSize(1);
    assertThat(errors).singleElement().satisfies(e -> assertThat(e).hasMessageContaining("no address"));
  }

  @Test
  void closingStopsReResolution() {
    DnsResolver dns = resolver();
    answer = List.of("10.0.0.1");
    dns.start(context);
    scheduler.runNext();
    dns.close();
    assertThat(scheduler.pending()).isZero();
  }

  @Test
  void theRealSystemLookupResolvesLocalhost() throws Exception {
    DnsResolver dns = DnsResolver.builder("localhost", 8000).lookup(AddressLookup.system()).build();
    dns.start(context);
    scheduler.runNext();
    assertThat(published).singleElement().satisfies(set ->
        assertThat(set.replicas()).extracting(r -> r.baseUrl().host())
            .containsAnyOf("127.0.0.1", "::1"));
    // The uncached lookup passes literals through without DNS.
    assertThat(AddressLookup.uncached().lookup("127.0.0.1"))
        .containsExactly(InetAddress.getByName("127.0.0.1"));
  }

  @Test
  void buildNamesTheKnobOutOfRange() {
    assertThatThrownBy(() -> DnsResolver.builder("h", 0).build())
        .hasMessageContaining("DnsResolver.port");
    assertThatThrownBy(() -> DnsResolver.builder("h", 80).interval(Duration.ofMillis(10)).build())
        .hasMessageContaining("DnsResolver.interval");
    assertThatThrownBy(() -> DnsResolver.builder("h", 80).maxBackoff(Duration.ofSeconds(1)).build())
        .hasMessageContaining("DnsResolver.maxBackoff");
    assertThatThrownBy(() -> DnsResolver.builder("h", 80).scheme("ftp").build())
        .hasMessageContaining("DnsResolver.scheme");
    assertThatThrownBy(() -> DnsResolver.builder(" ", 80).build())
        .hasMessageContaining("DnsResolver.host");
  }

  private static long s(int seconds) {
    return Duration.ofSeconds(seconds).toNanos();
  }
}
