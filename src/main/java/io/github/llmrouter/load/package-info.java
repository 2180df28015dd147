/**
 * What the client knows about the replicas' load: its own in-flight counts and the replicas' load
 * reports (Prometheus scrapes in engine dialects, response headers), combined in a {@link
 * io.github.llmrouter.load.LoadView} that routing policies read; when a replica is saturated;
 * and how reports are collected ({@link io.github.llmrouter.load.LoadMonitoring}). No I/O here.
 */
@NullMarked
package io.github.llmrouter.load;

import org.jspecify.annotations.NullMarked;
