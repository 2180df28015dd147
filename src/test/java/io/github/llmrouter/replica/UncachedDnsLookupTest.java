package io.github.llmrouter.replica;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Why {@link DnsResolver} exists: its default lookup asks a DNS server at every re-resolution,
 * bypassing the JVM's address cache, so pods that come and go behind a headless Service show up
 * at the next interval instead of after {@code networkaddress.cache.ttl}. Driven against a DNS
 * server on loopback whose answers the test changes.
 */
class UncachedDnsLookupTest {
  private FakeDnsServer dns;
  private UncachedDnsLookup lookup;

  @BeforeEach
  void start() throws Exception {
    dns = new FakeDnsServer();
    lookup = new UncachedDnsLookup(dns.url());
  }

  @AfterEach
  void stop() throws Exception {
    dns.close();
  }

  private static List<String> literals(List<InetAddress> addresses) {
    return addresses.stream().map(InetAddress::getHostAddress).toList();
  }

  @Test
  void everyLookupAsksTheDnsServerSoANewAnswerIsSeenAtOnce() throws Exception {
    dns.set("vllm.inference.svc.cluster.local", "10.0.0.1");
    assertThat(literals(lookup.lookup("vllm.inference.svc.cluster.local")))
        .containsExactly("10.0.0.1");

    dns.set("vllm.inference.svc.cluster.local", "10.0.0.2", "10.0.0.3", "fd00:0:0:0:0:0:0:7");
    assertThat(literals(lookup.lookup("vllm.inference.svc.cluster.local")))
        .containsExactlyInAnyOrder("10.0.0.2", "10.0.0.3", "fd00:0:0:0:0:0:0:7");
    // An A and an AAAA question per lookup, none answered from a cache; never one ANY question,
    // which many servers answer minimally or refuse (RFC 8482).
    String name = "vllm.inference.svc.cluster.local";
    assertThat(dns.questions()).containsExactly(new FakeDnsServer.Question(name, 1),
        new FakeDnsServer.Question(name, 28), new FakeDnsServer.Question(name, 1),
        new FakeDnsServer.Question(name, 28));
    assertThat(lookup.lookup("vllm.inference.svc.cluster.local")).allSatisfy(a ->
        assertThat(a.getHostName()).isEqualTo("vllm.inference.svc.cluster.local"));
  }

  @Test
  void aNameTheDnsServerDoesNotKnowFallsBackToTheSystemLookup() throws Exception {
    assertThat(lookup.lookup("localhost")).allSatisfy(a -> assertThat(a.isLoopbackAddress()).isTrue())
        .isNotEmpty();
    assertThat(dns.questions()).extracting(FakeDnsServer.Question::name).contains("localhost");
  }

  @Test
  void aFailingDnsServerIsAnUnknownHostExceptionNamingTheHost() {
    dns.failAll(true);
    assertThatThrownBy(() -> lookup.lookup("vllm.example"))
        .isInstanceOf(UnknownHostException.class)
        .hasMessageStartingWith("DNS lookup of vllm.example failed");
  }

  @Test
  void addressLiteralsNeedNoDnsServer() throws Exception {
    assertThat(literals(lookup.lookup("10.1.2.3"))).containsExactly("10.1.2.3");
    assertThat(literals(lookup.lookup("::1"))).containsExactly("0:0:0:0:0:0:0:1");
    assertThat(dns.questions()).isEmpty();
  }

  @Test
  void theDnsResolverLooksUpUncachedByDefault() {
    assertThat(DnsResolver.builder("vllm", 8000).build().lookup())
        .isSameAs(AddressLookup.uncached());
    assertThat(AddressLookup.uncached()).isSameAs(UncachedDnsLookup.INSTANCE);
  }
}
