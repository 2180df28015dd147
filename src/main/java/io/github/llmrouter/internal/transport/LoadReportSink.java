package io.github.llmrouter.internal.transport;

import io.github.llmrouter.internal.load.AdapterActivity;
import io.github.llmrouter.load.LoadReport;
import io.github.llmrouter.replica.Replica;

/**
 * Where the transport delivers the load reports it reads from response headers and metrics
 * scrapes, and whether a scrape could reach its replica at all: the client's view of the fleet.
 * Called on OkHttp's threads; implementations must be thread-safe and must not block or throw.
 */
public interface LoadReportSink {
  /**
   * Takes {@code report} as {@code replica}'s latest.
   *
   * @param replica the replica the report is about
   * @param report what it reported
   */
  void report(Replica replica, LoadReport report);

  /**
   * A scrape could not connect to {@code replica}: nothing listens there now.
   *
   * @param replica the replica
   * @param why what failed
   */
  default void refused(Replica replica, String why) {}

  /**
   * A scrape of {@code replica} showed which LoRA adapters it runs or queues now.
   *
   * @param replica the replica the report is about
   * @param activity its adapters
   */
  default void adapters(Replica replica, AdapterActivity activity) {}

  /**
   * A scrape got an answer (of any status) from {@code replica}: something listens there.
   *
   * @param replica the replica
   * @param answerNanos how long after sending the scrape its answer began
   */
  default void reached(Replica replica, long answerNanos) {}

  /**
   * A scrape of {@code replica}, asked again on a new connection with {@link #stallBoundNanos}
   * as its timeout, still got no answer: the replica may have stopped answering.
   *
   * @param replica the replica
   * @param what what timed out
   */
  default void timedOut(Replica replica, String what) {}

  /**
   * How long {@code replica} may leave a scrape unanswered before it is judged to have stopped
   * answering; a scrape that timed out is asked again on a new connection with this timeout.
   *
   * @param replica the replica
   * @return nanoseconds; 0 when nothing is judged on it
   */
  default long stallBoundNanos(Replica replica) {
    return 0;
  }

  /**
   * Whether {@code replica} is out for not being reachable: then only an answer on a new
   * connection says it is back, and its scrapes open one.
   *
   * @param replica the replica
   * @return true to scrape it on a new connection
   */
  default boolean awaitsReach(Replica replica) {
    return false;
  }
}
