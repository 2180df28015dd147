package io.github.llmrouter.replica;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.Hashtable;
import java.util.List;
import javax.naming.Context;
import javax.naming.NameNotFoundException;
import javax.naming.NamingEnumeration;
import javax.naming.NamingException;
import javax.naming.directory.Attribute;
import javax.naming.directory.Attributes;
import javax.naming.directory.DirContext;
import javax.naming.directory.InitialDirContext;

/**
 * Turns a host name into its addresses for {@link DnsResolver}: the seam that tests drive.
 *
 * <p>{@link #uncached()} (the default) asks the DNS servers directly each time, so a headless
 * Service's new pods show up at the next re-resolution; {@link #system()} goes through {@link
 * InetAddress}, whose positive cache ({@code networkaddress.cache.ttl}, 30 s by default) would
 * hide changes for that long.
 */
@FunctionalInterface
public interface AddressLookup {
  /**
   * Every address of {@code host}: all A and AAAA records.
   *
   * @throws UnknownHostException if the name has no address or the lookup failed
   */
  List<InetAddress> lookup(String host) throws UnknownHostException;

  /** {@link InetAddress#getAllByName}: honours {@code /etc/hosts}, but through the JVM's cache. */
  static AddressLookup system() {
    return host -> List.of(InetAddress.getAllByName(host));
  }

  /**
   * A and AAAA queries sent straight to the system's DNS servers (JNDI's DNS provider, 1 s timeout,
   * 2 tries), bypassing the JVM's address cache. A name DNS does not know (such as {@code
   * localhost}) falls back to {@link #system()}, as does a short name that needs the resolver's
   * search domains: give the fully qualified name (e.g. {@code my-llm.default.svc.cluster.local})
   * to see changes at every re-resolution.
   */
  static AddressLookup uncached() {
    return UncachedDns.INSTANCE;
  }

  /** The JNDI DNS query behind {@link #uncached()}. */
  final class UncachedDns implements AddressLookup {
    static final UncachedDns INSTANCE = new UncachedDns();
    private static final String[] TYPES = {"A", "AAAA"};

    private UncachedDns() {}

    @Override
    public List<InetAddress> lookup(String host) throws UnknownHostException {
      if (isLiteral(host)) return List.of(InetAddress.getAllByName(host));
      Hashtable<String, String> env = new Hashtable<>();
      env.put(Context.INITIAL_CONTEXT_FACTORY, "com.sun.jndi.dns.DnsContextFactory");
      env.put(Context.PROVIDER_URL, "dns:");
      env.put("com.sun.jndi.dns.timeout.initial", "1000");
      env.put("com.sun.jndi.dns.timeout.retries", "2");
      DirContext dns = null;
      try {
        dns = new InitialDirContext(env);
        Attributes attributes = dns.getAttributes(host, TYPES);
        List<InetAddress> addresses = new ArrayList<>();
        for (String type : TYPES) {
          Attribute records = attributes.get(type);
          if (records == null) continue;
          NamingEnumeration<?> values = records.getAll();
          while (values.hasMore()) {
            // Literal addresses: InetAddress parses them without another lookup.
            addresses.add(InetAddress.getByAddress(host,
                InetAddress.getByName(String.valueOf(values.next())).getAddress()));
          }
        }
        if (addresses.isEmpty()) return system().lookup(host);
        return addresses;
      } catch (NameNotFoundException notInDns) {
        return system().lookup(host);
      } catch (NamingException e) {
        UnknownHostException u = new UnknownHostException("DNS lookup of " + host + " failed: "
            + e.getExplanation());
        u.initCause(e);
        throw u;
      } finally {
        if (dns != null) {
          try {
            dns.close();
          } catch (NamingException ignored) {
            // nothing to release that matters
          }
        }
      }
    }

    private static boolean isLiteral(String host) {
      return host.indexOf(':') >= 0 || host.chars().allMatch(c -> c == '.' || (c >= '0' && c <= '9'));
    }
  }
}
