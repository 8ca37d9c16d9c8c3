package io.nnaudit.pipeline;

import java.time.Instant;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Supplier;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.nnaudit.config.NnauditConfigKeys;
import io.nnaudit.event.AuditEvent;
import io.nnaudit.settings.NnauditSettings;

/**
 * The sink's hand-over from the writer thread to the handlers, their direct writes, and its taking back to close
 * it: the steps (3) to (7) of {@link AuditPipeline}'s note, and the same for a writer that dies.
 *
 * <p>Design note. The order: the shutdown hook, once the writer thread has drained and ended, fsyncs and seals
 * what is written and sets {@link Lifecycle#handedOver} under the write lock ({@link #handOver}); a dying writer
 * instead fails what it held and what it left queued and sets it as its last act ({@link #degrade}). From then
 * on each handler writes its own record under that lock ({@link #afterClose}), until the last hook sets
 * {@link Lifecycle#ended} and takes the lock to close the sink ({@link #endDirectWrites}); a handler that sees
 * {@code ended} under the lock, or while it waits for the hand-over, writes nothing. What blocks, and for how
 * long: a handler waits for the hand-over and then for the lock, both to one deadline, the earlier of
 * {@code nnaudit.handler.max.wait.ms} and {@code nnaudit.shutdown.timeout.ms} + 1 s from its arrival; its write
 * retries a refusing disk to the same deadline (fail-closed), but the write(2), an fsync and a seal once begun
 * are not cut short (see {@link AuditPipeline}'s note on waits). The last hook waits for an abandoned writer
 * thread and then for the lock, at most {@code nnaudit.shutdown.timeout.ms} in all; a dying writer waits up to
 * 10 s for handlers still inside an offer, and then for the lock. An interrupt does not end a handler's wait
 * (its flag is restored); it ends the last hook's. What drops: nothing; an event that cannot be written is
 * refused, counted, and its operation answered with an error. Who owns what: {@link #parts} is written once by
 * the pipeline's open and read by anyone; the writing state behind it belongs to the holder of the write lock.
 */
final class ShutdownHandOver {
  /** The pipeline's log: its lines keep the logger name operators know. */
  private static final Logger LOG = LoggerFactory.getLogger(AuditPipeline.class);
  /** Why a handler that comes after the last shutdown hook began is refused. */
  private static final String ENDED = "the audit file was closed for good as the NameNode stopped";

  private final NnauditSettings settings;
  private final Lifecycle life;
  /** Held across every write and close of the sink once more than one thread may write. */
  private final ReentrantLock writeLock;
  private final AuditQueue queue;
  private final AuditMetrics metrics;
  private final Refusals refusals;
  private final WriterThread writerThread;
  /** The pipeline's stats, for the log lines. */
  private final Supplier<AuditStats> stats;
  /** Written once by the pipeline's open; null before. */
  private volatile WriterParts parts;

  ShutdownHandOver(NnauditSettings settings, Lifecycle life, ReentrantLock writeLock, AuditQueue queue,
      AuditMetrics metrics, Refusals refusals, WriterThread writerThread, Supplier<AuditStats> stats) {
    this.settings = settings;
    this.life = life;
    this.writeLock = writeLock;
    this.queue = queue;
    this.metrics = metrics;
    this.refusals = refusals;
    this.writerThread = writerThread;
    this.stats = stats;
  }

  /** The writing side, once the pipeline has opened its sink. */
  void open(WriterParts p) {
    parts = p;
  }

  /**
   * The shutdown hook's step (3), once the writer thread has drained and ended: fsyncs and seals what is written
   * and hands the sink over to the handlers, unless a dying writer handed it over already or an embedder's
   * close ended the pipeline meanwhile.
   */
  void handOver() {
    writeLock.lock(); // a writer that died meanwhile may have handed over already
    try {
      if (!life.handedOver && !life.ended) { // ended: a close() of an embedder's closed the sink meanwhile
        parts.direct.forceBeforeHandOver();
        life.handedOver = true;
      }
    } finally {
      writeLock.unlock();
    }
    LOG.info("nnaudit: the NameNode is stopping; {} drained, handlers now write their own records until the "
        + "last shutdown hook closes it: {}", settings.file(), stats.get());
  }

  /**
   * The writer died of something it could not handle: refuse queueing, fail what it held and what it left
   * queued, and let handlers write their own records from now on. Runs on the dying writer thread, which
   * sets the flags before anything that could fail again (logging).
   */
  void degrade() {
    life.degradeToDirect();
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (!life.isQuiescent() && System.nanoTime() - deadline < 0) {
      Thread.yield();
    }
    String why = "the audit writer ended unexpectedly";
    writeLock.lock(); // a leading handler may be writing: wait for it, and hold off the next
    try {
      try {
        parts.writer.abortAll(why);
      } catch (Throwable t) {
        // Each step on its own: the queue's tickets are aborted even if the batch in hand could not be.
        refusals.error("could not fail the audit writer's batch in hand", t);
      }
      AuditEvent e;
      while ((e = queue.poll()) != null) {
        try {
          metrics.countWriteFailed(1);
          if (e.ticket != null) {
            metrics.countAborted(1);
            e.ticket.abort(why);
          }
        } catch (Throwable t) {
          refusals.error("could not answer an operation whose record the audit writer left queued", t);
        }
      }
    } finally {
      life.handedOver = true;
      writeLock.unlock();
    }
    LOG.error("nnaudit: the audit writer for {} ended unexpectedly; handlers now write their own records",
        settings.file());
  }

  /**
   * For an event that found the pipeline closed (and no replacement): after the shutdown hook, writes it on
   * the calling thread once the sink is handed over, until the last hook takes it back; otherwise refuses it.
   * Never throws.
   */
  Offer afterClose(AuditEvent e) {
    if (!life.direct) {
      refusals.refuse(e, "the audit pipeline is closed");
      return Offer.REFUSED;
    }
    boolean interrupted = Thread.interrupted(); // an interrupt does not end the wait; the flag is restored
    try {
      return afterHandOver(e);
    } finally {
      if (interrupted) {
        Thread.currentThread().interrupt();
      }
    }
  }

  private Offer afterHandOver(AuditEvent e) {
    long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(
        Math.min(settings.handlerMaxWaitMs(), settings.shutdownTimeoutMs() + 1000));
    boolean interrupted = false; // interrupts during the wait, restored after the write
    try {
      while (!life.handedOver) {
        if (life.ended) {
          refusals.refuse(e, ENDED);
          return Offer.REFUSED;
        }
        if (life.abandoned || System.nanoTime() - deadline >= 0) {
          refusals.refuse(e, "the audit writer did not finish before the NameNode stopped");
          return Offer.REFUSED;
        }
        LockSupport.parkNanos(this, TimeUnit.MILLISECONDS.toNanos(1));
        interrupted |= Thread.interrupted();
      }
      boolean locked = false;
      while (!locked) {
        try {
          locked = writeLock.tryLock(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
          if (!locked) {
            refusals.refuse(e, "another handler held the audit file past "
                + NnauditConfigKeys.HANDLER_MAX_WAIT_MS_KEY);
            return Offer.REFUSED;
          }
        } catch (InterruptedException ie) {
          interrupted = true; // keep waiting, to the same deadline
        }
      }
      try {
        if (life.ended) { // checked under the lock: the last hook closes the sink under it
          refusals.refuse(e, ENDED);
          return Offer.REFUSED;
        }
        if (parts.direct.write(e, deadline)) {
          metrics.countDirectWrite();
          return Offer.WRITTEN;
        }
      } finally {
        writeLock.unlock();
      }
      return Offer.REFUSED; // the committer counted it and settled its ticket
    } finally {
      if (interrupted) {
        Thread.currentThread().interrupt();
      }
    }
  }

  /**
   * For a pipeline gone direct (the shutdown hook ran, or the writer died) and not yet ended: refuses the
   * handlers' direct writes from now on, waits, for at most {@code timeoutMs} in all, for the writer thread to
   * have ended and for the write lock, and closes the sink under it. Returns whether it closed the sink without
   * an error; false at once when the pipeline is not direct or was ended already. {@code atExit}: the last
   * hook, whose lines go to standard error. {@code afterEnd} runs once this call has closed the sink, or given
   * up on it, and only if this call ended the direct writes: the thread that closes the sink stops what must
   * come after its last seal (the shipper).
   */
  boolean endDirectWrites(long timeoutMs, boolean atExit, Runnable afterEnd) {
    if (!life.end()) {
      return false;
    }
    try {
      return closeDirect(timeoutMs, atExit);
    } finally {
      afterEnd.run();
    }
  }

  private boolean closeDirect(long timeoutMs, boolean atExit) {
    WriterParts p = parts;
    if (p == null || !writerThread.started()) {
      return false;
    }
    long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMs);
    String holder = "the audit writer";
    try {
      if (writerThread.awaitEnd(TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime()))) {
        holder = "a handler writing its own record";
        if (writeLock.tryLock(deadline - System.nanoTime(), TimeUnit.NANOSECONDS)) {
          boolean closed;
          try {
            closed = p.direct.closeAtExit();
          } finally {
            writeLock.unlock();
          }
          String line = "closed " + settings.file() + (atExit ? " as the NameNode stops" : "")
              + (closed ? "" : " (with an error: " + p.direct.lastCloseFailure() + ")")
              + "; later operations are answered with an error: " + stats.get();
          if (atExit) {
            exitLine(closed ? "INFO" : "ERROR", line);
          } else if (closed) {
            LOG.info("nnaudit: {}", line);
          } else {
            LOG.error("nnaudit: {}", line);
          }
          return closed;
        }
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt(); // at exit: Hadoop gave up on this hook, and the JVM halts now
      holder += " (the wait was interrupted)";
    }
    String line = "could not close " + settings.file() + (atExit ? " as the NameNode stops" : "") + ": " + holder
        + " held it past " + timeoutMs + " ms"
        + (atExit ? " (" + NnauditConfigKeys.SHUTDOWN_TIMEOUT_MS_KEY + ")" : "")
        + "; a record written meanwhile may be left without a seal: " + stats.get();
    if (atExit) {
      exitLine("ERROR", line);
    } else {
      LOG.error("nnaudit: {}", line);
    }
    return false;
  }

  /**
   * A line of the last hook. Hadoop's SHUTDOWN_MSG hook, which runs before it, shuts log4j down, so the line
   * goes to standard error (a NameNode's .out file) instead of the log.
   */
  private static void exitLine(String level, String text) {
    System.err.println(Instant.now() + " " + level + " nnaudit: " + text);
  }
}
