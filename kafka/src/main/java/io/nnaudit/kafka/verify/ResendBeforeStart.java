package io.nnaudit.kafka.verify;

/**
 * A run of records before the first record read, never read here, not yet shown to be a resend: the copies of a
 * resend that began before the read's start (the read began inside it). A resend goes on from its checkpoint,
 * record after record, to the records read (or to a file's end read); such a run is dropped uncompared, and
 * counted ({@link SourceFindings#resentBeforeStart}). A run that breaks off before it gets there is no copy but
 * records put there: a change.
 */
final class ResendBeforeStart {
  private final SourceFindings found;
  /** The lengths of the files that ended, by their file-end: a run may reach the records read at one. */
  private final RecentMap<Long, Long> fileEnds;
  /** The run's first record (null: no run), the file it is in now, where its next record must start, and its length. */
  private StreamRecord first;
  private long file;
  private long next;
  private long records;

  ResendBeforeStart(SourceFindings found, RecentMap<Long, Long> fileEnds) {
    this.found = found;
    this.fileEnds = fileEnds;
  }

  /** Whether a run is under way. */
  boolean isOpen() {
    return first != null;
  }

  /** Whether {@code r} starts where the run's next record must. */
  boolean isNext(StreamRecord r) {
    return r.file == file && r.offset == next;
  }

  /**
   * A record before {@code firstPlace}, the first record read, that begins a run or goes on with it: a copy that
   * cannot be compared if the run goes on to where the read began; else a record put there, found when the run
   * breaks off ({@link #brokenOff}).
   */
  void add(StreamRecord r, long firstPlace) {
    if (first == null) {
      first = r;
      file = r.file;
      records = 0;
    }
    next = r.end();
    records++;
    reached(firstPlace);
  }

  /** A file-end while a run is under way: a resend goes on into the next file; anything else breaks it off. */
  void fileEnd(StreamRecord r, long firstPlace) {
    if (isNext(r)) {
      found.resentBeforeStart++;
      fileEnds.put(file, next);
      file++;
      next = 0;
      reached(firstPlace);
    } else {
      brokenOff(r);
    }
  }

  /** Whether the run reached {@code firstPlace} (or a file end read); ends it then. */
  private void reached(long firstPlace) {
    Long end = fileEnds.get(file);
    if (RecordContiguity.place(file, next) == firstPlace || end != null && end == next) {
      found.resentBeforeStart += records; // copies sent again from before the read's start: never read here
      first = null;
    }
  }

  /** {@code r} (null: the end of the read) comes while the run did not reach the records read: a change. */
  void brokenOff(StreamRecord r) {
    StreamRecord f = first;
    first = null;
    found.tamper(r == null ? f : r, f.file, f.offset, "records inserted: " + records + " record(s) from byte "
        + f.offset + " of file " + f.file + " (" + f.place() + "), before the first record read, stop at byte "
        + next + ", short of the records read: a resend goes on from where it begins to what was sent after "
        + "it, so these are no copies");
  }

  /** At the end of the read: a run still under way never reached the records read. */
  void finish() {
    if (found.tampering == null && first != null) {
      brokenOff(null);
    }
  }
}
