package io.nnaudit;

import java.io.IOException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

import org.apache.hadoop.ipc.Server;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * How an operation under {@code nnaudit.durability=sync} is kept from being acknowledged before its record is
 * fsynced.
 *
 * <p>Design note. Inside an RPC (the normal case) the handler does not wait at all: like the NameNode's own
 * async edit log (FSEditLogAsync), the ticket postpones the call's response
 * ({@code Server.Call.postponeResponse}) and the handler returns to serve other calls; the writer, after one
 * fsync covering a whole batch, releases every postponed response of the batch ({@code sendResponse}). So no
 * handler thread sleeps on the disk, and one fsync acknowledges many operations (group commit).
 *
 * <p>Outside an RPC (a caller with no current {@code Server.Call}), the caller parks until the writer marks
 * the ticket durable, in bounded slices so that it notices a writer that has died, and through interrupts
 * (the flag is restored afterwards).
 *
 * <p>A ticket is released without durability only by fail-open after a sink failure, or by a writer that is
 * stopping; the response is then sent all the same (the operation has happened), and the loss is counted.
 */
public final class SyncTicket {
  private static final Logger LOG = LoggerFactory.getLogger(SyncTicket.class);
  private static final int PENDING = 0;
  private static final int DURABLE = 1;
  private static final int RELEASED = 2;
  private static final long PARK_SLICE_NANOS = TimeUnit.MILLISECONDS.toNanos(10);

  private final Thread waiter;
  private final Server.Call call;
  private volatile int state;

  private SyncTicket(Thread waiter, Server.Call call) {
    this.waiter = waiter;
    this.call = call;
  }

  /** A ticket for the calling thread: a postponed response inside an RPC, else a parking waiter. */
  static SyncTicket forCurrentThread() {
    Server.Call call = Server.getCurCall().get();
    if (call != null) {
      call.postponeResponse();
      return new SyncTicket(null, call);
    }
    return new SyncTicket(Thread.currentThread(), null);
  }

  /** Writer: the record is fsynced. */
  void durable() {
    complete(DURABLE);
  }

  /** Writer: the record will not be made durable (fail-open, or the writer is stopping). */
  void release() {
    complete(RELEASED);
  }

  private void complete(int how) {
    state = how;
    if (call != null) {
      try {
        call.sendResponse();
      } catch (IOException | RuntimeException e) {
        LOG.debug("nnaudit: sending a postponed RPC response failed (the client may be gone)", e);
      }
    } else {
      LockSupport.unpark(waiter);
    }
  }

  /** Whether the caller must wait in {@link #await}: false for a postponed RPC response. */
  boolean mustWait() {
    return call == null;
  }

  /** Caller outside an RPC: waits until durable or released; returns whether the record is durable. */
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
