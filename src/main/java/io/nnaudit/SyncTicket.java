package io.nnaudit;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * How a handler under {@code nnaudit.durability=sync} waits for its own record to be fsynced.
 *
 * <p>Design note. The handler parks; the writer, after one fsync covering a whole batch, marks every ticket
 * of the batch durable and unparks its handler (group commit: one fsync, many handlers). The handler parks
 * in bounded slices so that it notices a writer that has died, and it keeps waiting through interrupts (the
 * flag is restored afterwards), because the guarantee is that the operation is not acknowledged before its
 * record is durable. A ticket is released without durability only by fail-open after a sink failure, or by
 * a writer that has stopped.
 */
public final class SyncTicket {
  private static final int PENDING = 0;
  private static final int DURABLE = 1;
  private static final int RELEASED = 2;
  private static final long PARK_SLICE_NANOS = TimeUnit.MILLISECONDS.toNanos(10);

  private final Thread waiter;
  private volatile int state;

  SyncTicket(Thread waiter) {
    this.waiter = waiter;
  }

  /** Writer: the record is fsynced. */
  void durable() {
    state = DURABLE;
    LockSupport.unpark(waiter);
  }

  /** Writer: the record will not be made durable (fail-open, or the writer is stopping). */
  void release() {
    state = RELEASED;
    LockSupport.unpark(waiter);
  }

  /** Handler: waits until durable or released; returns whether the record is durable. */
  boolean await(AuditPipeline pipeline) {
    boolean interrupted = false;
    while (state == PENDING) {
      LockSupport.parkNanos(this, PARK_SLICE_NANOS);
      if (Thread.interrupted()) {
        interrupted = true;
      }
      if (state == PENDING && !pipeline.writerAlive()) {
        break;
      }
    }
    if (interrupted) {
      Thread.currentThread().interrupt();
    }
    return state == DURABLE;
  }
}
