/**
 * Internal, not API (may change in any release): each replica's status (health, ejection,
 * {@code Retry-After} pause, slow start) and the active health checks that change it.
 */
@NullMarked
package io.github.llmrouter.internal.health;

import org.jspecify.annotations.NullMarked;
