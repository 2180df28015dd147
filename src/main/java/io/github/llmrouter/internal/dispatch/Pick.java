package io.github.llmrouter.internal.dispatch;

/**
 * A replica an {@link EligibleWalk} picked for one attempt, and how. Immutable.
 *
 * @param index the replica's index in the membership snapshot
 * @param kind why it was picked
 * @param permitted whether the pick holds a circuit-breaker permission, to be returned with the
 *     attempt's outcome (false in panic, or for a replica without a breaker)
 * @param fromRanking whether it is the pick the ranking itself just returned: then the ranking's
 *     account of it (its predictions, its explanation, its feedback) applies; false for a replica
 *     revisited later (after a slow start declined it or a pause ended)
 */
record Pick(int index, Kind kind, boolean permitted, boolean fromRanking) {
  /** Why a replica was picked. */
  enum Kind {
    /** Eligible, in the ranking's order: the ranking's own reason stands. */
    RANKED(""),
    /** Its slow start declined the request's key, and no fully warm replica was left. */
    SLOW_START("slow start: no fully warm replica left"),
    /** No replica of the fleet was eligible when the call began: every one is tried. */
    PANIC("panic: no eligible replica, trying all");

    private final String reason;

    Kind(String reason) {
      this.reason = reason;
    }

    /** {@return why a pick of this kind was made, given the ranking's own reason} */
    String reason(String rankingReason) {
      return this == RANKED ? rankingReason : reason;
    }
  }

  /** {@return whether the pick was made in panic: no replica of the fleet was eligible} */
  boolean panicked() {
    return kind == Kind.PANIC;
  }
}
