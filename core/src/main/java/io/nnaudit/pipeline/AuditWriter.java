package io.nnaudit.pipeline;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.locks.ReentrantLock;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.nnaudit.event.AuditEvent;
import io.nnaudit.format.DropReport;
import io.nnaudit.format.RecordBuffer;
import io.nnaudit.format.RecordFormatter;
import io.nnaudit.settings.Durability;
import io.nnaudit.settings.NnauditSettings;
import io.nnaudit.settings.QueueFullPolicy;
import io.nnaudit.sink.AuditSink;

/**
 * The one background thread of a pipeline: it drains the queue in batches, formats each batch as UTF-8 into
 * one reused buffer, and hands it to the {@link BatchCommitter}, which writes it with one write call, fsyncs
 * as configured and completes the batch's tickets. Under the default {@code nnaudit.ack.policy=write} with
 * durability none, BLOCK and the file sink, handlers lead the writes ({@link AuditPipeline#lead},
 * {@link #writeQueued}) and this thread is the backstop that writes what they leave; after the shutdown hook's
 * hand-over, handlers write their own records ({@link #writeDirect}). A pending drop report is written ahead of the batch in which the
 * writer notices it. There is no user-space buffer in which records could wait.
 *
 * <p>Failures never stop the loop: an event that cannot be formatted is counted in {@code writeFailed},
 * logged, left out, and its operation's response aborted; sink failures are handled by the failure policy in
 * {@link BatchCommitter}; anything else thrown inside an iteration is logged, the tickets of the batch in
 * hand are aborted (their records may or may not be written), and the loop goes on. Interrupts are ignored,
 * because an interrupted FileChannel closes itself and because leaving early would strand queued events.
 *
 * <p>Shutdown: the loop ends only when the pipeline is closed, no handler is still inside
 * {@link AuditPipeline#offer}, and the queue is empty; it then writes any last drop report and closes the
 * sink, unless the pipeline is going direct (the shutdown hook), in which case it leaves the sink open for
 * {@link #writeDirect}, and the last shutdown hook closes it ({@link #closeAtExit}).
 */
final class AuditWriter implements Runnable {
  /*
   * Implementation notes.
   *
   * What blocks. The loop waits (up to IDLE_POLL_MS) for the first event, then takes whatever else is queued,
   * up to nnaudit.writer.batch.max.events, without waiting again. When handlers lead, a handler that finds no
   * one writing writes the queue itself, so a response does not wait for this thread to be scheduled; this
   * thread sleeps while nothing is queued or handed off (leaders that leave events unpark it) and does the
   * idle work. Under durability=sync every response waits for this thread and its fsync, so it never lingers:
   * while it writes one batch the next gathers in the queue, which is group commit to the disk. Only with
   * ack.policy=queue, where nobody waits for it, does it linger after a batch smaller than half the queue
   * (nnaudit.writer.linger.ms), so that events gather and a busy NameNode's handlers find no waiting writer to
   * signal; a handler that finds the queue full unparks it at once, and under DROP it never lingers (a queue
   * that fills while the writer lingers would drop events under mere load).
   *
   * Who owns what. Every field that is not final and immutable belongs to the writing thread, which is one
   * thread at a time: this thread; when handlers lead, whoever holds the pipeline's write lock (this thread
   * takes it too, for each turn); after this thread has ended, whoever holds that lock again (the shutdown
   * hook, then handlers writing directly, then the last shutdown hook, which closes the sink). Hand-overs
   * between them go through the lock, or through Thread.join and the lock, so plain fields are safe. The two
   * volatile flags are the exceptions: written under the lock, read by handlers without it.
   */
  private static final Logger LOG = LoggerFactory.getLogger(AuditWriter.class);
  /** At most one ERROR line this often about failed events, writes and fsyncs: a dead disk cannot flood the log. */
  static final long FAILURE_LOG_INTERVAL_MS = 10_000;
  static final long IDLE_POLL_MS = 50;
  /** A batch this many bytes long is written out at once, so hostile 64 KiB paths cannot make a huge buffer. */
  static final int WRITE_CHUNK_BYTES = 1 << 20;

  /** The pipeline's flags: read here, except writerExited, which the pipeline sets as this thread ends. */
  private final Lifecycle life;
  /** Handlers put, the writing thread takes. */
  private final ArrayBlockingQueue<AuditEvent> queue;
  /** The queue's byte budget in use; the writing thread gives back a batch's bytes once the batch is written. */
  private final AtomicLong queuedBytes;
  /**
   * The pipeline's write lock when handlers lead writes ({@link AuditPipeline#lead}): every writing thread
   * holds it, this one included; null when this thread is the only writer.
   */
  private final ReentrantLock writeLock;
  /**
   * Set by a leader whose write failed, cleared by this thread once it has written again, both under
   * writeLock; read by handlers without it: while set, handlers do not lead.
   */
  private volatile boolean leadersPaused;
  /** Events a leader could not write, oldest first: this thread writes them before the queue. Under writeLock. */
  private final List<AuditEvent> handedOff = new ArrayList<>();
  /** Whether {@link #handedOff} holds events: set under writeLock, read without it (this thread must not sleep). */
  private volatile boolean hasHandedOff;
  /** Written and closed by the writing thread. */
  private final AuditSink sink;
  /** The writing thread: formatters need not be thread-safe. */
  private final RecordFormatter formatter;
  private final DropTracker drops;
  /** The writing thread. */
  private final BatchCommitter committer;
  private final AuditMetrics metrics;
  private final int batchMax;
  private final long idlePollMs;
  private final long lingerNanos;
  /** Linger only after a batch smaller than this: half the queue, so lingering cannot fill it. */
  private final int lingerBelow;
  /** The events in hand. The writing thread. */
  private final List<AuditEvent> batch;
  /** The events whose records are in {@link #text} now. The writing thread. */
  private final List<AuditEvent> chunkEvents = new ArrayList<>();
  /** The records of the chunk being formatted; replaced when a hostile record made it large. The writing thread. */
  private RecordBuffer text = new RecordBuffer();
  /** Why the last hook could not close the sink, or null. The last hook's thread. */
  private Throwable closeFailure;
  /** The failures of every writing thread (this one, leading handlers, direct writers), rate-limited. Any thread. */
  private final RateLimitedLog failures = new RateLimitedLog(LOG, FAILURE_LOG_INTERVAL_MS);

  AuditWriter(Lifecycle life, ArrayBlockingQueue<AuditEvent> queue, AtomicLong queuedBytes,
      ReentrantLock writeLock, AuditSink sink, RecordFormatter formatter,
      DropTracker drops, NnauditSettings settings, AuditMetrics metrics) {
    this.life = life;
    this.queue = queue;
    this.queuedBytes = queuedBytes;
    this.writeLock = writeLock;
    this.sink = sink;
    this.formatter = formatter;
    this.drops = drops;
    this.metrics = metrics;
    this.committer = new BatchCommitter(settings, sink, drops, life, metrics, failures);
    this.batchMax = settings.batchMaxEvents();
    this.batch = new ArrayList<>(Math.min(batchMax, 4096));
    this.lingerNanos = settings.queueFullPolicy() == QueueFullPolicy.DROP ? 0
        : TimeUnit.MILLISECONDS.toNanos(settings.writerLingerMs());
    this.lingerBelow = Math.max(1, Math.min(batchMax, settings.queueCapacity() / 2));
    this.idlePollMs = settings.durability() == Durability.INTERVAL
        ? Math.min(IDLE_POLL_MS, settings.durabilityIntervalMs()) : IDLE_POLL_MS;
  }

  @Override
  public void run() {
    while (true) {
      long writtenBefore = metrics.written();
      try {
        if (step()) {
          break;
        }
      } catch (Throwable t) {
        abortInHandLocked(writtenBefore);
        failures.error("the audit writer caught an unexpected error; the operations of the batch in hand are "
            + "not acknowledged, and the writer goes on", t);
      }
    }
    // A normal end. The sink stays open for the handlers when the pipeline goes direct (the shutdown hook);
    // after an abnormal end (an exception out of this method) the pipeline hands it over as it is.
    if (!life.direct) {
      try {
        sink.close();
      } catch (Throwable t) {
        failures.error("closing the audit sink failed", t);
      }
    }
  }

  /** One turn of the loop; true when the writer is done. */
  private boolean step() {
    if (writeLock != null) {
      return stepAmongLeaders();
    }
    drops.warnIfDue(System.currentTimeMillis(), false);
    AuditEvent first;
    try {
      first = queue.poll(idlePollMs, TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      return false; // see the design note: never leave with events queued
    }
    if (first == null) {
      return idleTurn();
    }
    batch.add(first);
    queue.drainTo(batch, batchMax - 1);
    metrics.batchDrained(batch.size());
    writeBatch(batch, drops.unreported());
    boolean light = batch.size() < lingerBelow;
    releaseBytes();
    if (light && lingerNanos > 0 && life.isOpen()) {
      // Let events gather: one wake-up and one write per linger, not one per event. A handler that finds
      // the queue full, and close(), unpark us at once.
      LockSupport.parkNanos(this, lingerNanos);
    }
    return false;
  }

  /** A turn with nothing to write: a pending drop report, the interval fsync, and whether the writer is done. */
  private boolean idleTurn() {
    DropReport report = drops.unreported();
    if (report != null) {
      writeBatch(batch, report);
    }
    committer.idle();
    // Quiescent first, then empty: an event offered before the last handler left is seen here.
    if (life.isQuiescent() && queue.isEmpty()) {
      DropReport last = drops.unreported();
      if (last != null) {
        writeBatch(batch, last);
      }
      drops.warnIfDue(System.currentTimeMillis(), true);
      return true;
    }
    return false;
  }

  /**
   * One turn when handlers lead writes: this thread is the backstop. It sleeps while the queue is empty (a
   * handler that leaves events behind unparks it), then, holding the lock like any leader, writes what is
   * queued, or does the idle work and checks whether it is done.
   */
  private boolean stepAmongLeaders() {
    if (queue.isEmpty() && !hasHandedOff) {
      LockSupport.parkNanos(this, TimeUnit.MILLISECONDS.toNanos(idlePollMs));
      Thread.interrupted(); // a stray interrupt must not make every park return at once
    }
    writeLock.lock();
    long writtenAtStart = metrics.written();
    try {
      drops.warnIfDue(System.currentTimeMillis(), false);
      batch.addAll(handedOff); // bytes still counted: they were never given back
      handedOff.clear();
      hasHandedOff = false;
      queue.drainTo(batch, Math.max(0, batchMax - batch.size()));
      if (!batch.isEmpty()) {
        metrics.batchDrained(batch.size());
        long writtenBefore = metrics.written();
        writeBatch(batch, drops.unreported());
        if (metrics.written() > writtenBefore) {
          leadersPaused = false;
        }
        releaseBytes();
        return false;
      }
      return idleTurn();
    } catch (Throwable t) {
      abortInHand("the audit writer failed", writtenAtStart); // under the lock: leaders share the batch
      failures.error("the audit writer caught an unexpected error; the operations of the batch in hand are "
          + "not acknowledged, and the writer goes on", t);
      return false;
    } finally {
      writeLock.unlock();
    }
  }

  /**
   * A handler leading a write, holding the lock: writes what is queued, trying each chunk once. A refused chunk
   * and the rest go, tickets pending, to this thread ({@link #handOff}), and handlers stop leading until it has
   * written again.
   */
  void writeQueued() {
    if (leadersPaused || hasHandedOff) {
      // Checked under the lock: a leader that lost the race to a failed one leaves the queue to this thread,
      // which writes the handed-off events first (oldest first) and counts their bytes once.
      return;
    }
    queue.drainTo(batch, batchMax);
    if (batch.isEmpty()) {
      return;
    }
    metrics.batchDrained(batch.size());
    long writtenBefore = metrics.written();
    committer.tryOnce(true);
    try {
      writeBatch(batch, drops.unreported());
      releaseBytesExceptHandedOff();
    } catch (Throwable t) {
      abortInHand("the audit write failed", writtenBefore);
      failures.error("a handler could not write the audit queue; its operations are not acknowledged", t);
    } finally {
      committer.tryOnce(false);
    }
  }

  /** Whether handlers lead writes ({@link AuditPipeline#lead}); fixed when the writer is made. */
  boolean ledByHandlers() {
    return writeLock != null;
  }

  boolean leadersPaused() {
    return leadersPaused;
  }

  /**
   * The writer is dying: the batch in hand and the events handed to it by leaders are failed, their tickets
   * aborted, so that no response waits for a writer that is gone. Under the pipeline's write lock.
   */
  void abortAll(String why) {
    batch.addAll(handedOff); // their bytes are still counted: released with the batch's
    handedOff.clear();
    hasHandedOff = false;
    abortInHand(why, metrics.written());
  }

  /** {@link #abortInHand} from the writer thread's loop, under the write lock when handlers lead. */
  private void abortInHandLocked(long writtenBefore) {
    if (writeLock == null) {
      abortInHand("the audit writer failed", writtenBefore);
      return;
    }
    writeLock.lock();
    try {
      abortInHand("the audit writer failed", writtenBefore);
    } finally {
      writeLock.unlock();
    }
  }

  /**
   * After an unexpected error: the tickets of the batch in hand that are still pending are aborted and counted
   * (a ticket already completed ignores it), and the events not written are counted as failed.
   */
  void abortInHand(String why, long writtenBefore) {
    long notWritten = batch.size() - (metrics.written() - writtenBefore);
    if (notWritten > 0) {
      metrics.countWriteFailed((int) notWritten);
    }
    int aborted = 0;
    for (AuditEvent e : batch) {
      if (e.ticket != null) {
        try {
          if (e.ticket.abort(why)) {
            aborted++;
          }
        } catch (Throwable t) {
          // go on: every other response in the batch must still be answered
        }
      }
    }
    metrics.countAborted(aborted);
    releaseBytes();
    chunkEvents.clear();
    text = new RecordBuffer();
  }

  /** As {@link #releaseBytes}, but the bytes of handed-off events stay counted until the writer writes them. */
  private void releaseBytesExceptHandedOff() {
    long kept = 0;
    for (AuditEvent e : handedOff) {
      kept += e.heapBytes;
    }
    queuedBytes.addAndGet(kept);
    releaseBytes();
  }

  /** Gives the batch's bytes back to the queue's budget and empties it. */
  private void releaseBytes() {
    long bytes = 0;
    for (AuditEvent e : batch) {
      bytes += e.heapBytes;
    }
    queuedBytes.addAndGet(-bytes);
    batch.clear();
  }

  /**
   * After the hand-over, on a handler thread holding the pipeline's write lock: writes one event (after any
   * pending drop report) and settles its ticket. Returns whether its record was written.
   */
  boolean writeDirect(AuditEvent e, long deadlineNanos) {
    long writtenBefore = metrics.written();
    committer.takeInterrupt(); // not this handler's: the writer thread's, which ignores them
    committer.retryUntil(deadlineNanos);
    try {
      writeBatch(Collections.singletonList(e), drops.unreported());
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
    } finally {
      committer.retryUntil(Long.MIN_VALUE);
      if (committer.takeInterrupt()) {
        Thread.currentThread().interrupt(); // after the write: the handler's flag, kept for its caller
      }
    }
    return metrics.written() > writtenBefore;
  }

  /** The shutdown hook, after this thread has ended: fsync and seal what is written before handlers take over. */
  void forceBeforeHandOver() {
    committer.forceIfPending();
    committer.seal();
  }

  /**
   * The last shutdown hook, holding the pipeline's write lock after the handlers' direct writes (or after this
   * thread ended without closing the sink): fsyncs what is not yet fsynced, if the mode fsyncs, and closes the
   * sink, which seals whatever is still unsealed (the file sink's CLOSE seal). No write follows.
   * Returns whether the sink closed without an error; if not, {@link #lastCloseFailure} says what failed (the
   * log may be shut down by then).
   */
  boolean closeAtExit() {
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

  private void writeBatch(List<AuditEvent> events, DropReport report) {
    RecordBuffer records = text;
    records.setLength(0);
    chunkEvents.clear();
    if (report != null) {
      try {
        formatter.appendDropRecord(records, System.currentTimeMillis(), report);
      } catch (Throwable t) {
        records.setLength(0);
        report = null; // still due: the next report covers these drops too
        failures.error("could not format a drop record; the drops stay counted for the next one", t);
      }
    }
    for (int i = 0; i < events.size(); i++) {
      AuditEvent e = events.get(i);
      int mark = records.length();
      try {
        formatter.appendRecord(records, e);
        chunkEvents.add(e);
      } catch (Throwable t) {
        records.setLength(mark);
        metrics.countWriteFailed(1);
        if (e.ticket != null) {
          metrics.countAborted(1);
          e.ticket.abort("the audit record could not be formatted");
        }
        failures.error("could not format an audit event (cmd=" + safe(e) + "); it is skipped and its operation "
            + "is not acknowledged; " + metrics.writeFailed() + " events failed in all", t);
      }
      if (records.length() >= WRITE_CHUNK_BYTES) {
        if (!flushChunk(records, report)) {
          handOff(events.subList(i + 1, events.size()));
          return;
        }
        report = null;
      }
    }
    if (!flushChunk(records, report)) {
      handOff(Collections.emptyList());
      return;
    }
    if (records.capacity() > 2 * WRITE_CHUNK_BYTES) {
      text = new RecordBuffer(); // a hostile record made it large: let it go
    }
  }

  /**
   * One write for everything in {@code records}: those of {@link #chunkEvents}, after {@code report}'s, which
   * is settled once written. Returns false only when a leading handler's single try failed: the chunk's events
   * are then still in {@link #chunkEvents}, untouched, for {@link #handOff}.
   */
  private boolean flushChunk(RecordBuffer records, DropReport report) {
    if (records.length() > 0) {
      boolean written = committer.commit(records.asByteBuffer(), chunkEvents);
      records.setLength(0);
      if (written && report != null) {
        drops.reported(report);
      } else if (!written && committer.triesOnce()) {
        return false;
      }
    }
    chunkEvents.clear();
    return true;
  }

  /**
   * A leading handler's write failed: the failed chunk's events and {@code rest} (not yet formatted) go, in
   * order and with their tickets pending, to {@link #handedOff}, which the writer thread writes first under
   * its failure policy.
   */
  private void handOff(List<AuditEvent> rest) {
    handedOff.addAll(chunkEvents);
    handedOff.addAll(rest);
    chunkEvents.clear();
    hasHandedOff = true;
    leadersPaused = true;
  }

  private static String safe(AuditEvent e) {
    try {
      return String.valueOf(e.cmd);
    } catch (Throwable t) {
      return "?";
    }
  }
}
