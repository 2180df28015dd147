package io.github.llmrouter.sim;

import io.github.llmrouter.load.LoadView;

/** One simulated client's own in-flight counts, in virtual time. Single-threaded. */
final class ClientLoad implements LoadView {
  private final int[] inFlight;
  private long total;

  ClientLoad(int replicas) {
    this.inFlight = new int[replicas];
  }

  void acquire(int replica) {
    inFlight[replica]++;
    total++;
  }

  void release(int replica) {
    inFlight[replica]--;
    total--;
  }

  @Override
  public int inFlight(int index) {
    return inFlight[index];
  }

  @Override
  public long totalInFlight() {
    return total;
  }
}
