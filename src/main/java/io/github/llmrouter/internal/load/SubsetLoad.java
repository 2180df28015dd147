package io.github.llmrouter.internal.load;

import static java.util.Objects.requireNonNull;

import io.github.llmrouter.load.LoadView;

/**
 * The load on part of a fleet, indexed like that part: each replica's figures are the fleet
 * view's, read through an index map; the fleet-wide sums a policy asks for ({@link
 * #totalInFlight()}, and the reported load and mean queue wait it adds up itself when a view
 * keeps none) are this part's alone, so a policy's load bound over one model's replicas is that
 * model's. Immutable; as thread-safe as the view it reads.
 */
public final class SubsetLoad implements LoadView {
  private final LoadView fleet;
  private final int[] toFleet;

  /**
   * @param fleet the whole fleet's view
   * @param toFleet for each replica of the part, its index in {@code fleet}; not copied
   */
  public SubsetLoad(LoadView fleet, int[] toFleet) {
    this.fleet = requireNonNull(fleet, "fleet");
    this.toFleet = requireNonNull(toFleet, "toFleet");
  }

  @Override
  public int inFlight(int index) {
    return fleet.inFlight(toFleet[index]);
  }

  /** {@return this part's requests in flight: one pass over it} */
  @Override
  public long totalInFlight() {
    long total = 0;
    for (int i : toFleet) total += fleet.inFlight(i);
    return total;
  }

  @Override
  public int effectiveQueue(int index) {
    return fleet.effectiveQueue(toFleet[index]);
  }

  @Override
  public double kvUsage(int index) {
    return fleet.kvUsage(toFleet[index]);
  }

  @Override
  public long kvCapacityTokens(int index) {
    return fleet.kvCapacityTokens(toFleet[index]);
  }

  @Override
  public int running(int index, long now) {
    return fleet.running(toFleet[index], now);
  }

  @Override
  public int concurrency(int index, long now) {
    return fleet.concurrency(toFleet[index], now);
  }

  @Override
  public int awaitingFirstToken(int index, long now) {
    return fleet.awaitingFirstToken(toFleet[index], now);
  }

  @Override
  public long reportAgeNanos(int index, long now) {
    return fleet.reportAgeNanos(toFleet[index], now);
  }

  @Override
  public int reportedLoad(int index, long now) {
    return fleet.reportedLoad(toFleet[index], now);
  }

  @Override
  public double queueWait(int index, long now) {
    return fleet.queueWait(toFleet[index], now);
  }

  @Override
  public long now() {
    return fleet.now();
  }

  @Override
  public long nanoTime() {
    return fleet.nanoTime();
  }

  @Override
  public int effectiveQueue(int index, long now) {
    return fleet.effectiveQueue(toFleet[index], now);
  }

  @Override
  public double kvUsage(int index, long now) {
    return fleet.kvUsage(toFleet[index], now);
  }

  @Override
  public long kvCapacityTokens(int index, long now) {
    return fleet.kvCapacityTokens(toFleet[index], now);
  }
}
