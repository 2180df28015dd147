package io.github.llmrouter.transport;

import io.github.llmrouter.load.LoadReport;
import io.github.llmrouter.replica.Replica;

/** Receives load reports read from responses or scrapes. Internal; must not block or throw. */
@FunctionalInterface
public interface LoadReportSink {
  void report(Replica replica, LoadReport report);
}
