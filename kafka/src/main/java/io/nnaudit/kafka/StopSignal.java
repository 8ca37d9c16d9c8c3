package io.nnaudit.kafka;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * The shipper's stop: asked for once, with a deadline, by the thread that stops the pipeline; looked at by the
 * shipper's thread, which ends its loop once it is caught up or the time is up, and cuts its pauses short.
 *
 * <p>Design note. Both fields are volatile, written by the stopping thread only, the deadline first, so that a
 * thread that sees the stop sees its deadline. Nothing blocks but {@link #pause}, on the shipper's thread, which
 * the stopping thread wakes by unparking it.
 */
final class StopSignal {
  private volatile boolean requested;
  private volatile long deadlineNanos;

  /** Asks for the stop, to be done within {@code timeoutMs}. */
  void request(long timeoutMs) {
    deadlineNanos = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMs);
    requested = true;
  }

  boolean requested() {
    return requested;
  }

  boolean timeIsUp() {
    return requested && System.nanoTime() - deadlineNanos >= 0;
  }

  /** What is left of the stop's time, in ms (0 when it is up). */
  long millisLeft() {
    return Math.max(0, TimeUnit.NANOSECONDS.toMillis(deadlineNanos - System.nanoTime()));
  }

  /**
   * Waits {@code ms}, less if a stop begins or its time is up. {@code requested} is read once before the wait, so
   * that a stop asked for meanwhile either clamps it to the deadline or ends it, never neither.
   */
  void pause(long ms) {
    long end = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(ms);
    boolean wasRequested = requested;
    if (wasRequested && deadlineNanos - end < 0) {
      end = deadlineNanos;
    }
    while (System.nanoTime() - end < 0 && requested == wasRequested) {
      LockSupport.parkNanos(end - System.nanoTime());
    }
  }
}
