package io.nnaudit.throttle;

import java.util.concurrent.atomic.AtomicLong;

/**
 * Lets an action through at most once per interval, from any number of threads, without blocking: the first
 * time, and then once the interval since the last opening has passed. Of threads that arrive together, the one
 * whose CAS on the time of the last opening wins goes through; the others are turned away.
 */
public final class IntervalGate {
  private static final long NEVER = Long.MIN_VALUE;

  private final long intervalMs;
  /** When the gate last opened, or {@link #NEVER}; any thread, by CAS. */
  private final AtomicLong lastOpened = new AtomicLong(NEVER);

  public IntervalGate(long intervalMs) {
    this.intervalMs = intervalMs;
  }

  /** Whether the caller may act now; if so, the interval starts again from {@code nowMillis}. */
  public boolean tryOpen(long nowMillis) {
    long last = lastOpened.get();
    return (last == NEVER || nowMillis - last >= intervalMs) && lastOpened.compareAndSet(last, nowMillis);
  }

  /** Opens now whatever the interval (a last chance to act), and starts the interval again. */
  public void open(long nowMillis) {
    lastOpened.set(nowMillis);
  }
}
