package io.github.llmrouter.observe;

/**
 * Panic mode began or ended. In panic, no replica of the fleet is eligible (each is unhealthy,
 * ejected or behind an open circuit breaker), so calls go to all of them in ranking order rather
 * than fail at once: a fleet that is wrongly judged sick keeps serving.
 *
 * @param entered true when panic began, false when an eligible replica reappeared
 * @param fleetSize the number of replicas in the fleet
 * @param reason a few words on why
 *
 * @since 0.2.0
 */
public record PanicEvent(boolean entered, int fleetSize, String reason) {}
