package io.github.llmrouter.replica;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.List;

/**
 * Turns a host name into its addresses for {@link DnsResolver}: the seam that tests drive.
 *
 * <p>{@link #uncached()} (the default) asks the DNS servers directly each time, so a headless
 * Service's new pods show up at the next re-resolution; {@link #system()} goes through {@link
 * InetAddress}, whose positive cache ({@code networkaddress.cache.ttl}, 30 s by default) would
 * hide changes for that long.
 *
 * @since 0.2.0
 */
@FunctionalInterface
public interface AddressLookup {
  /**
   * Every address of {@code host}: all A and AAAA records. Called from the resolver's own thread,
   * never on the request path, so it may block.
   *
   * @param host the name to look up
   * @return the addresses, at least one
   * @throws UnknownHostException if the name has no address or the lookup failed
   */
  List<InetAddress> lookup(String host) throws UnknownHostException;

  /**
   * {@return a lookup through {@link InetAddress#getAllByName}, which honours {@code /etc/hosts}
   * but answers from the JVM's cache}
   */
  static AddressLookup system() {
    return host -> List.of(InetAddress.getAllByName(host));
  }

  /**
   * A and AAAA queries sent straight to the system's DNS servers (JNDI's DNS provider, 1 s timeout,
   * 2 tries), bypassing the JVM's address cache. A name DNS does not know (such as {@code
   * localhost}) falls back to {@link #system()}, as does a short name that needs the resolver's
   * search domains: give the fully qualified name (e.g. {@code my-llm.default.svc.cluster.local})
   * to see changes at every re-resolution.
   *
   * @return the shared, thread-safe uncached lookup
   */
  static AddressLookup uncached() {
    return UncachedDnsLookup.INSTANCE;
  }
}
