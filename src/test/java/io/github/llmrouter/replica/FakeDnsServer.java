package io.github.llmrouter.replica;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketException;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A DNS server on 127.0.0.1 (UDP, a free port) answering A, AAAA and ANY queries from a table the
 * test changes at will: what a cluster's DNS does when pods come and go. Unknown names are
 * NXDOMAIN; {@link #failAll} makes every answer SERVFAIL. Records every question it was asked.
 */
final class FakeDnsServer implements AutoCloseable {
  private static final int A = 1;
  private static final int AAAA = 28;
  private static final int ANY = 255;

  /** A question as received: the name (lower case, no trailing dot) and the query type. */
  record Question(String name, int type) {}

  private final DatagramSocket socket;
  private final Map<String, List<InetAddress>> table = new ConcurrentHashMap<>();
  private final List<Question> questions = new CopyOnWriteArrayList<>();
  private volatile boolean failAll;
  private final Thread loop;

  FakeDnsServer() throws SocketException {
    socket = new DatagramSocket(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
    loop = new Thread(this::serve, "fake-dns");
    loop.setDaemon(true);
    loop.start();
  }

  /** The JNDI provider URL of this server. */
  String url() {
    return "dns://127.0.0.1:" + socket.getLocalPort();
  }

  /** Answers {@code name} with {@code addresses} from now on (none: NXDOMAIN). */
  void set(String name, String... addresses) throws IOException {
    if (addresses.length == 0) {
      table.remove(name);
      return;
    }
    InetAddress[] parsed = new InetAddress[addresses.length];
    for (int i = 0; i < addresses.length; i++) parsed[i] = InetAddress.getByName(addresses[i]);
    table.put(name, List.of(parsed));
  }

  void failAll(boolean fail) {
    failAll = fail;
  }

  List<Question> questions() {
    return questions;
  }

  private void serve() {
    byte[] buffer = new byte[512];
    while (!socket.isClosed()) {
      DatagramPacket packet = new DatagramPacket(buffer, buffer.length);
      try {
        socket.receive(packet);
        byte[] reply = answer(ByteBuffer.wrap(packet.getData(), 0, packet.getLength()));
        socket.send(new DatagramPacket(reply, reply.length, packet.getSocketAddress()));
      } catch (IOException | RuntimeException e) {
        if (socket.isClosed()) return;
      }
    }
  }

  private byte[] answer(ByteBuffer query) {
    int id = query.getShort() & 0xffff;
    query.getShort(); // flags
    query.getShort(); // one question
    query.position(12);
    int questionStart = query.position();
    StringBuilder name = new StringBuilder();
    for (int len; (len = query.get() & 0xff) != 0; ) {
      if (name.length() > 0) name.append('.');
      byte[] label = new byte[len];
      query.get(label);
      name.append(new String(label, java.nio.charset.StandardCharsets.US_ASCII));
    }
    int type = query.getShort() & 0xffff;
    query.getShort(); // class IN
    byte[] question = new byte[query.position() - questionStart];
    query.position(questionStart);
    query.get(question);
    String key = name.toString().toLowerCase(Locale.ROOT);
    questions.add(new Question(key, type));

    List<InetAddress> addresses = table.get(key);
    int rcode = failAll ? 2 : addresses == null ? 3 : 0;
    ByteArrayOutputStream records = new ByteArrayOutputStream();
    int count = 0;
    if (rcode == 0) {
      for (InetAddress a : addresses) {
        int t = a.getAddress().length == 4 ? A : AAAA;
        if (type != ANY && type != t) continue;
        ByteBuffer rr = ByteBuffer.allocate(12 + a.getAddress().length);
        rr.putShort((short) 0xc00c).putShort((short) t).putShort((short) 1).putInt(0)
            .putShort((short) a.getAddress().length).put(a.getAddress());
        records.writeBytes(rr.array());
        count++;
      }
    }
    ByteBuffer reply = ByteBuffer.allocate(12 + question.length + records.size());
    reply.putShort((short) id).putShort((short) (0x8180 | rcode)).putShort((short) 1)
        .putShort((short) count).putShort((short) 0).putShort((short) 0)
        .put(question).put(records.toByteArray());
    return reply.array();
  }

  @Override
  public void close() throws InterruptedException {
    socket.close();
    loop.join(5_000);
  }
}
