package io.nnaudit;

import java.util.concurrent.atomic.AtomicLong;

import org.slf4j.Logger;

/**
 * Counts dropped events exactly and says so: a rate-limited WARN in the NameNode log and, through
 * {@link #unreported}, a drop record in the audit stream once the writer runs again.
 *
 * <p>Handlers call {@link #onDrop} concurrently; it never blocks and never logs: two atomic updates and a
 * volatile write of the reason. The WARN line is written by the writer thread ({@link #warnIfDue}, once per
 * loop turn and at the end), so a handler never pays for logging; a writer stuck inside a write call
 * therefore delays the line, not the count. {@link #unreported}, {@link #reported} and
 * {@link #warnIfDue} are called by one writing thread at a time: the writer thread, or a handler holding the
 * pipeline's write lock. The count in each report is exact; its from/to span can be off by the few microseconds of a race
 * between a drop and a report, never by a whole event.
 */
final class DropTracker {
  private static final long NONE = Long.MIN_VALUE;

  private final AtomicLong total = new AtomicLong();
  /** Of {@link #total}, the events the writer dropped after the queue had accepted them (fail-open). */
  private volatile long afterAcceptance;
  private final AtomicLong firstUnreported = new AtomicLong(NONE);
  private volatile long lastDropMillis;
  private volatile String lastReason;
  private final IntervalGate warnGate;
  private final Logger log;
  private final String what;
  private long reportedTotal; // the writing thread only
  /** The start of the drops in reports given but not yet written, or NONE; the writing thread only. */
  private long heldFrom = NONE;
  private long warnedTotal; // the writing thread only

  DropTracker(long warnIntervalMs, Logger log, String what) {
    this.warnGate = new IntervalGate(warnIntervalMs);
    this.log = log;
    this.what = what;
  }

  /** A handler's event was dropped. Never blocks, never logs. */
  void onDrop(long nowMillis, String reason) {
    onDrops(1, nowMillis, reason);
  }

  void onDrops(long count, long nowMillis, String reason) {
    total.addAndGet(count);
    lastDropMillis = nowMillis;
    lastReason = reason;
    firstUnreported.compareAndSet(NONE, nowMillis);
  }

  /**
   * Writer thread: logs a WARN for drops not yet warned about, at most once per warn interval, or now when
   * {@code force} (the writer is ending).
   */
  void warnIfDue(long nowMillis, boolean force) {
    long t = total.get();
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

  /** The writing thread only: accepted events given up by fail-open. */
  void onWriterDrops(long count, long nowMillis, String reason) {
    afterAcceptance += count;
    onDrops(count, nowMillis, reason);
  }

  long droppedAfterAcceptance() {
    return afterAcceptance;
  }

  long total() {
    return total.get();
  }

  /**
   * Drops not yet reported in the audit stream, or null. The report stays due, and the next one covers it
   * too, until {@link #reported} says that its record was written. The writing thread only.
   */
  DropReport unreported() {
    long t = total.get();
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

  /** The record of {@code r}, the last report {@link #unreported} gave, is written. The writing thread only. */
  void reported(DropReport r) {
    reportedTotal = r.total;
    heldFrom = NONE;
  }

  /** Drops between two records of the audit stream. */
  static final class DropReport {
    final long count;
    final long fromMillis;
    final long toMillis;
    final long total;

    DropReport(long count, long fromMillis, long toMillis, long total) {
      this.count = count;
      this.fromMillis = fromMillis;
      this.toMillis = toMillis;
      this.total = total;
    }
  }
}
