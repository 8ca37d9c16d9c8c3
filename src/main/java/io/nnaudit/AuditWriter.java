package io.nnaudit;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

import io.nnaudit.DropTracker.DropReport;
import io.nnaudit.format.RecordBuffer;
import io.nnaudit.format.RecordFormatter;
import io.nnaudit.sink.AuditSink;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The one background thread of a pipeline: it drains the queue in batches, formats each batch as UTF-8 into
 * one reused buffer, and hands it to the {@link BatchCommitter}, which writes it with one write call and
 * fsyncs as configured.
 *
 * <p>Design note. The loop waits (up to {@link #IDLE_POLL_MS}) for the first event, then takes whatever else
 * is queued, up to {@code nnaudit.writer.batch.max.events}, without waiting again. After a batch smaller than
 * half the queue it lingers ({@code nnaudit.writer.linger.ms}, default 5 ms) so that events gather: on a busy
 * NameNode the handlers' offers then find no waiting writer to signal, and the writer wakes and writes once
 * per linger instead of once per event, which is what a handler thread would otherwise pay for in context
 * switches. A handler that finds the queue full unparks the writer at once, so the linger never makes a
 * handler wait for long. There is no linger under DROP, where a queue filled by lingering would lose events
 * to mere load, nor under durability=sync, where every operation waits for the fsync and the fsync itself
 * is where batches gather (group commit). A batch of half the queue or more ends lingering until the load
 * falls again. A pending drop report is written ahead of the batch in which the writer notices
 * it. The sink writes straight to the file channel, so the end of each write is the flush: there is no
 * user-space buffer in which records could wait.
 *
 * <p>Failures never stop the loop: an event that cannot be formatted is counted in {@code writeFailed},
 * logged and left out; sink failures are handled by the failure policy in {@link BatchCommitter}. Interrupts
 * are ignored, because an interrupted FileChannel closes itself and because leaving early would strand queued
 * events.
 *
 * <p>Shutdown: the loop ends only when the pipeline is closed, no handler is still inside
 * {@link AuditPipeline#offer}, and the queue is empty; it then writes any last drop report and closes the
 * sink. So every accepted event is written (or counted) before the sink closes.
 */
final class AuditWriter implements Runnable {
  private static final Logger LOG = LoggerFactory.getLogger(AuditWriter.class);
  static final long IDLE_POLL_MS = 50;
  /** A batch this many bytes long is written out at once, so hostile 64 KiB paths cannot make a huge buffer. */
  static final int WRITE_CHUNK_BYTES = 1 << 20;

  private final AuditPipeline pipeline;
  private final ArrayBlockingQueue<AuditEvent> queue;
  private final AuditSink sink;
  private final RecordFormatter formatter;
  private final DropTracker drops;
  private final BatchCommitter committer;
  private final WriterMetrics metrics;
  private final int batchMax;
  private final long idlePollMs;
  private final long lingerNanos;
  /** Linger only after a batch smaller than this: half the queue, so lingering cannot fill it. */
  private final int lingerBelow;
  private final List<AuditEvent> chunkEvents = new ArrayList<>();
  private RecordBuffer text = new RecordBuffer();
  private final WriterFailureLog failures = new WriterFailureLog();

  AuditWriter(AuditPipeline pipeline, ArrayBlockingQueue<AuditEvent> queue, AuditSink sink,
      RecordFormatter formatter, DropTracker drops, NnauditSettings settings, WriterMetrics metrics) {
    this.pipeline = pipeline;
    this.queue = queue;
    this.sink = sink;
    this.formatter = formatter;
    this.drops = drops;
    this.metrics = metrics;
    this.committer = new BatchCommitter(settings, sink, drops, pipeline, metrics, failures);
    this.batchMax = settings.batchMaxEvents();
    // DROP never lingers: a queue that fills while the writer lingers would drop events under mere load.
    this.lingerNanos = settings.overflowPolicy() == OverflowPolicy.DROP ? 0
        : TimeUnit.MILLISECONDS.toNanos(settings.writerLingerMs());
    this.lingerBelow = Math.max(1, Math.min(batchMax, settings.queueCapacity() / 2));
    this.idlePollMs = settings.durability() == Durability.INTERVAL
        ? Math.min(IDLE_POLL_MS, settings.durabilityIntervalMs()) : IDLE_POLL_MS;
  }

  @Override
  public void run() {
    List<AuditEvent> batch = new ArrayList<>(Math.min(batchMax, 4096));
    try {
      while (true) {
        AuditEvent first;
        try {
          first = queue.poll(idlePollMs, TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
          continue; // see the design note: never leave with events queued
        }
        if (first == null) {
          DropReport report = drops.takeUnreported();
          if (report != null) {
            writeBatch(batch, report);
          }
          committer.idle();
          // Quiescent first, then empty: an event offered before the last handler left is seen here.
          if (pipeline.isQuiescent() && queue.isEmpty()) {
            DropReport last = drops.takeUnreported();
            if (last != null) {
              writeBatch(batch, last);
            }
            return;
          }
          continue;
        }
        batch.add(first);
        queue.drainTo(batch, batchMax - 1);
        metrics.batchDrained(batch.size());
        writeBatch(batch, drops.takeUnreported());
        boolean light = batch.size() < lingerBelow;
        batch.clear();
        if (light && lingerNanos > 0 && pipeline.isOpen()) {
          // Let events gather: one wake-up and one write per linger, not one per event. A handler that finds
          // the queue full, and close(), unpark us at once.
          LockSupport.parkNanos(this, lingerNanos);
        }
      }
    } finally {
      try {
        sink.close();
      } catch (Throwable t) {
        LOG.warn("nnaudit: closing the audit sink failed", t);
      }
    }
  }

  private void writeBatch(List<AuditEvent> batch, DropReport report) {
    RecordBuffer records = text;
    records.setLength(0);
    chunkEvents.clear();
    if (report != null) {
      formatter.appendDropRecord(records, System.currentTimeMillis(), report.count, report.fromMillis,
          report.toMillis, report.total);
    }
    for (AuditEvent e : batch) {
      int mark = records.length();
      try {
        formatter.appendRecord(records, e);
        chunkEvents.add(e);
      } catch (Throwable t) {
        records.setLength(mark);
        metrics.writeFailed(1);
        if (e.ticket != null) {
          e.ticket.release();
        }
        failures.log("could not format an audit event (cmd=" + safe(e) + "); it is skipped; "
            + metrics.writeFailed + " events failed in all", t);
      }
      if (records.length() >= WRITE_CHUNK_BYTES) {
        flushChunk(records, report);
        report = null;
      }
    }
    flushChunk(records, report);
    if (records.capacity() > 2 * WRITE_CHUNK_BYTES) {
      text = new RecordBuffer(); // a hostile record made it large: let it go
    }
  }

  /** One write for everything in {@code records}: those of {@link #chunkEvents}, after {@code report}'s. */
  private void flushChunk(RecordBuffer records, DropReport report) {
    if (records.length() > 0) {
      committer.commit(records.asByteBuffer(), chunkEvents, report);
    }
    records.setLength(0);
    chunkEvents.clear();
  }

  private static String safe(AuditEvent e) {
    try {
      return String.valueOf(e.cmd);
    } catch (Throwable t) {
      return "?";
    }
  }
}
