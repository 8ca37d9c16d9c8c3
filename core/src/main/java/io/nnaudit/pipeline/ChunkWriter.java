package io.nnaudit.pipeline;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

import io.nnaudit.event.AuditEvent;
import io.nnaudit.format.DropReport;
import io.nnaudit.format.RecordBuffer;
import io.nnaudit.format.RecordFormatter;
import io.nnaudit.journal.RecordJournal;
import io.nnaudit.sink.RecordEnds;
import io.nnaudit.throttle.RateLimitedLog;

/**
 * Formats a batch as UTF-8 into one reused buffer and hands it to the {@link BatchCommitter} in chunks of about
 * {@link #WRITE_CHUNK_BYTES}, one write call each; a pending drop report goes ahead of the batch's records. There
 * is no user-space buffer in which records could wait: a chunk is formatted and committed in one call.
 *
 * <p>Design note. Nothing here blocks but the commit (see BatchCommitter) and nothing takes a lock: the caller
 * is the writing thread, one thread at a time (see AuditWriter's notes), which owns every mutable field. What
 * drops: an event that cannot be formatted is counted in {@code writeFailed}, logged (rate-limited), left out,
 * and its operation's response aborted; a drop record that cannot be formatted is left out, and its drops stay
 * due for the next report. No shutdown of its own: it lives as long as the writing state.
 */
final class ChunkWriter {
  /** A batch this many bytes long is written out at once, so hostile 64 KiB paths cannot make a huge buffer. */
  static final int WRITE_CHUNK_BYTES = 1 << 20;

  /** The writing thread: formatters need not be thread-safe. */
  private final RecordFormatter formatter;
  private final BatchCommitter committer;
  private final DropTracker drops;
  private final AuditMetrics metrics;
  /** The failures of every writing thread, rate-limited. Any thread. */
  private final RateLimitedLog failures;
  /** The events whose records are in {@link #text} now. The writing thread. */
  private final List<AuditEvent> chunkEvents = new ArrayList<>();
  /** The records of the chunk being formatted; replaced when a hostile record made it large. The writing thread. */
  private RecordBuffer text = new RecordBuffer();
  /** Where each record in {@link #text} ends, for the sink. The writing thread. */
  private final RecordEnds ends = new RecordEnds();
  /** Under ack policy journal, the sink's journal; else null. Its writer-side calls are the writing thread's. */
  private final RecordJournal journal;
  /** Where the journal frames of the records in {@link #text} end: the last one's end; 0 for none. */
  private long chunkJournalEnd;

  ChunkWriter(RecordFormatter formatter, BatchCommitter committer, DropTracker drops, AuditMetrics metrics,
      RateLimitedLog failures, RecordJournal journal) {
    this.journal = journal;
    this.formatter = formatter;
    this.committer = committer;
    this.drops = drops;
    this.metrics = metrics;
    this.failures = failures;
  }

  /**
   * Writes {@code report}'s record, if any, then the records of {@code events}, committing each chunk under
   * {@code mode}. Returns null when every chunk was committed or settled by the failure policy; after a single
   * try that failed ({@link CommitMode#triesOnce}), the events not written, in order and with their tickets
   * pending: the failed chunk's and those not yet formatted (empty when the failed chunk held only the drop
   * record).
   */
  List<AuditEvent> write(List<AuditEvent> events, DropReport report, CommitMode mode) {
    RecordBuffer records = text;
    records.setLength(0);
    ends.clear();
    chunkEvents.clear();
    if (report != null) {
      try {
        formatter.appendDropRecord(records, System.currentTimeMillis(), report);
        ends.add(records.length());
      } catch (Throwable t) {
        records.setLength(0);
        report = null; // still due: the next report covers these drops too
        failures.error("could not format a drop record; the drops stay counted for the next one", t);
      }
    }
    for (int i = 0; i < events.size(); i++) {
      AuditEvent e = events.get(i);
      int mark = records.length();
      int endsMark = ends.count();
      try {
        byte[] formatted = e.record();
        if (formatted != null) { // formatted by its handler, which journaled it
          records.append(formatted);
        } else {
          formatter.appendRecord(records, e);
        }
        ends.add(records.length());
        chunkEvents.add(e);
        chunkJournalEnd = Math.max(chunkJournalEnd, e.journalEnd());
      } catch (Throwable t) {
        records.setLength(mark);
        ends.truncate(endsMark);
        if (e.journalEnd() > 0 && journal != null) {
          // acknowledged already: later chunks must not carry the mark past it
          journal.freeze("a journaled record could not be put in a chunk");
        }
        metrics.countWriteFailed(1);
        if (e.ticket != null) {
          metrics.countAborted(1);
          e.ticket.abort("the audit record could not be formatted");
        }
        failures.error("could not format an audit event (cmd=" + safe(e) + "); it is skipped and its operation "
            + "is not acknowledged; " + metrics.writeFailed() + " events failed in all", t);
      }
      if (records.length() >= WRITE_CHUNK_BYTES) {
        if (!flush(records, report, mode)) {
          return unwritten(events.subList(i + 1, events.size()));
        }
        report = null;
      }
    }
    if (!flush(records, report, mode)) {
      return unwritten(Collections.emptyList());
    }
    if (records.capacity() > 2 * WRITE_CHUNK_BYTES) {
      text = new RecordBuffer(); // a hostile record made it large: let it go
    }
    return null;
  }

  /**
   * After an unexpected error in the middle of a write: forgets the chunk in hand and lets its buffer go, so the
   * next write starts clean. Journaled records of the batch may or may not be in the file, and were
   * acknowledged: the journal keeps its mark for the next start ({@link RecordJournal#freeze}).
   */
  void reset() {
    if (journal != null) {
      journal.freeze("the audit writer failed in the middle of a batch");
    }
    chunkJournalEnd = 0;
    chunkEvents.clear();
    ends.clear();
    text = new RecordBuffer();
  }

  /**
   * One write for everything in {@code records}: those of {@link #chunkEvents}, after {@code report}'s, which
   * is settled once written. Returns false only when a single try failed: the chunk's events are then still in
   * {@link #chunkEvents}, untouched, for {@link #unwritten}.
   */
  private boolean flush(RecordBuffer records, DropReport report, CommitMode mode) {
    if (records.length() > 0) {
      if (journal != null) {
        journal.cover(chunkJournalEnd); // the sink marks the write of these journaled records in the journal
      }
      chunkJournalEnd = 0;
      boolean written;
      try {
        written = committer.commit(records.asByteBuffer(), ends, chunkEvents, mode);
      } finally {
        if (journal != null) {
          journal.cover(0);
        }
      }
      records.setLength(0);
      ends.clear();
      if (written && report != null) {
        drops.reported(report);
      } else if (!written && mode.triesOnce()) {
        return false;
      }
    }
    chunkEvents.clear();
    return true;
  }

  /** The failed chunk's events, then {@code rest} (not yet formatted): copied, in order. */
  private List<AuditEvent> unwritten(List<AuditEvent> rest) {
    List<AuditEvent> out = new ArrayList<>(chunkEvents.size() + rest.size());
    out.addAll(chunkEvents);
    out.addAll(rest);
    chunkEvents.clear();
    return out;
  }

  private static String safe(AuditEvent e) {
    try {
      return String.valueOf(e.cmd);
    } catch (Throwable t) {
      return "?";
    }
  }
}
