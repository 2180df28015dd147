/**
 * The replicas' load as routing policies and users see it: a {@link
 * io.github.llmrouter.load.LoadView} (the client's in-flight counts and the replicas' {@link
 * io.github.llmrouter.load.LoadReport}s), when a replica is saturated ({@link
 * io.github.llmrouter.load.Saturation}), and how reports are collected ({@link
 * io.github.llmrouter.load.LoadMonitoring}, in an {@link io.github.llmrouter.load.EngineDialect}'s
 * metric names). No I/O here.
 */
@NullMarked
package io.github.llmrouter.load;

import org.jspecify.annotations.NullMarked;
