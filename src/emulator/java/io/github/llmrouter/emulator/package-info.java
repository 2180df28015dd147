/**
 * An emulated OpenAI-compatible replica with a modelled engine (continuous batching, a prefix
 * cache, load metrics, injectable faults), for demos and for applications' own tests. Shipped
 * as its own jar; not in the library's.
 */
@NullMarked
package io.github.llmrouter.emulator;

import org.jspecify.annotations.NullMarked;
