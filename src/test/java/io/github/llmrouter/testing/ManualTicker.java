package io.github.llmrouter.testing;

import io.github.llmrouter.api.Ticker;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;

/** Logical time for tests: moves only when told to. */
public final class ManualTicker implements Ticker {
  private final AtomicLong nanos = new AtomicLong(1_000_000_000L);

  @Override
  public long read() {
    return nanos.get();
  }

  public void advance(Duration d) {
    nanos.addAndGet(d.toNanos());
  }
}
