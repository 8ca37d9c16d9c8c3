package io.nnaudit.pipeline;

import java.util.concurrent.atomic.AtomicLong;

import org.slf4j.Logger;

import io.nnaudit.format.DropReport;
import io.nnaudit.throttle.IntervalGate;

/**
 * Counts dropped events exactly (in {@link AuditMetrics}) and says so: a rate-limited WARN in the NameNode log
 * and, through {@link #unreported}, a drop record in the audit stream once the writer runs again.
 *
 * <p>Handlers call {@link #onDrop} concurrently; it never blocks and never logs. The WARN line is written by
 * the writer thread ({@link #warnIfDue}, once per loop turn and at the end), so a handler never pays for
 * logging; a writer stuck inside a write call therefore delays the line, not the count. Every other method
 * is called by the writing thread: one thread at a time, the writer thread or a handler holding the pipeline's
 * write lock. The count in each report is exact; its from/to span can be off by the few microseconds of a
 * race between a drop and a report, never by a whole event.
 */
final class DropTracker {
  /*
   * Implementation notes. A drop is counted first (metrics.addDropped), then its time and reason are
   * published, then the start of the unreported span is set if it was empty: a report made in between has
   * the exact count and at worst a span that ends a moment early. Reports are made from the running total:
   * a report covers total - reportedTotal, and reportedTotal moves only once the report's record is written
   * (reported), so a report whose record could not be formatted or written is simply made again, larger,
   * with heldFrom keeping the start of its span. Nothing blocks; nothing is lost from the count.
   */
  private static final long NONE = Long.MIN_VALUE;

  /** Owns the drop counts; this class reads the total to make its reports. */
  private final AuditMetrics metrics;
  /** The time of the first drop since the last report was made, or NONE: set from NONE by dropping threads. */
  private final AtomicLong firstUnreported = new AtomicLong(NONE);
  /** The time of the latest drop. Any dropping thread. */
  private volatile long lastDropMillis;
  /** Why the latest drop happened, for the WARN. Any dropping thread. */
  private volatile String lastReason;
  private final IntervalGate warnGate;
  private final Logger log;
  private final String what;
  /** The drop total that written drop records cover. The writing thread. */
  private long reportedTotal;
  /** The start of the drops in reports made but not yet written, or NONE. The writing thread. */
  private long heldFrom = NONE;
  /** The drop total at the last WARN. The writing thread. */
  private long warnedTotal;

  DropTracker(AuditMetrics metrics, long warnIntervalMs, Logger log, String what) {
    this.metrics = metrics;
    this.warnGate = new IntervalGate(warnIntervalMs);
    this.log = log;
    this.what = what;
  }

  /** An event was dropped or refused before the queue took it. Any thread; never blocks, never logs. */
  void onDrop(long nowMillis, String reason) {
    onDrops(1, nowMillis, reason);
  }

  /** The writing thread: accepted events given up under fail-open. */
  void onWriterDrops(long count, long nowMillis, String reason) {
    metrics.addDroppedAfterAcceptance(count);
    onDrops(count, nowMillis, reason);
  }

  private void onDrops(long count, long nowMillis, String reason) {
    metrics.addDropped(count);
    lastDropMillis = nowMillis;
    lastReason = reason;
    firstUnreported.compareAndSet(NONE, nowMillis);
  }

  /**
   * The writing thread: logs a WARN for drops not yet warned about, at most once per warn interval, or now
   * when {@code force} (the writer is ending).
   */
  void warnIfDue(long nowMillis, boolean force) {
    long t = metrics.dropped();
    if (t == warnedTotal) {
      return;
    }
    if (force) {
      warnGate.open(nowMillis);
    } else if (!warnGate.tryOpen(nowMillis)) {
      return;
    }
    log.warn("nnaudit: dropped {} audit event(s) for {} (last reason: {}); {} dropped since start-up. Dropped "
        + "events are counted and reported in the audit file as nnaudit=dropped records.", t - warnedTotal, what,
        lastReason, t);
    warnedTotal = t;
  }

  /**
   * The writing thread: drops not yet reported in the audit stream, or null. The report stays due, and the
   * next one covers it too, until {@link #reported} says that its record was written.
   */
  DropReport unreported() {
    long t = metrics.dropped();
    if (t == reportedTotal) {
      return null;
    }
    long first = firstUnreported.getAndSet(NONE);
    if (first != NONE && (heldFrom == NONE || first < heldFrom)) {
      heldFrom = first;
    }
    long to = lastDropMillis;
    if (heldFrom == NONE || heldFrom > to) {
      heldFrom = to;
    }
    return new DropReport(t - reportedTotal, heldFrom, to, t);
  }

  /** The writing thread: the record of {@code r}, the last report {@link #unreported} made, is written. */
  void reported(DropReport r) {
    reportedTotal = r.total;
    heldFrom = NONE;
  }
}
