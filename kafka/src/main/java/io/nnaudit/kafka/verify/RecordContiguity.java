package io.nnaudit.kafka.verify;

import io.nnaudit.kafka.ShipHeaders;
import io.nnaudit.seal.Seal;

/**
 * Where one source's records stand in its trail, and whether each follows on from those before: each record
 * where the last ended, a file-end at the file's length, the next file from byte 0; only a gap record may
 * announce a hole. A record at a place already read is a copy, which must be the same record
 * ({@link RecentRecords}); one from before the first record read can only be a copy a resend began before the
 * read's start ({@link ResendBeforeStart}). Holds the records since the last seal ({@link #pending}) for the
 * seals to check ({@link SealChain}), and where the read began: one that began at a seal may find the file's
 * records start later (a seal comes a moment after its bytes).
 */
final class RecordContiguity {
  private final SourceFindings found;
  /** The records since the last seal of the file being read. */
  final PendingRange pending;
  private final RecentRecords recent;
  private final RecentMap<String, Boolean> gapIds = new RecentMap<>(10_000);
  /** The lengths of the last files of the source that ended (by their file-end): what a copy is compared to. */
  private final RecentMap<Long, Long> fileEnds = new RecentMap<>(10_000);
  private final ResendBeforeStart resend;

  private boolean started;
  /** The stream's file being read, and the byte its next record must start at. */
  long file;
  long next;
  /** Where the source's first record was (global place): copies from before it are not compared. */
  private long firstPlace = -1;
  /**
   * The read began at a seal, and no record or file-end came since: the records after the seal's range that its
   * file held may have been sent before it (a seal comes a moment after its bytes), before the read's start, so
   * the first record may start later in the file.
   */
  private boolean startedAtSeal;
  /** A gap was announced: the next record may start anywhere later. */
  private boolean afterGap;
  /** Whether a seal of the stream's current file was read (its next seal must continue it), and where it ended. */
  boolean fileSealed;
  long fileSealedTo;

  RecordContiguity(SourceFindings found, int maxPendingBytes, int window) {
    this.found = found;
    this.pending = new PendingRange(maxPendingBytes);
    this.recent = new RecentRecords(window);
    this.resend = new ResendBeforeStart(found, fileEnds);
  }

  /**
   * A place as one number, in the stream's order: {@link StreamRecord} refuses files from 2^23 and bytes from
   * 2^40 (none the shipper gives), so it neither overflows nor names two places.
   */
  static long place(long file, long offset) {
    return (file << 40) + offset;
  }

  private void begin(long f, long o) {
    started = true;
    file = f;
    next = o;
    firstPlace = place(f, o);
    pending.reset(o, o == 0);
  }

  /** After a gap: the trail goes on at {@code f}/{@code o}. */
  private void resync(long f, long o) {
    if (f != file) {
      if (!pending.isEmpty()) {
        found.report(new Finding(Finding.Kind.NOT_VERIFIED, found.source, file, pending.start, null, pending.records
            + " record(s) up to byte " + pending.end + " of the file, before the gap: no seal of them came"));
      }
      fileSealed = false;
    }
    // within the file, the seal that covers the hole comes later: it is reported then, as not hashed
    String why = "records were lost in an announced gap" + (f == file ? " (bytes " + next + "-" + o + ")" : "");
    file = f;
    next = o;
    pending.reset(o, o == 0, why);
    afterGap = false;
  }

  /** An audit record (whole or cut). */
  void line(StreamRecord r) {
    long at = place(r.file, r.offset);
    if (resend.isOpen() && !resend.isNext(r)) {
      resend.brokenOff(r);
      return;
    }
    if (!started) {
      begin(r.file, r.offset);
      afterGap = false;
    } else if (startedAtSeal && r.file == file && r.offset > next) {
      begin(r.file, r.offset); // the records before it were sent before the seal the read began at
    } else if (afterGap && at >= place(file, next)) {
      if (r.file != file || r.offset != next) {
        resync(r.file, r.offset);
      }
      afterGap = false;
    }
    if (at >= place(file, next)) {
      startedAtSeal = false;
    }
    if (r.file == file && r.offset == next) {
      recent.add(at, ShipHeaders.RECORD_CUT.equals(r.type), r.length, r.value);
      pending.add(r.value, ShipHeaders.RECORD_CUT.equals(r.type), r.end(), r.kafkaOffset);
      next = r.end();
      found.records++;
      found.sendsLinesTogether |= r.linesInRecord > 1;
      if (found.firstMillis < 0) {
        found.firstMillis = r.timestamp;
      }
      found.lastMillis = r.timestamp;
    } else if (at < place(file, next)) {
      copy(r, at);
    } else if (r.file == file) {
      found.tamper(r, file, next, "records deleted: the file's next record should start at byte " + next + ", the "
          + "next one here starts at byte " + r.offset + " (" + (r.offset - next) + " bytes of records are missing, "
          + "or records were moved)");
    } else {
      found.tamper(r, file, next, "file " + file + " does not end (no file-end after byte " + next + ") before this "
          + "record of file " + r.file + ": records or the file's end are missing, or records were moved");
    }
  }

  /** A record at a place already read: a copy, which must be the same record. */
  private void copy(StreamRecord r, long at) {
    switch (recent.lookup(at, ShipHeaders.RECORD_CUT.equals(r.type), r.length, r.value)) {
      case SAME:
        found.duplicates++;
        break;
      case DIFFERENT:
        found.tamper(r, r.file, r.offset, "a record sent again with another value (or said cut where it was "
            + "whole, or whole where it was cut): the copy differs from the "
            + "record read first at this place");
        break;
      case NO_RECORD_THERE:
        found.tamper(r, r.file, r.offset, "records inserted: no record of the file starts at byte " + r.offset
            + " (or records were moved)");
        break;
      default:
        if (at < firstPlace) {
          resend.add(r, firstPlace);
        } else {
          found.notCompared++;
        }
    }
  }

  /**
   * A file-end: whether it ends the file being read where its records end (then the records no seal covered
   * are judged, and {@link #nextFile} goes on); false when it is a copy, a change, or ends the file before the
   * read began.
   */
  boolean fileEnd(StreamRecord r) {
    if (resend.isOpen()) {
      resend.fileEnd(r, firstPlace);
      return false;
    }
    if (!started) {
      begin(r.file + 1, 0);
      fileEnds.put(r.file, r.offset);
      return false;
    }
    if (startedAtSeal && r.file == file && r.offset > next) { // its records were sent before the seal read first
      firstPlace = place(r.file, r.offset);
      next = r.offset;
      pending.reset(r.offset, false);
    }
    startedAtSeal = false;
    if (afterGap && place(r.file, r.offset) >= place(file, next)) {
      if (r.file != file || r.offset != next) {
        resync(r.file, r.offset);
      }
      afterGap = false;
    }
    if (r.file < file || r.file == file && r.offset < next) {
      Long end = fileEnds.get(r.file);
      if (end != null && end == r.offset) {
        found.duplicates++;
      } else if (end != null || r.file == file) {
        found.tamper(r, r.file, r.offset, "a file-end at byte " + r.offset + " of a file whose records "
            + (end != null ? "ended at byte " + end : "go on to byte " + next));
      } else {
        found.notCompared++;
      }
      return false;
    }
    if (r.file != file) {
      found.tamper(r, file, next, "file " + file + " does not end (no file-end after byte " + next + ") before the "
          + "end of file " + r.file + ": records or the file's end are missing");
      return false;
    }
    if (r.offset != next) {
      found.tamper(r, file, next, "records deleted: the file ends at byte " + r.offset + ", its records here at "
          + "byte " + next);
      return false;
    }
    return true;
  }

  /** After the file-end of the file being read: the next file, from byte 0. */
  void nextFile() {
    fileEnds.put(file, next);
    found.files++;
    file++;
    next = 0;
    fileSealed = false;
    pending.reset(0, true);
  }

  /** A gap record: whether it announces a gap not read before (then the next record may start anywhere later). */
  boolean gap(StreamRecord r) {
    if (gapIds.put(r.file + ":" + r.offset + ":" + r.text(), Boolean.TRUE) != null) {
      found.duplicates++;
      return false;
    }
    found.gaps++;
    found.report(new Finding(Finding.Kind.GAP, found.source, r.file, r.offset, r.place(), "records lost before "
        + "they were shipped, as the source announced: " + r.text()));
    afterGap = true; // a hole it announced shows when the next record does not follow (resync)
    return true;
  }

  /**
   * A seal {@code s} at {@code r}, read (its identity not seen before): the read may begin at it, and it may
   * follow an announced gap, its records gone with the gap.
   */
  void sealAt(StreamRecord r, Seal s) {
    if (!started) {
      begin(r.file, r.offset);
      pending.reset(r.offset, false);
      // Any seal read first may come after records that follow its range, sent before the read's start: a seal
      // comes a moment after its bytes, and a restarted shipper sends its file's seals again, the chain's first
      // among them. How many such records the partition can have held before the read is StreamCheck's to judge.
      startedAtSeal = true;
    }
    if (afterGap && place(r.file, r.offset) > place(file, next)) { // what it seals up to went with the gap
      if (r.file != file) {
        resync(r.file, r.offset);
      } else {
        next = r.offset;
        afterGap = false;
      }
      if (r.offset > 0) {
        pending.hole("records were lost in an announced gap");
      }
    }
  }

  /** A seal of file {@code f} up to byte {@code to}, in its place: the read may have begun after its records. */
  void sealedUpTo(long f, long to) {
    if (startedAtSeal && f == file && to > next) { // its records were sent before the seal read first
      firstPlace = place(f, to);
      next = to;
      pending.reset(to, false);
    }
  }

  /**
   * Whether a seal up to byte {@code o} of file {@code f} covers nothing read: its range ends at or before the
   * start of the first record read (a file's first seal, over no bytes, ends where the file's first record
   * begins).
   */
  boolean sealsNothingRead(long f, long o) {
    return place(f, o) <= firstPlace;
  }

  /** A seal of the file being read, up to byte {@code to}, was checked: the file's next seal must continue it. */
  void sealChecked(long to) {
    fileSealed = true;
    fileSealedTo = to;
  }

  /** At the end of the read: a run before the read's start that never reached it. */
  void finish() {
    resend.finish();
  }
}
