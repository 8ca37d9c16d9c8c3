package io.nnaudit.pipeline;

import java.util.Collections;
import java.util.concurrent.locks.ReentrantLock;

import io.nnaudit.event.AuditEvent;
import io.nnaudit.sink.AuditSink;
import io.nnaudit.throttle.RateLimitedLog;

/**
 * The sink once the writer thread has stopped writing to it: the shutdown hook's fsync and seal before it hands
 * the sink over ({@link #forceBeforeHandOver}), each handler's write of its own record after that
 * ({@link #write}), and the last shutdown hook's fsync and close ({@link #closeAtExit}).
 *
 * <p>Design note. Every call is made holding the pipeline's write lock (asserted), which is what hands the
 * writing state from one of these threads to the next (see AuditWriter's notes). What blocks: the write(2), the
 * fsync (under durability sync or batch, and under interval when one is due), and the seal (with sealing, a wait
 * for the sealing thread: see {@link AuditPipeline}'s note on waits), and under fail-closed the retries of a
 * refusing disk, which end at the handler's deadline or once the last hook asks for the file
 * ({@link CommitMode#until}). What drops:
 * nothing is dropped here; a record that cannot be written is counted and its operation answered with an error.
 * Shut-down: after {@link #closeAtExit} nothing is written. Who owns what: {@link #closeFailure} is written and
 * read by the last hook's thread.
 */
final class DirectWriter {
  private final ReentrantLock writeLock;
  private final ChunkWriter chunks;
  private final BatchCommitter committer;
  private final AuditSink sink;
  private final DropTracker drops;
  private final AuditMetrics metrics;
  private final RateLimitedLog failures;
  /** Why the last hook could not close the sink, or null. The last hook's thread. */
  private Throwable closeFailure;

  DirectWriter(ReentrantLock writeLock, ChunkWriter chunks, BatchCommitter committer, AuditSink sink,
      DropTracker drops, AuditMetrics metrics, RateLimitedLog failures) {
    this.writeLock = writeLock;
    this.chunks = chunks;
    this.committer = committer;
    this.sink = sink;
    this.drops = drops;
    this.metrics = metrics;
    this.failures = failures;
  }

  /** The shutdown hook, after the writer thread has ended: fsync and seal what is written before handlers take over. */
  void forceBeforeHandOver() {
    assertLocked();
    committer.forceIfPending();
    committer.seal();
  }

  /**
   * After the hand-over, on a handler thread holding the pipeline's write lock: writes one event (after any
   * pending drop report) and settles its ticket, retrying a refusing disk under fail-closed until
   * {@code deadlineNanos}. An interrupt that arrives meanwhile is kept for the caller. Returns whether its
   * record was written.
   */
  boolean write(AuditEvent e, long deadlineNanos) {
    assertLocked();
    long writtenBefore = metrics.written();
    try {
      chunks.write(Collections.singletonList(e), drops.unreported(), CommitMode.until(deadlineNanos));
      // Sealed before the lock is let go, so the last hook, which closes the sink under it, never finds a record
      // written and not sealed; and a stop cut short before that hook (kill -9) leaves no unsealed tail.
      committer.seal();
      drops.warnIfDue(System.currentTimeMillis(), false);
    } catch (Throwable t) {
      failures.error("could not write an audit record on the handler thread", t);
      if (e.ticket != null) {
        metrics.countAborted(1);
        e.ticket.abort("the audit record could not be written: " + t);
      }
      return false;
    }
    return metrics.written() > writtenBefore;
  }

  /**
   * The last shutdown hook, holding the pipeline's write lock after the handlers' direct writes (or after the
   * writer thread ended without closing the sink): fsyncs what is not yet fsynced, if the mode fsyncs, and
   * closes the sink, which seals whatever is still unsealed (the file sink's CLOSE seal). No write follows.
   * Returns whether the sink closed without an error; if not, {@link #lastCloseFailure} says what failed (the
   * log may be shut down by then).
   */
  boolean closeAtExit() {
    assertLocked();
    committer.forceIfPending();
    try {
      sink.close();
      return true;
    } catch (Throwable t) {
      closeFailure = t;
      failures.error("closing the audit sink failed as the NameNode stopped", t);
      return false;
    }
  }

  /** Why {@link #closeAtExit} failed, or null. */
  Throwable lastCloseFailure() {
    return closeFailure;
  }

  private void assertLocked() {
    assert writeLock.isHeldByCurrentThread() : "the sink after the hand-over is written under the write lock";
  }
}
