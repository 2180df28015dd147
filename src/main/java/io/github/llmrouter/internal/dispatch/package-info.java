/**
 * Internal, not API (may change in any release): the attempt loop of every call (admission,
 * waiting for replicas, ranking, eligibility, retries, failover, deadlines) and the client's
 * view of the fleet.
 */
@NullMarked
package io.github.llmrouter.internal.dispatch;

import org.jspecify.annotations.NullMarked;
