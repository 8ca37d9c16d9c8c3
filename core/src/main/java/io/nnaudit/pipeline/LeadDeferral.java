package io.nnaudit.pipeline;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import java.util.function.IntSupplier;

/**
 * When a handler whose event was accepted may leave the write to a later handler, so that one write(2) carries
 * several records. On a NameNode with few cores a handler that leads a write at once usually finds only its own
 * event queued, and every operation pays a write call of its own. A handler defers instead while its RPC
 * server has calls waiting for a handler (those handlers will audit too, and the last of them finds the call
 * queue empty and writes for all), fewer than {@link #MAX_DEFERRED} events are queued, the oldest deferred
 * event is younger than {@link #MAX_DEFER_NANOS}, and the writer thread is ticking: awake at least every
 * {@link #MAX_DEFER_NANOS}, to write what no handler wrote in time. The deferring handler's response stays
 * postponed, as it does when another handler is writing; nothing is acknowledged before its record is written.
 *
 * <p>The writer thread ticks only while handlers want to defer: a handler that could defer notes the time
 * ({@link #lastWanted}), and leads at once while the writer is not ticking; the writer starts ticking when it
 * finds a recent note (at the latest after its idle sleep) and stops once none is newer than
 * {@link #WARM_NANOS}. So a loaded NameNode pays one timed wake-up of the writer per {@link #MAX_DEFER_NANOS},
 * however many handlers defer, and no handler ever wakes the writer for a deferral.
 *
 * <p>Design note. What blocks: nothing on a handler; {@link #defers} reads the RPC call queue's length and the
 * audit queue's size (each under its queue's lock), and makes at most one CAS and one volatile write. Nothing is
 * deferred, and the writer thread waits for nothing deferred, while the audit queue is close to full. The
 * writer thread ({@link #await}) writes deferred events at most about {@link #MAX_DEFER_NANOS} after the
 * oldest, plus a write in progress. What drops: nothing; a deferred event is in the queue like any other.
 * Order of shut-down: a closed pipeline's handlers do not lead, and its writer does not wait for deferred
 * events (its caller's {@code mustWriteNow}). Who owns what: {@link #oldest} is set by a deferring handler
 * (CAS from 0), cleared by the writing thread holding the write lock before it drains the queue
 * ({@link #draining}), so that an event deferred after the clear starts a new wait, and made due by it when it
 * leaves events behind ({@link #leftBehind}); an event deferred just before a clear is drained with the rest
 * (it was queued before its handler read {@code oldest}), and its time, left behind, only makes the next wait
 * shorter. {@link #ticking} is written by the writer thread only; a handler reads it after it has set or read
 * {@link #oldest}, and the writer, after it stops ticking, reads {@link #oldest} again and goes on ticking if a
 * deferral came in between. {@link #lastWanted} is written by handlers and read by the writer thread.
 */
final class LeadDeferral {
  /** Events queued at which a handler writes rather than defers. */
  static final int MAX_DEFERRED = 8;
  /** How long after the oldest deferral the writer thread writes what is queued, if no handler has. */
  static final long MAX_DEFER_NANOS = TimeUnit.MILLISECONDS.toNanos(1);
  /** How long after handlers last wanted to defer the writer thread goes on ticking. */
  static final long WARM_NANOS = TimeUnit.MILLISECONDS.toNanos(20);

  /** Events queued now. */
  private final IntSupplier queued;
  /** Whether the queue is close to full (by count or bytes): then nothing is deferred or waited for. */
  private final BooleanSupplier nearlyFull;
  /** Whether the calling handler's RPC server has calls waiting for a handler. */
  private final BooleanSupplier callsWaiting;
  /** {@link System#nanoTime} of the oldest deferral not yet drained, or 0. */
  private final AtomicLong oldest = new AtomicLong();
  /** Whether the writer thread wakes at least every {@link #MAX_DEFER_NANOS}. Written by the writer thread. */
  private volatile boolean ticking;
  /** When a handler last could have deferred (at a resolution of {@link #MAX_DEFER_NANOS}). */
  private volatile long lastWanted = System.nanoTime() - 2 * WARM_NANOS;

  LeadDeferral(IntSupplier queued, BooleanSupplier nearlyFull, BooleanSupplier callsWaiting) {
    this.queued = queued;
    this.nearlyFull = nearlyFull;
    this.callsWaiting = callsWaiting;
  }

  /** A handler whose event is queued: whether it leaves the write to a later handler (or the writer thread). */
  boolean defers() {
    if (!callsWaiting.getAsBoolean() || queued.getAsInt() >= MAX_DEFERRED || nearlyFull.getAsBoolean()) {
      return false;
    }
    long now = System.nanoTime();
    if (now - lastWanted > MAX_DEFER_NANOS) {
      lastWanted = now; // keeps the writer ticking, or makes it start
    }
    if (!ticking) {
      return false; // no one would write it in time: this handler writes
    }
    long first = oldest.get();
    if (first == 0 && oldest.compareAndSet(0, now == 0 ? 1 : now)) {
      first = now;
    } else if (first == 0) {
      first = oldest.get(); // another handler deferred first: its age decides
    }
    // Read after oldest was set or read: a writer that stops ticking reads oldest after it says so.
    return first != 0 && now - first < MAX_DEFER_NANOS && ticking;
  }

  /** Whether the writer thread is ticking (for tests). */
  boolean ticking() {
    return ticking;
  }

  /** The writing thread, holding the write lock, is about to drain the queue: what it drains is not deferred. */
  void draining() {
    oldest.set(0);
  }

  /**
   * The writing thread drained part of the queue (a batch's limit): what it left may have been deferred, so it
   * is due at once, for the next handler and for the writer thread.
   */
  void leftBehind() {
    long due = System.nanoTime() - MAX_DEFER_NANOS;
    oldest.set(due == 0 ? 1 : due);
  }

  /**
   * The writer thread, before a turn: returns when there is something to write now (queued and not deferred,
   * deferred and due, {@code mustWriteNow}, or a queue close to full), or after an idle sleep of up to
   * {@code idleNanos} when handlers do not want to defer and nothing is queued. While handlers want to defer it
   * ticks instead: it sleeps at most {@link #MAX_DEFER_NANOS} at a time. {@code handedOff}: events a failed
   * leader handed back, which end any sleep; {@code mustWriteNow} also covers a closed pipeline.
   */
  void await(long idleNanos, BooleanSupplier handedOff, BooleanSupplier mustWriteNow) {
    while (true) {
      if (handedOff.getAsBoolean()) {
        return;
      }
      long now = System.nanoTime();
      boolean wanted = now - lastWanted < WARM_NANOS;
      if (!ticking) {
        if (!wanted) {
          if (queued.getAsInt() == 0) {
            park(idleNanos);
          }
          if (System.nanoTime() - lastWanted >= WARM_NANOS) {
            return; // a turn as before: writes what is queued, or finds nothing
          }
        }
        ticking = true;
        continue;
      }
      int q = queued.getAsInt();
      if (q > 0 && (mustWriteNow.getAsBoolean() || nearlyFull.getAsBoolean())) {
        return;
      }
      long first = oldest.get();
      if (q > 0) {
        long wait = first == 0 ? 0 : first + MAX_DEFER_NANOS - now;
        if (wait <= 0) {
          return; // queued and not deferred, or deferred and due
        }
        park(wait);
      } else if (wanted) {
        park(MAX_DEFER_NANOS); // a tick
      } else {
        ticking = false;
        if (oldest.get() != 0 && queued.getAsInt() > 0) {
          ticking = true; // a handler deferred as the writer stopped: it watches on
          continue;
        }
        return;
      }
    }
  }

  private void park(long nanos) {
    LockSupport.parkNanos(this, nanos);
    Thread.interrupted(); // a stray interrupt must not make every park return at once
  }
}
