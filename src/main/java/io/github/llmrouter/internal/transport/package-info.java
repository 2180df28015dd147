/**
 * Internal, not API (may change in any release): OkHttp set-up, one HTTP exchange with one
 * replica (JSON or SSE), failure classification, the JSON codec, metrics scraping.
 */
@NullMarked
package io.github.llmrouter.internal.transport;

import org.jspecify.annotations.NullMarked;
