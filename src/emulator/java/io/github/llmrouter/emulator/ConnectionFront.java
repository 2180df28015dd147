package io.github.llmrouter.emulator;

import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.Closeable;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A TCP front for an emulated replica that closes client connections the way some servers do,
 * without a {@code Connection: close} header: right after each streamed response (as llama.cpp's
 * server does, although its headers announce keep-alive), or once a connection has been idle for
 * a while. A client that pools connections then holds dead ones. Every byte is passed through
 * unchanged; responses are framed (by {@code Content-Length} or chunked encoding) only to know
 * where each ends.
 */
final class ConnectionFront implements Closeable {
  private static final int MAX_HEAD_BYTES = 64 * 1024;

  private final ServerSocket listener;
  private final InetSocketAddress backend;
  private final boolean closeAfterStreams;
  private final int idleMillis;
  private final ExecutorService threads;
  private final Set<Socket> open = ConcurrentHashMap.newKeySet();
  private final AtomicLong dropped = new AtomicLong();
  private volatile boolean closed;

  /**
   * Listens on 127.0.0.1:{@code port} (0: a free port) and passes each connection to {@code
   * backend}.
   *
   * @param idleMillis close a connection idle this long between requests; 0 never
   */
  ConnectionFront(int port, InetSocketAddress backend, boolean closeAfterStreams, int idleMillis,
      ThreadFactory threadFactory) throws IOException {
    this.backend = backend;
    this.closeAfterStreams = closeAfterStreams;
    this.idleMillis = idleMillis;
    this.listener = new ServerSocket();
    listener.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 1024);
    this.threads = Executors.newCachedThreadPool(threadFactory);
    threads.execute(this::accept);
  }

  int port() {
    return listener.getLocalPort();
  }

  /** Connections closed without telling the client: after a stream, or idle. */
  long dropped() {
    return dropped.get();
  }

  private void accept() {
    while (!closed) {
      Socket client;
      try {
        client = listener.accept();
      } catch (IOException e) {
        return; // closed
      }
      threads.execute(() -> serve(client));
    }
  }

  private void serve(Socket client) {
    Socket server = new Socket();
    open.add(client);
    open.add(server);
    try {
      if (closed) return;
      server.connect(backend);
      client.setTcpNoDelay(true);
      server.setTcpNoDelay(true);
      Exchange exchange = new Exchange(client, server);
      threads.execute(exchange::requests);
      exchange.responses();
    } catch (IOException e) {
      // a side went away: close both
    } finally {
      closeQuietly(client);
      closeQuietly(server);
      open.remove(client);
      open.remove(server);
    }
  }

  /** One client connection and its connection to the backend. */
  private final class Exchange {
    final Socket client;
    final Socket server;
    /** A request has been passed on and its response has not ended. */
    volatile boolean busy;

    Exchange(Socket client, Socket server) {
      this.client = client;
      this.server = server;
    }

    /** Client to backend, unchanged; closes an idle connection when asked to. */
    void requests() {
      byte[] buffer = new byte[16 * 1024];
      try {
        client.setSoTimeout(idleMillis);
        InputStream in = client.getInputStream();
        OutputStream out = server.getOutputStream();
        while (true) {
          int n;
          try {
            n = in.read(buffer);
          } catch (SocketTimeoutException idle) {
            if (busy) continue;
            dropped.incrementAndGet();
            break;
          }
          if (n < 0) break;
          busy = true;
          out.write(buffer, 0, n);
          out.flush();
        }
      } catch (IOException e) {
        // either side went away
      }
      closeQuietly(client);
      closeQuietly(server);
    }

    /** Backend to client, one response after another; returns when the connection is to end. */
    void responses() throws IOException {
      InputStream in = new BufferedInputStream(server.getInputStream());
      OutputStream out = client.getOutputStream();
      while (true) {
        byte[] head = head(in);
        if (head == null) return;
        out.write(head);
        String text = new String(head, StandardCharsets.ISO_8859_1);
        String lower = text.toLowerCase(Locale.ROOT);
        int status = Integer.parseInt(text.substring(9, 12));
        boolean stream = lower.contains("content-type: text/event-stream");
        if (lower.contains("transfer-encoding: chunked")) {
          chunked(in, out);
        } else if (lower.contains("content-length:")) {
          int at = lower.indexOf("content-length:") + "content-length:".length();
          long length = Long.parseLong(text.substring(at, text.indexOf('\r', at)).trim());
          copy(in, out, length);
        } else if (status >= 200 && status != 204 && status != 304) {
          in.transferTo(out); // delimited by the close
          out.flush();
          return;
        }
        out.flush();
        busy = false;
        if (stream && closeAfterStreams) {
          dropped.incrementAndGet();
          return;
        }
      }
    }
  }

  /** A response's status line and headers, up to the blank line; null at end of stream. */
  private static byte[] head(InputStream in) throws IOException {
    ByteArrayOutputStream head = new ByteArrayOutputStream();
    int last = 0; // the last four bytes read
    while (last != 0x0D0A0D0A) { // "\r\n\r\n"
      int b = in.read();
      if (b < 0) {
        if (head.size() == 0) return null;
        throw new IOException("response head cut short");
      }
      head.write(b);
      if (head.size() > MAX_HEAD_BYTES) throw new IOException("response head too long");
      last = last << 8 | b;
    }
    return head.toByteArray();
  }

  private static void chunked(InputStream in, OutputStream out) throws IOException {
    while (true) {
      String sizeLine = line(in, out);
      int semicolon = sizeLine.indexOf(';');
      long size = Long.parseLong((semicolon < 0 ? sizeLine : sizeLine.substring(0, semicolon))
          .trim(), 16);
      if (size == 0) {
        while (!line(in, out).isEmpty()) {
          // trailers
        }
        return;
      }
      copy(in, out, size);
      line(in, out); // the CRLF after the chunk
      out.flush(); // each chunk as it comes: stream events must not wait
    }
  }

  /** Reads and passes on one CRLF-terminated line; returns it without the line end. */
  private static String line(InputStream in, OutputStream out) throws IOException {
    StringBuilder s = new StringBuilder();
    while (true) {
      int b = in.read();
      if (b < 0) throw new IOException("response cut short");
      out.write(b);
      if (b == '\n') break;
      if (b != '\r') s.append((char) b);
      if (s.length() > MAX_HEAD_BYTES) throw new IOException("line too long");
    }
    return s.toString();
  }

  private static void copy(InputStream in, OutputStream out, long length) throws IOException {
    byte[] buffer = new byte[16 * 1024];
    long left = length;
    while (left > 0) {
      int n = in.read(buffer, 0, (int) Math.min(buffer.length, left));
      if (n < 0) throw new IOException("response cut short");
      out.write(buffer, 0, n);
      left -= n;
    }
  }

  /** Closes the listening socket: new connections are refused; open ones go on. */
  void stopAccepting() {
    closeQuietly(listener);
  }

  @Override
  public void close() {
    closed = true;
    closeQuietly(listener);
    for (Socket s : open) closeQuietly(s);
    threads.shutdownNow();
  }

  private static void closeQuietly(Closeable c) {
    try {
      c.close();
    } catch (IOException e) {
      // closing anyway
    }
  }
}
