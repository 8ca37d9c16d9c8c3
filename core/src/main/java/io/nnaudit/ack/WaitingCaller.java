package io.nnaudit.ack;

import java.io.IOException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;

/**
 * A caller outside an RPC that waits for its audit record (see {@link AckTicket}): it parks in slices of
 * {@link #PARK_SLICE_NANOS} until the completing thread sets the state and unparks it, or until its bound
 * passes. An interrupt does not end the wait (the flag is restored afterwards). {@code state} is written once
 * by the completing thread (CAS from PENDING) and read by the waiter.
 */
final class WaitingCaller extends AckTicket {
  private static final long PARK_SLICE_NANOS = TimeUnit.MILLISECONDS.toNanos(10);

  /** The caller that waits: set when the ticket is made, unparked by the completing thread. */
  private final Thread waiter;
  /** PENDING until the first completion sets the outcome (CAS, the completing thread); read by the waiter. */
  private final AtomicInteger state = new AtomicInteger(PENDING);

  WaitingCaller(Thread waiter) {
    this.waiter = waiter;
  }

  @Override
  protected boolean complete(int how, IOException error) {
    if (state.compareAndSet(PENDING, how)) {
      LockSupport.unpark(waiter);
      return true;
    }
    return false;
  }

  @Override
  public boolean mustWait() {
    return true;
  }

  @Override
  public int await(long maxWaitMs) {
    long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(maxWaitMs);
    boolean interrupted = false;
    int s;
    while ((s = state.get()) == PENDING) {
      long left = deadline - System.nanoTime();
      if (left <= 0) {
        break;
      }
      LockSupport.parkNanos(this, Math.min(left, PARK_SLICE_NANOS));
      if (Thread.interrupted()) {
        interrupted = true;
      }
    }
    if (interrupted) {
      Thread.currentThread().interrupt();
    }
    return s;
  }
}
