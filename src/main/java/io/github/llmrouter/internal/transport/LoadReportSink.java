package io.github.llmrouter.internal.transport;

import io.github.llmrouter.load.LoadReport;
import io.github.llmrouter.replica.Replica;

/**
 * Where the transport delivers the load reports it reads from response headers and metrics
 * scrapes: the client's load view. Called on OkHttp's threads; implementations must be
 * thread-safe and must not block or throw.
 */
@FunctionalInterface
public interface LoadReportSink {
  /**
   * Takes {@code report} as {@code replica}'s latest.
   *
   * @param replica the replica the report is about
   * @param report what it reported
   */
  void report(Replica replica, LoadReport report);
}
