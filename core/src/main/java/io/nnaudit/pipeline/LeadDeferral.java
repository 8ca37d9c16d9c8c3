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
 * queue empty and writes for all), fewer than {@link #MAX_DEFERRED} events are queued, and the oldest deferred
 * event is younger than {@link #MAX_DEFER_NANOS}. The deferring handler's response stays postponed, as it does
 * when another handler is writing; nothing is acknowledged before its record is written.
 *
 * <p>Design note. What blocks: nothing on a handler; {@link #defers} reads the RPC call queue's length and the
 * audit queue's size (each under its queue's lock), and makes at most one CAS and one unpark. Nothing is
 * deferred, and the writer thread waits for nothing deferred, while the audit queue is close to full. The
 * writer thread is the backstop: while deferred events are queued it sleeps only until the oldest is
 * {@link #MAX_DEFER_NANOS} old ({@link #awaitDue}), then writes whatever is queued, so a deferred response waits
 * at most about that long, plus a write in progress, more than it would have when the calls after it are not
 * audited ones. What drops: nothing; a deferred event is in the queue like any other. Order of shut-down: a
 * closed pipeline's handlers do not lead, and its writer does not wait for deferred events (its caller's
 * {@code mustWriteNow}). Who owns what: {@link #oldest} is set by a deferring handler (CAS from 0), cleared by
 * the writing thread holding the write lock before it drains the queue ({@link #draining}), so that an event
 * deferred after the clear arms the backstop again, and made due by it when it leaves events behind
 * ({@link #leftBehind}); an event deferred just before a clear is drained with the rest (it was queued before
 * its handler read {@code oldest}), and its time, left behind, only makes the next wait shorter.
 * {@link #writerIdle} is written by the writer thread around its idle sleep and read by deferring handlers,
 * which wake it from that sleep so that it can start the backstop's shorter one.
 */
final class LeadDeferral {
  /** Events queued at which a handler writes rather than defers. */
  static final int MAX_DEFERRED = 8;
  /** How long after the oldest deferral the writer thread writes what is queued, if no handler has. */
  static final long MAX_DEFER_NANOS = TimeUnit.MILLISECONDS.toNanos(1);

  /** Events queued now. */
  private final IntSupplier queued;
  /** Whether the queue is close to full (by count or bytes): then nothing is deferred or waited for. */
  private final BooleanSupplier nearlyFull;
  /** Whether the calling handler's RPC server has calls waiting for a handler. */
  private final BooleanSupplier callsWaiting;
  /** Ends the writer thread's sleep. */
  private final Runnable wakeWriter;
  /** {@link System#nanoTime} of the oldest deferral not yet drained, or 0. */
  private final AtomicLong oldest = new AtomicLong();
  /** Whether the writer thread is in, or about to enter, its idle sleep (which a deferral must end). */
  private volatile boolean writerIdle;

  LeadDeferral(IntSupplier queued, BooleanSupplier nearlyFull, BooleanSupplier callsWaiting, Runnable wakeWriter) {
    this.queued = queued;
    this.nearlyFull = nearlyFull;
    this.callsWaiting = callsWaiting;
    this.wakeWriter = wakeWriter;
  }

  /** A handler whose event is queued: whether it leaves the write to a later handler (or the writer thread). */
  boolean defers() {
    if (!callsWaiting.getAsBoolean() || queued.getAsInt() >= MAX_DEFERRED || nearlyFull.getAsBoolean()) {
      return false;
    }
    long now = System.nanoTime();
    long first = oldest.get();
    if (first == 0) {
      if (!oldest.compareAndSet(0, now == 0 ? 1 : now)) {
        first = oldest.get(); // another handler deferred first: its age decides
        return first != 0 && now - first < MAX_DEFER_NANOS && armed();
      }
      return armed();
    }
    return now - first < MAX_DEFER_NANOS && armed();
  }

  /** After a deferral: the writer thread, if idle, is woken to start the backstop's sleep. */
  private boolean armed() {
    if (writerIdle) {
      wakeWriter.run();
    }
    return true;
  }

  /** Whether the writer thread is in its idle sleep, or about to enter it. */
  boolean writerIdle() {
    return writerIdle;
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
   * The writer thread, nothing queued: sleeps up to {@code idleNanos}, unless an event is queued meanwhile
   * (checked after it says it is idle, so that a deferral's wake-up is never missed).
   */
  void idle(long idleNanos, BooleanSupplier mustWriteNow) {
    writerIdle = true;
    try {
      if (queued.getAsInt() == 0 && !mustWriteNow.getAsBoolean()) {
        LockSupport.parkNanos(this, idleNanos);
        Thread.interrupted(); // a stray interrupt must not make every park return at once
      }
    } finally {
      writerIdle = false;
    }
  }

  /**
   * The writer thread, events queued: sleeps while they are deferred and not yet due, so that a handler may
   * write them first; returns once they are due, drained, or {@code mustWriteNow}.
   */
  void awaitDue(BooleanSupplier mustWriteNow) {
    long first;
    while ((first = oldest.get()) != 0 && queued.getAsInt() > 0 && !mustWriteNow.getAsBoolean()
        && !nearlyFull.getAsBoolean()) {
      long wait = first + MAX_DEFER_NANOS - System.nanoTime();
      if (wait <= 0) {
        return;
      }
      LockSupport.parkNanos(this, wait);
      Thread.interrupted();
    }
  }
}
