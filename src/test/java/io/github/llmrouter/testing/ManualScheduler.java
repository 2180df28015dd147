package io.github.llmrouter.testing;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Delayed;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/**
 * A scheduler for tests in virtual time: it records scheduled tasks instead of running them, and
 * {@link #runNext()} runs the oldest. Cancelling a task's future forgets it.
 */
public final class ManualScheduler extends ScheduledThreadPoolExecutor {
  private final List<Runnable> tasks = new ArrayList<>();
  private final List<Long> delays = new ArrayList<>();

  public ManualScheduler() {
    super(1);
  }

  @Override
  public synchronized ScheduledFuture<?> schedule(Runnable command, long delay, TimeUnit unit) {
    tasks.add(command);
    delays.add(unit.toNanos(delay));
    ScheduledFuture<?> never = super.schedule(() -> {}, 1, TimeUnit.HOURS);
    return new ForwardingFuture(never, () -> {
      synchronized (ManualScheduler.this) {
        int i = tasks.indexOf(command);
        if (i >= 0) {
          tasks.remove(i);
          delays.remove(i);
        }
      }
    });
  }

  /** Runs the oldest scheduled task and returns the delay it was scheduled with. */
  public long runNext() {
    Runnable task;
    long delay;
    synchronized (this) {
      assertThat(tasks).as("scheduled tasks").isNotEmpty();
      task = tasks.remove(0);
      delay = delays.remove(0);
    }
    task.run();
    return delay;
  }

  /** Tasks scheduled and not yet run or cancelled. */
  public synchronized int pending() {
    return tasks.size();
  }

  /** A future whose cancel also forgets the recorded task. */
  private static final class ForwardingFuture implements ScheduledFuture<Object> {
    private final ScheduledFuture<?> delegate;
    private final Runnable onCancel;

    ForwardingFuture(ScheduledFuture<?> delegate, Runnable onCancel) {
      this.delegate = delegate;
      this.onCancel = onCancel;
    }

    @Override
    public long getDelay(TimeUnit unit) {
      return delegate.getDelay(unit);
    }

    @Override
    public int compareTo(Delayed o) {
      return delegate.compareTo(o);
    }

    @Override
    public boolean cancel(boolean mayInterrupt) {
      onCancel.run();
      return delegate.cancel(mayInterrupt);
    }

    @Override
    public boolean isCancelled() {
      return delegate.isCancelled();
    }

    @Override
    public boolean isDone() {
      return delegate.isDone();
    }

    @Override
    public Object get() {
      throw new UnsupportedOperationException();
    }

    @Override
    public Object get(long timeout, TimeUnit unit) {
      throw new UnsupportedOperationException();
    }
  }
}
