package io.nnaudit.kafka.verify;

import java.util.HashMap;
import java.util.Map;

import io.nnaudit.seal.Seal;
import io.nnaudit.seal.SealKey;

/**
 * The seals of one source, checked as they come, as {@code nnaudit verify} checks a trail's: each signed by a
 * given key ({@link SealSignature}), chained to the seal before it, continuing the file's seals, saying what a
 * start's seal says of the records it covers ({@link StartOfRunSeal}), and hashing as it says over the records of
 * its range that {@link RecordContiguity} holds (their count always, their bytes unless a cut record is among
 * them or they were too many to hold). A first seal read mid-chain, or a chain that resumes after an announced
 * gap, is said, not counted as a change. A seal read before (a restart sends its file's seals again) is dropped,
 * and so is one sent again from before the read's start, once its signature is checked.
 */
final class SealChain {
  private final SourceFindings found;
  private final RecordContiguity records;
  private final PendingRange pending;
  private final Map<String, SealKey> keys;
  private final boolean acceptLate;
  /** Seal identities (file, offset, hash) and seal hashes seen: a restart sends the seals of its file again. */
  private final RecentMap<String, Boolean> sealIds;
  private final RecentMap<String, Boolean> sealHashes;
  /**
   * The identity of each chain's first seal read, by trail (a few: one a chain): a restart sends its file's seals
   * again, the first seal of the chain among them, however many seals ago it was read.
   */
  private final Map<String, String> firstSealIds = new HashMap<>();
  /** A gap came since the last seal: the next seal may chain to seals that went with the gap. */
  boolean chainMayBreak;
  Seal lastSeal;
  /** The stream's file the last seal is of. */
  private long lastSealFile = -1;

  /** {@code remembered}: how many of the last seals' identities and hashes are kept. */
  SealChain(SourceFindings found, RecordContiguity records, Map<String, SealKey> keys, boolean acceptLate,
      int remembered) {
    this.sealIds = new RecentMap<>(remembered);
    this.sealHashes = new RecentMap<>(remembered);
    this.found = found;
    this.records = records;
    this.pending = records.pending;
    this.keys = keys;
    this.acceptLate = acceptLate;
  }

  /** A gap was announced: the next seal may chain to seals that went with it. */
  void gapAnnounced() {
    chainMayBreak = true;
  }

  /** A seal record. */
  void seal(StreamRecord r) {
    Seal s;
    try {
      s = Seal.parse(r.text());
    } catch (IllegalArgumentException e) {
      found.tamper(r, r.file, r.offset, "altered seal: " + e.getMessage());
      return;
    }
    String hash = s.hash(); // of the line, which is the value byte for byte (it parsed)
    String id = r.file + ":" + r.offset + ":" + hash;
    if (sealIds.put(id, Boolean.TRUE) != null || id.equals(firstSealIds.get(s.trail))) {
      found.duplicates++;
      return;
    }
    records.sealAt(r, s);
    if (r.offset != s.to) {
      found.tamper(r, r.file, r.offset, "altered seal: the record says it seals up to byte " + r.offset + ", seal "
          + s.number + " up to byte " + s.to);
      return;
    }
    records.sealedUpTo(r.file, s.to);
    if (sentAgain(r, s, hash)) {
      String unsigned = SealSignature.problem(s, keys);
      if (unsigned != null) {
        found.tamper(r, r.file, r.offset, unsigned);
      } else {
        found.duplicates++;
      }
      return;
    }
    if (r.file != records.file || s.to > records.next) {
      found.tamper(r, r.file, r.offset, "seal " + s.number + " (bytes " + s.from + "-" + s.to + " of file " + r.file
          + ") is not after the record its range ends with: " + (r.file != records.file ? "the stream is at file "
          + records.file : "the file's records here end at byte " + records.next) + " (records removed, or the seal "
          + "moved)");
      return;
    }
    String unsigned = SealSignature.problem(s, keys);
    if (unsigned != null) {
      found.tamper(r, r.file, r.offset, unsigned);
      return;
    }
    boolean again = sealHashes.containsKey(hash);
    if (again && !chainMayBreak) {
      found.tamper(r, r.file, r.offset, "seal " + s.number + ", read before, is here again under file " + r.file
          + " with no gap announced: records and seals replayed");
      return;
    }
    boolean gapBefore = chainMayBreak;
    boolean afterHead = found.headRecords > 0; // the head's seal was checked before this one
    if (!again && !chains(r, s)) {
      return;
    }
    if (!continues(r, s, gapBefore) || !kind(r, s) || !resumedFirst(r, s, gapBefore) || !range(r, s)) {
      return;
    }
    records.sealChecked(s.to);
    found.sealedAfterHead |= afterHead && !again;
    if (Seal.GENESIS.equals(s.prev)) {
      firstSealIds.putIfAbsent(s.trail, id);
    }
    if (!again) {
      lastSeal = s;
      lastSealFile = r.file;
      sealHashes.put(hash, Boolean.TRUE);
      found.anchor = hash;
      found.anchorMillis = s.timeMillis;
      found.seals++;
      found.keyIds.add(s.keyId);
      found.trails.add(s.trail);
    }
  }

  /**
   * Whether {@code s}, at {@code r}, is a copy of a seal that covers nothing left to check, to be dropped once
   * its signature is checked. A restart sends again every seal of the file it resumes in, more of them than
   * {@link #sealIds} remembers in a file of many seals, and a resend may begin before the read's start:
   * <ul>
   * <li>sent again from before the read's start: its range ends at or before the first record read, and it is
   * not the next seal of the chain read (of a file before the one the read began in, when no seal was read
   * yet);</li>
   * <li>of the file being read, the last seal read or one numbered before it in the same chain and file, and
   * ending where the file's checked seals already reach;</li>
   * <li>of a file the stream has ended already, the last seal read or one numbered before it in the same chain: a
   * restart from a checkpoint in a rotated file sends that file's seals again, then its end, then the next
   * file's records.</li>
   * </ul>
   */
  private boolean sentAgain(StreamRecord r, Seal s, String hash) {
    boolean beforeRead = records.sealsNothingRead(r.file, r.offset);
    if (lastSeal == null) {
      return beforeRead && r.file < records.file;
    }
    if (beforeRead && !s.prev.equals(lastSeal.hash()) && !sealHashes.containsKey(hash) && earlierInItsTrail(s)) {
      return true;
    }
    if (r.file < records.file) { // a file ended already: its seals all came before its end
      return s.trail.equals(lastSeal.trail) && (s.number < lastSeal.number || hash.equals(lastSeal.hash()));
    }
    return r.file == records.file && r.file == lastSealFile && records.fileSealed && s.trail.equals(lastSeal.trail)
        && s.file == lastSeal.file && (s.number < lastSeal.number || hash.equals(lastSeal.hash()))
        && s.to <= records.fileSealedTo;
  }

  /**
   * Whether {@code s} can be a copy of a seal from before the last one read: of another trail, or numbered
   * before it in the same trail. A seal of the same trail numbered after the last one read, yet not chaining to
   * it, is a fork or a seal between them removed, whatever its place.
   */
  private boolean earlierInItsTrail(Seal s) {
    return !s.trail.equals(lastSeal.trail) || s.number < lastSeal.number;
  }

  /** Whether {@code s} follows the chain read so far (a first seal, or a break a gap explains, are said). */
  private boolean chains(StreamRecord r, Seal s) {
    if (lastSeal == null) {
      if (!Seal.GENESIS.equals(s.prev)) {
        found.midChain = "starts mid-chain: its first seal read, seal " + s.number + " (file " + r.file + " bytes "
            + s.from + "-" + s.to + "), chains to seal " + s.prev + ", which is not in the topic (the topic's "
            + "start was deleted, or the trail was sealed before shipping began)";
      }
    } else if (!s.prev.equals(lastSeal.hash())) {
      if (Seal.GENESIS.equals(s.prev) && found.trails.contains(s.trail) && !chainMayBreak) {
        found.tamper(r, r.file, s.from, "seal " + s.number + " begins the chain of trail " + s.trail + " again, "
            + "after seal " + lastSeal.number + " of trail " + lastSeal.trail + ": every new chain has a trail of its "
            + "own, so this is a chain's start replayed");
        return false;
      } else if (Seal.GENESIS.equals(s.prev)) {
        found.report(new Finding(Finding.Kind.NOT_VERIFIED, found.source, r.file, s.from, r.place(), "a new seal chain "
            + "(trail " + s.trail + ") begins at seal " + s.number + " (" + s.kind.text() + ") after seal "
            + lastSeal.number + " of trail " + lastSeal.trail + ": the source lost its digest or sealing was "
            + "turned off and on; the break cannot be checked from the stream (verify the host's files)"));
      } else if (chainMayBreak) {
        found.report(new Finding(Finding.Kind.NOTE, found.source, r.file, s.from, r.place(), "the chain resumes at "
            + "seal " + s.number + " after seal " + lastSeal.number + " read before the gap: "
            + Math.max(0, s.number - lastSeal.number - 1) + " seal(s) went with the records lost"));
      } else {
        found.tamper(r, r.file, s.from, "altered seal: seal " + s.number + " does not follow seal " + lastSeal.number
            + " read before it (its prev is not that seal's hash): a seal between them was removed, or one was "
            + "replaced");
        return false;
      }
    }
    chainMayBreak = false;
    return true;
  }

  /**
   * Whether {@code s}'s range starts where the file's sealed bytes end; after a gap ({@code gapBefore}: a seal the
   * broker refused, announced), it may start later, the records before it then not verified.
   */
  private boolean continues(StreamRecord r, Seal s, boolean gapBefore) {
    if (s.from == pending.start) {
      return true;
    }
    if (gapBefore && s.from > pending.start && pending.isBoundary(s.from)) {
      found.report(new Finding(Finding.Kind.NOT_VERIFIED, found.source, r.file, pending.start, r.place(),
          pending.recordsThrough(s.from) + " record(s) (bytes " + pending.start + "-" + s.from + "), whose seal "
          + "went with the gap before seal " + s.number + ": not verified"));
      pending.dropThrough(s.from);
      return true;
    }
    if (records.fileSealed && s.from != records.fileSealedTo) {
      found.tamper(r, r.file, s.from, "altered seal: seal " + s.number + " starts at byte " + s.from + ", the file's "
          + "seal before it ended at byte " + records.fileSealedTo + " (a seal removed, or one replaced)");
      return false;
    }
    if (pending.startKnown || s.from > pending.start) {
      found.tamper(r, r.file, Math.min(s.from, pending.start), s.from > pending.start ? "seals removed: the records "
          + "from byte " + pending.start + " to " + s.from + " have no seal (seal " + s.number + " starts at byte "
          + s.from + ")" : "altered seal: seal " + s.number + " starts at byte " + s.from + ", the bytes before "
          + pending.start + " were sealed already");
      return false;
    }
    return true; // the start of the range is before the stream's start or a gap: not held, said by range()
  }

  /** What a start's seal says about the records it covers (as {@code nnaudit verify} reads it). */
  private boolean kind(StreamRecord r, Seal s) {
    String change = StartOfRunSeal.change(lastSeal, s, records.fileSealed);
    if (change != null) {
      found.tamper(r, r.file, s.from, change);
      return false;
    }
    if (StartOfRunSeal.sealedLate(s)) {
      found.report(new Finding(acceptLate ? Finding.Kind.NOTE : Finding.Kind.SEALED_LATE, found.source, r.file, s.from,
          r.place(), (acceptLate ? "(accepted) " : "") + s.records + " record(s) sealed at the start at "
          + Seal.formatTime(s.timeMillis) + " (seal " + s.number + ", " + s.kind.text() + "), not by the run that "
          + "wrote them"));
    }
    return true;
  }

  /**
   * Whether a start's {@code resume} seal after a {@code close} came before the records after the close, as a
   * genuine start's does: it is written before any record of its run, and the shipper reads the digest after the
   * file, so it sends the seal before the records (a {@code found} or other seal there is {@link #kind}'s).
   */
  private boolean resumedFirst(StreamRecord r, Seal s, boolean gapBefore) {
    if (!gapBefore && closedFile(r.file, Seal.Kind.CLOSE) && s.kind == Seal.Kind.RESUME && pending.end > s.to) {
      found.tamper(r, r.file, lastSeal.to, "records inserted: " + pending.recordsAfter(s.to) + " record(s) after seal "
          + lastSeal.number + ", which closed the file (close), came before seal " + s.number + " (resume), "
          + "which a start writes before any record of its run");
      return false;
    }
    return true;
  }

  /** Whether the last seal is of the stream's file {@code f} and of one of {@code kinds}. */
  boolean closedFile(long f, Seal.Kind... kinds) {
    if (lastSeal == null || lastSealFile != f) {
      return false;
    }
    for (Seal.Kind k : kinds) {
      if (lastSeal.kind == k) {
        return true;
      }
    }
    return false;
  }

  /**
   * Whether the records of {@code s}'s range are the ones it sealed (or cannot be held, which is said). Where the
   * range starts where the records held do, their count and ends are always checked; their bytes are hashed
   * unless they are not held (a cut record among them, too many bytes): then that one range is reported not
   * hashed, and the next starts afresh.
   */
  private boolean range(StreamRecord r, Seal s) {
    if (pending.countable(s.from)) {
      if (!pending.isBoundary(s.to)) {
        found.tamper(r, r.file, s.from, "modified bytes: seal " + s.number + " ends at byte " + s.to + ", inside a "
            + "record here");
        return false;
      }
      long n = pending.recordsThrough(s.to);
      String why = !pending.hashable() ? pending.unhashable : pending.cutThrough(s.to) ? PendingRange.CUT : null;
      if (n != s.records || why == null && !pending.sha256Through(s.to).equals(s.sha256)) {
        long first = pending.kafkaOffsetAfter(s.from);
        String kind = n < s.records ? "records deleted" : n > s.records ? "records inserted" : "modified bytes";
        found.tamper(r, r.file, s.from, kind + ": the range sealed by seal " + s.number + " (bytes " + s.from + "-"
            + s.to + "): " + s.records + " record(s) were sealed, " + n + " are here" + (n == s.records
            ? ", and their bytes hash differently" : "") + " (its first record at partition " + r.partition
            + ", offset " + first + ")");
        return false;
      }
      if (why == null) {
        found.verifiedRecords += n;
      } else {
        found.report(new Finding(Finding.Kind.NOT_VERIFIED, found.source, r.file, s.from, r.place(), n + " record(s) "
            + "up to byte " + s.to + ", sealed by seal " + s.number + " (bytes " + s.from + "-" + s.to + "), could not "
            + "be hashed (their count and ends were checked): " + why));
      }
    } else {
      long n = pending.recordsThrough(s.to);
      String why = pending.unhashable != null ? pending.unhashable : pending.unknownWhy;
      // What was sent before the read (or lost in a gap) cannot make the count larger; and a range that began
      // before the first record held and reaches past it has at least one record there, from its start to that
      // record's (a range that ends by then, an open seal's over no bytes among them, holds none read). Where the
      // records' ends were not kept (too many), n is every record held, later ones too: no count to hold it to.
      long most = s.to <= pending.start ? 0 : s.from < pending.start ? s.records - 1 : s.records;
      if (pending.endsKept() && n > most) {
        found.tamper(r, r.file, pending.start, "records inserted: " + n + " record(s) read before the end of seal "
            + s.number + " (bytes " + s.from + "-" + s.to + "), which sealed " + s.records + (most < s.records
            ? ", at least one of them before byte " + pending.start + ", where the records read begin" : ""));
        return false;
      }
      if (why == null) {
        found.headRecords += n; // the stream starts mid-chain: the head up to the first seal's end, not a change
        unread(r, s, s.records - n); // the rest of its range, sent before the read's start
      } else {
        found.report(new Finding(Finding.Kind.NOT_VERIFIED, found.source, r.file, Math.max(s.from, pending.start),
            r.place(), n + " record(s) up to byte " + s.to + ", sealed by seal " + s.number + " (bytes " + s.from
            + "-" + s.to + "), could not be hashed: " + why));
      }
    }
    pending.dropThrough(s.to);
    return true;
  }

  /**
   * {@code n} more records that a seal read at the stream's head sealed, not read: sent before the read's start,
   * in offsets of the partition below its first read. Whether the partition can have held them all, with those
   * of the other sources in it, is {@link StreamCheck}'s to judge at the end.
   */
  private void unread(StreamRecord r, Seal s, long n) {
    if (n > 0 && found.unreadRecords == 0) {
      found.unreadAt = new Finding(Finding.Kind.NOT_VERIFIED, found.source, r.file, s.from, r.place(), "");
    }
    found.unreadRecords += n;
  }

}
