package io.nnaudit.journal;

/**
 * One of the journal header's two marks: how far the ring is known to be in the audit file ({@link #written}),
 * and, while a write of the ring's records is under way, which ({@link #pendingEnd}) and where: the identity of
 * the file written ({@link #fileKey}, the device and inode as the JVM names them), the offset the write began at
 * and its length. A start compares that file with these, never the records' text, to tell whether the write
 * was done, cut short or never made.
 */
final class JournalMark {
  static final JournalMark EMPTY = new JournalMark(0, 0, 0, null, 0, 0);

  final long seq;
  final long written;
  final long pendingEnd;
  final String fileKey;
  final long offset;
  final long length;

  JournalMark(long seq, long written, long pendingEnd, String fileKey, long offset, long length) {
    this.seq = seq;
    this.written = written;
    this.pendingEnd = pendingEnd;
    this.fileKey = fileKey;
    this.offset = offset;
    this.length = length;
  }

  /** Whether a write of records past {@link #written} was under way. */
  boolean writePending() {
    return pendingEnd > written && fileKey != null;
  }
}
