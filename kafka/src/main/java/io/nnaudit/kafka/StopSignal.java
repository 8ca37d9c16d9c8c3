package io.nnaudit.kafka;

import java.nio.channels.ClosedByInterruptException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.nnaudit.throttle.IntervalGate;

/**
 * The shipper's stop: asked for once, with a deadline, by the thread that stops the pipeline; looked at by the
 * shipper's thread, which ends its loop once it is caught up or the time is up, and cuts its pauses short.
 *
 * <p>Design note. {@link #requested} and {@link #deadlineNanos} are volatile, written by the stopping thread only,
 * the deadline first, so that a thread that sees the stop sees its deadline. Nothing blocks but {@link #pause}, on
 * the shipper's thread, which the stopping thread wakes by unparking it. Nothing in nnaudit interrupts the shipper's
 * thread, and no interrupt ends it: one from elsewhere is cleared ({@link #clearStrayInterrupt}) after each park of
 * a pause and around each pass, start and finish of the shipper's thread, with a warning at most once a minute
 * (logged as KafkaShipper, the shipper's one logger name). Left set, it would make every park return at once
 * (the pause a busy loop) and every read of the audit files and wait for a producer's metadata fail. {@link #strayInterrupts} is written by the shipper's thread alone, and read by another only
 * once that thread has ended.
 */
final class StopSignal {
  private static final Logger LOG = LoggerFactory.getLogger(KafkaShipper.class); // the shipper's one logger name
  private static final long WARN_INTERVAL_MS = 60_000;

  private volatile boolean requested;
  private volatile long deadlineNanos;
  private final IntervalGate warnGate = new IntervalGate(WARN_INTERVAL_MS);
  private long strayInterrupts;

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

  /**
   * Whether an operation an interrupt cut short may be made again: fewer than {@code most} tries made so far
   * ({@code tries}) and the stop's time, if one was asked for, not up.
   */
  boolean mayTryAgain(int tries, int most) {
    return tries < most && !timeIsUp();
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
      clearStrayInterrupt();
    }
  }

  /** On the shipper's thread: clears an interrupt from outside nnaudit, counts it and warns at most once a minute. */
  void clearStrayInterrupt() {
    if (Thread.interrupted()) {
      strayInterrupted();
    }
  }

  /**
   * Whether {@code e} is a channel that an interrupt closed ({@link ClosedByInterruptException}, or one among its
   * causes): nothing is wrong with the file, and the same read or write, made again once the interrupt is
   * cleared, is expected to work.
   */
  static boolean byInterrupt(Throwable e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof ClosedByInterruptException) {
        return true;
      }
    }
    return false;
  }

  /** The interrupts cleared so far; read by another thread only once the shipper's thread has ended. */
  long strayInterrupts() {
    return strayInterrupts;
  }

  /** On the shipper's thread: an interrupt from outside nnaudit, already cleared (an InterruptedException). */
  void strayInterrupted() {
    strayInterrupts++;
    if (warnGate.tryOpen(System.currentTimeMillis())) {
      LOG.warn("nnaudit: the Kafka shipper's thread {} was interrupted (at least {} times since it started); only "
          + "the NameNode's stop of the audit pipeline ends it, so the interrupt is cleared and shipping goes on",
          Thread.currentThread().getName(), strayInterrupts);
    }
  }
}
