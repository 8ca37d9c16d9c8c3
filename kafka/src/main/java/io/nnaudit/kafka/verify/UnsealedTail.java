package io.nnaudit.kafka.verify;

import io.nnaudit.seal.Seal;

/**
 * What records no seal covered mean, as {@code nnaudit verify} reads them. At a file's end: seals removed once
 * the source has sealed (a file's seals all come before its file-end), else an unsealed file. At the end of the
 * read: an unsealed tail, within the bound the last seal allows, else its successors were removed; and none may
 * follow a seal that closed their file ({@code close}; {@code rotate} or {@code moved} with nothing after them).
 * Stateless.
 */
final class UnsealedTail {
  private UnsealedTail() {
  }

  /**
   * At {@code r}, the file-end of the file being read where its records end: whether the check goes on (false:
   * a change was found).
   */
  static boolean atFileEnd(SourceFindings found, StreamRecord r, RecordContiguity records, SealChain seals) {
    PendingRange pending = records.pending;
    if (!pending.isEmpty()) {
      if (seals.lastSeal != null) {
        found.tamper(r, records.file, pending.start, "seals removed: " + pending.records + " record(s) at the end "
            + "of the file (bytes " + pending.start + "-" + records.next + ") have no seal, though a file's seals "
            + "all come before its file-end");
        return false;
      }
      found.report(new Finding(Finding.Kind.UNSEALED, found.source, records.file, pending.start, r.place(),
          "unsealed file: " + pending.records + " record(s) and no seal before its end"));
    }
    return true;
  }

  /** At the end of the read: the records after the last seal. */
  static void atEnd(SourceFindings found, RecordContiguity records, SealChain seals) {
    PendingRange pending = records.pending;
    if (found.tampering != null || pending.isEmpty()) {
      return;
    }
    long file = records.file;
    Seal lastSeal = seals.lastSeal;
    long n = pending.records;
    if (!seals.chainMayBreak && seals.closedFile(file, Seal.Kind.CLOSE, Seal.Kind.ROTATE, Seal.Kind.MOVED)
        && pending.start >= lastSeal.to) {
      found.tamper(null, file, pending.start, "records inserted: " + n + " record(s) after seal " + lastSeal.number
          + " (bytes " + pending.start + "-" + pending.end + "), which " + (lastSeal.kind == Seal.Kind.CLOSE
          ? "closed the file (close): nothing is written there until a start's seal, and none came"
          : "ended the file for its rotation (" + lastSeal.kind.text() + "), and no seal or file-end came after "
          + "them: a rotated file ends at its last seal (had the rotation failed, the file would go on, and its "
          + "next seal would cover them)"));
      return;
    }
    if (lastSeal != null && pending.startKnown && lastSeal.version >= 2) {
      long allowedEnd = n <= lastSeal.tailRecords ? Long.MAX_VALUE
          : pending.endOfRecord(lastSeal.tailRecords) + lastSeal.tailBytes;
      if (allowedEnd >= 0 && pending.end > allowedEnd) {
        found.tamper(null, file, pending.start, "seals removed: " + n + " record(s) after seal " + lastSeal.number
            + " (bytes " + pending.start + "-" + pending.end + "), more than the source leaves unsealed ("
            + lastSeal.tailRecords + " records, then " + lastSeal.tailBytes + " bytes): the seals that covered "
            + "them are missing");
        return;
      }
    }
    found.report(new Finding(Finding.Kind.UNSEALED, found.source, file, pending.start, null, (lastSeal == null
        ? "no seal: " + n + " record(s) with no seal after them" : "unsealed tail: " + n + " record(s) after the "
        + "last seal")));
  }
}
