package io.nnaudit.kafka.verify;

/**
 * One thing verify-stream found in a source's records: where (the file and byte of the source's trail as the
 * stream numbers it, and the record's place in the topic) and what. Immutable.
 */
final class Finding {
  /** What a finding means for the exit code, as {@code nnaudit verify}'s. */
  enum Kind {
    /** A record, a seal or their order was changed, inserted or removed: exit 1. */
    TAMPERED("TAMPERED", 1),
    /** The source announced records lost before they were shipped (a gap record): exit 2. */
    GAP("GAP", 2),
    /** Records after the source's last seal: exit 2. */
    UNSEALED("UNSEALED", 2),
    /** Records a later start sealed (recover, adopt): exit 2 unless accepted. */
    SEALED_LATE("SEALED LATE", 2),
    /** Records that could not be checked against a seal, and are not a change: exit 2. */
    NOT_VERIFIED("NOT VERIFIED", 2),
    /** Said for the reader, changing nothing: exit 0. */
    NOTE("note", 0);

    final String label;
    final int exitCode;

    Kind(String label, int exitCode) {
      this.label = label;
      this.exitCode = exitCode;
    }
  }

  final Kind kind;
  final String source;
  /** The stream's file number and byte, or -1 when the finding is not at one place. */
  final long file;
  final long offset;
  /** The record's place in the topic ({@code partition P, offset O}), or null. */
  final String place;
  final String text;

  Finding(Kind kind, String source, long file, long offset, String place, String text) {
    this.kind = kind;
    this.source = source;
    this.file = file;
    this.offset = offset;
    this.place = place;
    this.text = text;
  }

  @Override
  public String toString() {
    String where = file < 0 ? "" : " file " + file + " at byte " + offset;
    String topic = place == null ? "" : " (" + place + ")";
    return source + where + topic + ": " + text;
  }
}
