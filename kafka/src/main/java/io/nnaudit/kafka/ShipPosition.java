package io.nnaudit.kafka;

/**
 * A place in the audit trail: byte {@code offset} of the file numbered {@code fileSeq}. Files are numbered in the
 * order they were written, from the first file this shipper ever read; the numbers are kept in the checkpoint,
 * so a record has the same identity however often it is sent. Immutable.
 */
final class ShipPosition {
  /** Bits of {@link #global} given to the offset: files up to 1 TiB. */
  private static final int OFFSET_BITS = 40;

  final long fileSeq;
  /** Device and inode of the file; null when the file is not known (before the first file exists). */
  final String fileKey;
  final long offset;
  /** A modification time of the file seen by the shipper: newer files have a later one, older an earlier. */
  final long modifiedNanos;

  ShipPosition(long fileSeq, String fileKey, long offset, long modifiedNanos) {
    this.fileSeq = fileSeq;
    this.fileKey = fileKey;
    this.offset = offset;
    this.modifiedNanos = modifiedNanos;
  }

  /** One number that orders positions: file first, then offset. */
  long global() {
    return global(fileSeq, offset);
  }

  static long global(long fileSeq, long offset) {
    return (fileSeq << OFFSET_BITS) + offset;
  }

  /** The file number of a place made by {@link #global}. */
  static long fileOf(long global) {
    return global >>> OFFSET_BITS;
  }

  /** The byte of its file of a place made by {@link #global}. */
  static long offsetOf(long global) {
    return global & ((1L << OFFSET_BITS) - 1);
  }

  ShipPosition at(long newOffset) {
    return new ShipPosition(fileSeq, fileKey, newOffset, modifiedNanos);
  }

  @Override
  public String toString() {
    return "file " + fileSeq + " " + fileKey + " at byte " + offset;
  }
}
