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

/** The JNDI DNS query behind {@link AddressLookup#uncached()}. */
final class UncachedDnsLookup implements AddressLookup {
  /** The system's DNS servers, as {@code /etc/resolv.conf} names them. */
  static final UncachedDnsLookup INSTANCE = new UncachedDnsLookup("dns:");
  private static final String[] TYPES = {"A", "AAAA"};

  private final String servers;

  /** @param servers a JNDI DNS provider URL: {@code dns:} for the system's servers, or {@code
   *     dns://HOST:PORT} for one server (tests) */
  UncachedDnsLookup(String servers) {
    this.servers = servers;
  }

  @Override
  public List<InetAddress> lookup(String host) throws UnknownHostException {
    if (isLiteral(host)) return List.of(InetAddress.getAllByName(host));
    Hashtable<String, String> env = new Hashtable<>();
    env.put(Context.INITIAL_CONTEXT_FACTORY, "com.sun.jndi.dns.DnsContextFactory");
    env.put(Context.PROVIDER_URL, servers);
    env.put("com.sun.jndi.dns.timeout.initial", "1000");
    env.put("com.sun.jndi.dns.timeout.retries", "2");
    DirContext dns = null;
    try {
      dns = new InitialDirContext(env);
      List<InetAddress> addresses = new ArrayList<>();
      for (String type : TYPES) {
        // One query per type: asked for both at once, JNDI sends a single ANY query, which many
        // servers answer minimally or refuse (RFC 8482).
        Attributes attributes = dns.getAttributes(host, new String[] {type});
        Attribute records = attributes.get(type);
        if (records == null) continue;
        NamingEnumeration<?> values = records.getAll();
        while (values.hasMore()) {
          // Literal addresses: InetAddress parses them without another lookup.
          addresses.add(InetAddress.getByAddress(host,
              InetAddress.getByName(String.valueOf(values.next())).getAddress()));
        }
      }
      if (addresses.isEmpty()) return AddressLookup.system().lookup(host);
      return addresses;
    } catch (NameNotFoundException notInDns) {
      return AddressLookup.system().lookup(host);
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
