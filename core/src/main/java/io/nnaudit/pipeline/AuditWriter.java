package io.nnaudit.pipeline;

import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.nnaudit.event.AuditEvent;
import io.nnaudit.format.DropReport;
import io.nnaudit.settings.Durability;
import io.nnaudit.settings.NnauditSettings;
import io.nnaudit.settings.QueueFullPolicy;
import io.nnaudit.sink.AuditSink;
import io.nnaudit.throttle.RateLimitedLog;

/**
 * The loop of a pipeline's one background thread: it takes batches from the queue, has the {@link ChunkWriter}
 * format and commit them, and does the idle work (a pending drop report, the interval fsync). One loop whatever
 * the mode: its {@link WriterTurns} decide what differs, {@link SoloTurns} when this thread is the only writer,
 * {@link WriteLeader} when handlers lead the writes (under the default {@code nnaudit.ack.policy=write} with
 * durability none, BLOCK and the file sink) and this thread is the backstop that writes what they leave. After
 * the shutdown hook's hand-over, handlers write their own records ({@link DirectWriter}).
 *
 * <p>Failures never stop the loop: an event that cannot be formatted is counted in {@code writeFailed},
 * logged, left out, and its operation's response aborted; sink failures are handled by the failure policy in
 * {@link BatchCommitter}; anything else thrown inside a turn is logged, the tickets of the batch in hand are
 * aborted (their records may or may not be written: {@link BatchInHand#abort}), and the loop goes on.
 * Interrupts are ignored, because an interrupted FileChannel closes itself and because leaving early would
 * strand queued events.
 *
 * <p>Shutdown: the loop ends only when the pipeline is closed, no handler is still inside an offer, and the
 * queue is empty; it then writes any last drop report and closes the sink, unless the pipeline is going direct
 * (the shutdown hook), in which case it leaves the sink open for the handlers' direct writes, and the last
 * shutdown hook closes it.
 */
final class AuditWriter implements Runnable {
  /*
   * Implementation notes.
   *
   * What blocks. Alone, the turn waits (up to IDLE_POLL_MS) for the first event, then takes whatever else is
   * queued, up to nnaudit.writer.batch.max.events, without waiting again. Among leaders it sleeps while nothing
   * is queued or handed back (leaders that leave events unpark it), then takes the write lock for the turn.
   * Under durability=sync every response waits for this thread and its fsync, so it never lingers: while it
   * writes one batch the next gathers in the queue, which is group commit to the disk. Only with
   * ack.policy=queue, where nobody waits for it, does it linger after a batch smaller than half the queue
   * (nnaudit.writer.linger.ms), outside any lock, so that events gather and a busy NameNode's handlers find no
   * waiting writer to signal; a handler that finds the queue full unparks it at once, and under DROP it never
   * lingers (a queue that fills while the writer lingers would drop events under mere load).
   *
   * Who owns what. Every part of the writing state (the batch in hand, the chunk writer and its formatter and
   * buffer, the committer, the sink) belongs to the writing thread, which is one thread at a time: this thread;
   * when handlers lead, whoever holds the pipeline's write lock (this thread takes it too, for each turn);
   * after this thread has ended, whoever holds that lock again (the shutdown hook, then handlers writing
   * directly, then the last shutdown hook, which closes the sink). Hand-overs between them go through the lock,
   * or through Thread.join and the lock, so plain fields are safe.
   */
  private static final Logger LOG = LoggerFactory.getLogger(AuditWriter.class);
  /** At most one ERROR line this often about failed events, writes and fsyncs: a dead disk cannot flood the log. */
  static final long FAILURE_LOG_INTERVAL_MS = 10_000;
  static final long IDLE_POLL_MS = 50;

  /** The pipeline's flags: read here. */
  private final Lifecycle life;
  private final AuditQueue queue;
  private final WriterTurns turns;
  private final BatchInHand inHand;
  private final ChunkWriter chunks;
  private final BatchCommitter committer;
  /** Closed by this thread at a normal end, unless the pipeline went direct. */
  private final AuditSink sink;
  private final DropTracker drops;
  private final AuditMetrics metrics;
  private final RateLimitedLog failures;
  private final long lingerNanos;
  /** Linger only after a batch smaller than this: half the queue, so lingering cannot fill it. */
  private final int lingerBelow;

  AuditWriter(Lifecycle life, AuditQueue queue, WriterTurns turns, BatchInHand inHand, ChunkWriter chunks,
      BatchCommitter committer, AuditSink sink, DropTracker drops, NnauditSettings settings, AuditMetrics metrics,
      RateLimitedLog failures) {
    this.life = life;
    this.queue = queue;
    this.turns = turns;
    this.inHand = inHand;
    this.chunks = chunks;
    this.committer = committer;
    this.sink = sink;
    this.drops = drops;
    this.metrics = metrics;
    this.failures = failures;
    int batchMax = settings.batchMaxEvents();
    this.lingerNanos = settings.queueFullPolicy() == QueueFullPolicy.DROP ? 0
        : TimeUnit.MILLISECONDS.toNanos(settings.writerLingerMs());
    this.lingerBelow = Math.max(1, Math.min(batchMax, settings.queueCapacity() / 2));
  }

  /** The writer's idle poll: shorter under durability interval when its time bound is shorter. */
  static long idlePollMs(NnauditSettings settings) {
    return settings.durability() == Durability.INTERVAL
        ? Math.min(IDLE_POLL_MS, settings.durabilityIntervalMs()) : IDLE_POLL_MS;
  }

  /** The rate-limited log of every writing thread's failures (this thread, leaders, direct writers). */
  static RateLimitedLog failureLog() {
    return new RateLimitedLog(LOG, FAILURE_LOG_INTERVAL_MS);
  }

  @Override
  public void run() {
    while (true) {
      try {
        if (turn()) {
          break;
        }
      } catch (Throwable t) {
        // Outside the batch's own catch: waiting for work, taking or leaving the turn, lingering. Nothing is in
        // hand there (a batch is gathered and released within the turn), so the writer only says so and goes on.
        failures.error("the audit writer caught an unexpected error between batches, and goes on", t);
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
  private boolean turn() {
    turns.awaitWork();
    boolean light;
    turns.enter();
    try {
      long writtenBefore = metrics.written();
      try {
        drops.warnIfDue(System.currentTimeMillis(), false);
        List<AuditEvent> batch = inHand.events();
        if (!turns.gather(batch)) {
          return false;
        }
        if (batch.isEmpty()) {
          return idleTurn();
        }
        metrics.batchDrained(batch.size());
        chunks.write(batch, drops.unreported(), CommitMode.WRITER);
        if (metrics.written() > writtenBefore) {
          turns.wrote();
        }
        light = batch.size() < lingerBelow;
        inHand.release();
      } catch (Throwable t) {
        inHand.abort("the audit writer failed", writtenBefore); // among leaders, under the lock: they share it
        failures.error("the audit writer caught an unexpected error; the operations of the batch in hand are "
            + "not acknowledged, and the writer goes on", t);
        return false;
      }
    } finally {
      turns.exit();
    }
    if (light && lingerNanos > 0 && life.isOpen()) {
      // Let events gather: one wake-up and one write per linger, not one per event. A handler that finds
      // the queue full, and close(), unpark us at once.
      LockSupport.parkNanos(this, lingerNanos);
    }
    return false;
  }

  /** A turn with nothing to write: a pending drop report, the interval fsync, and whether the writer is done. */
  private boolean idleTurn() {
    List<AuditEvent> none = inHand.events();
    DropReport report = drops.unreported();
    if (report != null) {
      chunks.write(none, report, CommitMode.WRITER);
    }
    committer.idle();
    try {
      sink.idle();
    } catch (Throwable t) {
      failures.error("the audit sink's idle work (a rotation at a period's end) failed; it is tried again", t);
    }
    // Quiescent first, then empty: an event offered before the last handler left is seen here.
    if (life.isQuiescent() && queue.isEmpty()) {
      DropReport last = drops.unreported();
      if (last != null) {
        chunks.write(none, last, CommitMode.WRITER);
      }
      drops.warnIfDue(System.currentTimeMillis(), true);
      return true;
    }
    return false;
  }

  /**
   * The writer is dying: the batch in hand and the events handed back to it by leaders are failed, their
   * tickets aborted, so that no response waits for a writer that is gone. Under the pipeline's write lock.
   */
  void abortAll(String why) {
    List<AuditEvent> batch = inHand.events();
    turns.reclaim(batch); // their bytes are still counted: released with the batch's
    inHand.abort(why, metrics.written());
  }
}
