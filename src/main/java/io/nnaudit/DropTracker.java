package io.nnaudit;

import java.util.concurrent.atomic.AtomicLong;

import org.slf4j.Logger;

/**
 * Counts dropped events exactly and says so: a rate-limited WARN in the NameNode log (from the handler that
 * dropped, since the writer may be the thing that is stuck) and, through {@link #takeUnreported}, a drop
 * record in the audit stream once the writer runs again.
 *
 * <p>Handlers call {@link #onDrop} concurrently; it never blocks: two atomic updates, and at most one handler
 * per warn interval wins a CAS and logs. {@link #takeUnreported} is called by the writer thread only. The
 * count in each report is exact; its from/to span can be off by the few microseconds of a race between a drop
 * and a report, never by a whole event.
 */
final class DropTracker {
  private static final long NONE = Long.MIN_VALUE;

  private final AtomicLong total = new AtomicLong();
  /** Of {@link #total}, the events the writer dropped after the queue had accepted them (fail-open). */
  private volatile long afterAcceptance;
  private final AtomicLong firstUnreported = new AtomicLong(NONE);
  private volatile long lastDropMillis;
  private final AtomicLong lastWarnMillis = new AtomicLong(NONE);
  private final long warnIntervalMs;
  private final Logger log;
  private final String what;
  private long reportedTotal; // writer thread only

  DropTracker(long warnIntervalMs, Logger log, String what) {
    this.warnIntervalMs = warnIntervalMs;
    this.log = log;
    this.what = what;
  }

  void onDrop(long nowMillis, String reason) {
    onDrops(1, nowMillis, reason);
  }

  void onDrops(long count, long nowMillis, String reason) {
    long n = total.addAndGet(count);
    lastDropMillis = nowMillis;
    firstUnreported.compareAndSet(NONE, nowMillis);
    long lastWarn = lastWarnMillis.get();
    if ((lastWarn == NONE || nowMillis - lastWarn >= warnIntervalMs)
        && lastWarnMillis.compareAndSet(lastWarn, nowMillis)) {
      log.warn("nnaudit: dropped {} audit event(s) for {} ({}); {} dropped since start-up. Dropped events are "
          + "counted and reported in the audit file as nnaudit=dropped records.", count, what, reason, n);
    }
  }

  /** Writer thread only: accepted events given up by fail-open. */
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

  /** Drops not yet reported in the audit stream, or null. Writer thread only. */
  DropReport takeUnreported() {
    long t = total.get();
    if (t == reportedTotal) {
      return null;
    }
    long from = firstUnreported.getAndSet(NONE);
    long to = lastDropMillis;
    if (from == NONE || from > to) {
      from = to;
    }
    DropReport r = new DropReport(t - reportedTotal, from, to, t);
    reportedTotal = t;
    return r;
  }

  /** Puts back a report whose drop record could not be written, so that the next one covers it. */
  void unreport(DropReport r) {
    if (r == null) {
      return;
    }
    reportedTotal -= r.count;
    long first = firstUnreported.get();
    while ((first == NONE || first > r.fromMillis) && !firstUnreported.compareAndSet(first, r.fromMillis)) {
      first = firstUnreported.get();
    }
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
