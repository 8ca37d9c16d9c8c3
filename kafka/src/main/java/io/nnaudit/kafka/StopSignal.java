package io.nnaudit.kafka;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The shipper's stop: asked for once, with a deadline, by the thread that stops the pipeline; looked at by the
 * shipper's thread, which ends its loop once it is caught up or the time is up, and cuts its pauses short.
 *
 * <p>Design note. Both fields are volatile, written by the stopping thread only, the deadline first, so that a
 * thread that sees the stop sees its deadline. Nothing blocks but {@link #pause}, on the shipper's thread, which
 * the stopping thread wakes by unparking it. Nothing in nnaudit interrupts the shipper's thread, and only a stop ends
 * it: an interrupt from elsewhere is cleared by the pause it meets, with a warning, since a set flag would make
 * every park return at once (the pause a busy loop) and every Kafka send fail.
 */
final class StopSignal {
  private static final Logger LOG = LoggerFactory.getLogger(StopSignal.class);

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

  /** Waits {@code ms}, less if a stop begins or its time is up. */
  void pause(long ms) {
    pause(ms, ms);
  }

  /**
   * Waits {@code ms}, or {@code whileStopping} once a stop has been asked for; less if a stop begins during the
   * wait or its time is up. The stop is looked at once, here, for both the choice and the wait: a stop asked for
   * after that look ends the wait (the stopping thread unparks this one); one asked for before it gets the short
   * wait, cut at its deadline. Were the choice made apart from the wait, a stop asked for between the two would
   * get the long wait cut only at its deadline, and the shipper would sleep through the time it had to ship.
   */
  void pause(long ms, long whileStopping) {
    boolean wasRequested = requested;
    long end = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(wasRequested ? whileStopping : ms);
    if (wasRequested && deadlineNanos - end < 0) {
      end = deadlineNanos;
    }
    while (System.nanoTime() - end < 0 && requested == wasRequested) {
      LockSupport.parkNanos(end - System.nanoTime());
      if (Thread.interrupted()) {
        LOG.warn("nnaudit: the Kafka shipper's thread {} was interrupted; only the NameNode's stop of the audit "
            + "pipeline ends it, so the interrupt is cleared and shipping goes on", Thread.currentThread().getName());
      }
    }
  }
}
