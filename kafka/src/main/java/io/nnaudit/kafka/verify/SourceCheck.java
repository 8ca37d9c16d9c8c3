package io.nnaudit.kafka.verify;

import java.util.Map;

import io.nnaudit.kafka.ShipHeaders;
import io.nnaudit.seal.SealKey;

/**
 * Checks the records of one source (one NameNode's trail) as they come from the topic, in the order of its
 * partition, holding bounded state only; what it found is in {@link #found}.
 *
 * <p>What it checks, in the terms of docs/kafka.md: each record must be one a shipper wrote, under its source's
 * key, in its source's partition; a record whose identity was seen before is dropped, and must be the same
 * record, and what is left must be contiguous ({@link RecordContiguity}); every seal must be signed by a given
 * key, chain to the seal before it, continue the file's seals, and hash as it says over the records of its range
 * ({@link SealChain}); records that no seal covers are judged at a file's end and at the end of the read
 * ({@link UnsealedTail}). The first change found stops the source's check (as {@code nnaudit verify} stops a
 * trail's): what follows a change cannot be placed.
 *
 * <p>Where the stream starts mid-chain (retention deleted its start, or the trail was sealed before shipping
 * began), the first seal's {@code prev} cannot be checked and the records before its end cannot be hashed: that
 * is said, not counted as a change, provided the first seal's range reaches back to the first record read (a
 * seal missing after the stream's start is a change). Everything after it must verify. Records before the first
 * record read can only be copies a resend began before the read's start: they must run, each where the one
 * before ended, to the first record read (a resend goes on to what it sent after), and are dropped uncompared
 * ({@link ResendBeforeStart}).
 */
final class SourceCheck {
  final SourceFindings found;
  private final RecordContiguity records;
  private final SealChain seals;
  /** The partition of the source's records (-1 before the first). */
  int partition = -1;

  /** Seals whose identity and hash each source remembers: the last ten thousand. */
  static final int SEALS_REMEMBERED = 10_000;

  SourceCheck(String source, Map<String, SealKey> keys, boolean acceptLate, int maxPendingBytes, int window) {
    this(source, keys, acceptLate, maxPendingBytes, window, SEALS_REMEMBERED);
  }

  SourceCheck(String source, Map<String, SealKey> keys, boolean acceptLate, int maxPendingBytes, int window,
      int sealsRemembered) {
    this.found = new SourceFindings(source);
    this.records = new RecordContiguity(found, maxPendingBytes, window);
    this.seals = new SealChain(found, records, keys, acceptLate, sealsRemembered);
  }

  void accept(StreamRecord r) {
    if (found.tampering != null) {
      found.skipped++;
      return;
    }
    if (r.malformed != null) {
      found.tamper(r, r.file, r.offset, "a record no shipper wrote: " + r.malformed);
      return;
    }
    if (r.key == null || !r.key.equals(r.source)) {
      found.tamper(r, r.file, r.offset, "its key is " + (r.key == null ? "missing" : "'" + r.key + "'") + " and "
          + "its " + ShipHeaders.SOURCE + " header '" + r.source + "': the shipper gives both the same (a record of "
          + "one source replayed under another?)");
      return;
    }
    if (partition < 0) {
      partition = r.partition;
    } else if (r.partition != partition) {
      found.tamper(r, r.file, r.offset, "a record of the source in partition " + r.partition + ", its records "
          + "before in partition " + partition + ": a source's records all go to its key's partition");
      return;
    }
    switch (r.type) {
      case ShipHeaders.RECORD:
      case ShipHeaders.RECORD_CUT:
        records.line(r);
        break;
      case ShipHeaders.FILE_END:
        if (records.fileEnd(r) && UnsealedTail.atFileEnd(found, r, records, seals)) {
          records.nextFile();
        }
        break;
      case ShipHeaders.SEAL:
        seals.seal(r);
        break;
      case ShipHeaders.GAP:
        if (records.gap(r)) {
          seals.gapAnnounced();
        }
        break;
      default:
        found.report(new Finding(Finding.Kind.NOT_VERIFIED, found.source, r.file, r.offset, r.place(), "a record of "
            + "type '" + r.type + "', which this version does not know"));
    }
  }

  /** At the end of the read: a resend run that never reached the records read, and the records after the last seal. */
  void finish() {
    records.finish();
    UnsealedTail.atEnd(found, records, seals);
    if (found.tampering == null && found.headRecords > 0 && !found.sealedAfterHead) {
      // Only a later seal chained to the head's shows that seal in its place: a copy of an older seal, put after
      // a source gone quiet, would vouch for whatever records were put before it.
      found.report(new Finding(Finding.Kind.NOT_VERIFIED, found.source, -1, -1, null, "the " + found.headRecords
          + " record(s) read before the end of the first seal over them, whose range began before the read, are "
          + "not vouched for: no seal chained after that one was read (read from an earlier time)"));
    }
  }
}
