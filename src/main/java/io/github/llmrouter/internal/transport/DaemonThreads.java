package io.github.llmrouter.internal.transport;

import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Names the client's threads and makes them daemons, so that a client left unclosed never keeps
 * the JVM alive.
 */
public final class DaemonThreads {
  private DaemonThreads() {}

  /**
   * A factory of daemon threads named {@code prefix-1}, {@code prefix-2}, ...
   *
   * @param prefix the threads' name prefix, such as {@code llm-router-scheduler}
   * @return a thread-safe factory
   */
  public static ThreadFactory named(String prefix) {
    AtomicInteger n = new AtomicInteger();
    return r -> {
      Thread t = new Thread(r, prefix + "-" + n.incrementAndGet());
      t.setDaemon(true);
      return t;
    };
  }
}
