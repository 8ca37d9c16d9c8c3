package io.nnaudit;

import java.nio.ByteBuffer;
import java.util.List;

import io.nnaudit.DropTracker.DropReport;
import io.nnaudit.sink.AuditSink;

/**
 * Puts one chunk of records into the sink under the durability and failure policies, and completes the
 * handlers' sync tickets. Writer thread only.
 *
 * <p>Design note. A chunk is written, then fsynced when the durability mode asks (after every chunk for
 * batch and sync; at most every T ms or N records for interval, including from the idle loop). The write and
 * the fsync fail separately: the sink undoes a partial write, so a write is retried whole, while a failed
 * fsync is retried alone (the records are in the file already; writing them again would duplicate them).
 * <ul>
 * <li>fail-closed: retry every {@code nnaudit.failure.retry.interval.ms} until the sink works again. The
 * queue fills and, under BLOCK, handlers wait. Only an abandoned pipeline (closed, and its shutdown time
 * spent) stops retrying; its events are then counted as write failures.</li>
 * <li>fail-open: give the chunk up at once: its events are counted as dropped and reported by a drop record
 * once writing works again; sync tickets are released.</li>
 * </ul>
 * Linux may report an fsync error only once and then call the pages clean; a retried fsync that succeeds is
 * therefore not proof that the earlier data reached the disk. This is logged, not hidden.
 */
final class BatchCommitter {

  private final NnauditSettings settings;
  private final AuditSink sink;
  private final DropTracker drops;
  private final AuditPipeline pipeline;
  private final WriterMetrics metrics;
  private long recordsSinceForce;
  private long lastForceMillis = System.currentTimeMillis();
  private final WriterFailureLog failures;

  BatchCommitter(NnauditSettings settings, AuditSink sink, DropTracker drops, AuditPipeline pipeline,
      WriterMetrics metrics, WriterFailureLog failures) {
    this.settings = settings;
    this.sink = sink;
    this.drops = drops;
    this.pipeline = pipeline;
    this.metrics = metrics;
    this.failures = failures;
  }

  /**
   * Writes {@code bytes}, which hold the records of {@code events} (and, first, the drop record of
   * {@code report} if not null), then fsyncs if the durability mode asks.
   */
  void commit(ByteBuffer bytes, List<AuditEvent> events, DropReport report) {
    int n = events.size();
    if (!writeWithRetry(bytes, n)) {
      drops.unreport(report);
      giveUp(events, "write");
      return;
    }
    metrics.recordsWritten(n);
    recordsSinceForce += n;
    boolean durable = false;
    if (forceDue()) {
      durable = forceWithRetry();
    }
    for (AuditEvent e : events) {
      if (e.ticket != null) {
        if (durable) {
          e.ticket.durable();
        } else {
          e.ticket.release();
        }
      }
    }
  }

  /** From the idle loop: honours the interval mode's time bound when no new records arrive. */
  void idle() {
    if (settings.durability() == Durability.INTERVAL && recordsSinceForce > 0
        && System.currentTimeMillis() - lastForceMillis >= settings.durabilityIntervalMs()) {
      forceWithRetry();
    }
  }

  private boolean forceDue() {
    switch (settings.durability()) {
      case BATCH:
      case SYNC:
        return true;
      case INTERVAL:
        return recordsSinceForce >= settings.durabilityIntervalRecords()
            || System.currentTimeMillis() - lastForceMillis >= settings.durabilityIntervalMs();
      default:
        return false;
    }
  }

  private boolean writeWithRetry(ByteBuffer bytes, int events) {
    while (true) {
      long start = System.nanoTime();
      try {
        sink.write(bytes);
        metrics.writeLatency(System.nanoTime() - start);
        return true;
      } catch (Throwable t) {
        metrics.sinkError();
        logFailure("could not write " + events + " audit records", t);
        if (!retryAfterFailure()) {
          return false;
        }
        bytes.rewind(); // the sink undid any partial write
      }
    }
  }

  private boolean forceWithRetry() {
    while (true) {
      long start = System.nanoTime();
      try {
        sink.force();
        metrics.fsyncLatency(System.nanoTime() - start);
        recordsSinceForce = 0;
        lastForceMillis = System.currentTimeMillis();
        return true;
      } catch (Throwable t) {
        metrics.sinkError();
        logFailure("could not fsync the audit file (records written since the last fsync may not survive a "
            + "power cut)", t);
        if (!retryAfterFailure()) {
          return false;
        }
      }
    }
  }

  /** Under fail-closed, pauses and says to retry; under fail-open (or once abandoned), says to give up. */
  private boolean retryAfterFailure() {
    if (settings.failurePolicy() == FailurePolicy.FAIL_OPEN || pipeline.isAbandoned()) {
      return false;
    }
    long until = System.currentTimeMillis() + settings.failureRetryIntervalMs();
    long left;
    while ((left = until - System.currentTimeMillis()) > 0 && !pipeline.isAbandoned()) {
      try {
        Thread.sleep(Math.min(left, 50));
      } catch (InterruptedException ignored) {
        // the writer ignores interrupts: see AuditWriter
      }
    }
    return !pipeline.isAbandoned();
  }

  private void giveUp(List<AuditEvent> events, String what) {
    long now = System.currentTimeMillis();
    if (pipeline.isAbandoned()) {
      metrics.writeFailed(events.size());
    } else {
      drops.onWriterDrops(events.size(), now, "the audit " + what + " failed, failure policy fail-open");
    }
    for (AuditEvent e : events) {
      if (e.ticket != null) {
        e.ticket.release();
      }
    }
  }

  private void logFailure(String what, Throwable t) {
    failures.log(what + "; failure policy "
        + settings.failurePolicy().name().toLowerCase(java.util.Locale.ROOT).replace('_', '-'), t);
  }

}
