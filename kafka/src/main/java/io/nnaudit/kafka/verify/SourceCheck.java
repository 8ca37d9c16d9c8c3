package io.nnaudit.kafka.verify;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import io.nnaudit.kafka.ShipHeaders;
import io.nnaudit.seal.Seal;
import io.nnaudit.seal.SealKey;

/**
 * Checks the records of one source (one NameNode's trail) as they come from the topic, in the order of its
 * partition, holding bounded state only: where the next record must start, the bytes since the last seal
 * ({@link PendingRange}), the last seal of the chain, and a bounded memory of recent identities.
 *
 * <p>What it checks, in the terms of docs/kafka.md: a record whose identity was seen before is dropped, and
 * must be the same record ({@link RecentRecords}); what is left must be contiguous (each record where the last
 * ended, a file-end at the file's length, the next file from byte 0; only a gap record may announce a hole);
 * every seal must be signed by a given key, chain to the seal before it, continue the file's seals, and hash as
 * it says over the records of its range (their count always, their bytes unless a cut record is among them);
 * records after the last seal are an unsealed tail, within the bound the last seal allows, else its successors
 * were removed, and none may follow a seal that closed their file ({@code close}; {@code rotate} or
 * {@code moved} with nothing after them), as {@code nnaudit verify} reads them. The first change found stops
 * the source's check (as {@code nnaudit verify} stops a trail's): what follows a change cannot be placed.
 *
 * <p>Where the stream starts mid-chain (retention deleted its start, or the trail was sealed before shipping
 * began), the first seal's {@code prev} cannot be checked and the records before its end cannot be hashed: that
 * is said, not counted as a change, provided the first seal's range reaches back to the first record read (a
 * seal missing after the stream's start is a change). Everything after it must verify. Records before the first
 * record read can only be copies a resend began before the read's start: they must run, each where the one
 * before ended, to the first record read (a resend goes on to what it sent after), and are dropped uncompared.
 */
final class SourceCheck {
  final String source;
  private final Map<String, SealKey> keys;
  private final boolean acceptLate;
  private final PendingRange pending;
  private final RecentRecords recent;
  /** Seal identities (file, offset, hash) and seal hashes seen: a restart sends the seals of its file again. */
  private final RecentMap<String, Boolean> sealIds = new RecentMap<>(10_000);
  private final RecentMap<String, Boolean> sealHashes = new RecentMap<>(10_000);
  private final RecentMap<String, Boolean> gapIds = new RecentMap<>(10_000);
  /** The lengths of the last files of the source that ended (by their file-end): what a copy is compared to. */
  private final RecentMap<Long, Long> fileEnds = new RecentMap<>(10_000);

  private int partition = -1;
  private boolean started;
  /** The stream's file being read, and the byte its next record must start at. */
  private long file;
  private long next;
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
  /** A gap came since the last seal: the next seal may chain to seals that went with the gap. */
  private boolean chainMayBreak;
  private Seal lastSeal;
  /** The stream's file the last seal is of. */
  private long lastSealFile = -1;
  /**
   * A run of records before the first record read, never read here, not yet shown to be a resend (null: none):
   * a resend goes on from its checkpoint, record after record, to the records read; a run that does not is a
   * change. Where it is, and where its next record must start.
   */
  private StreamRecord runFirst;
  private long runFile;
  private long runNext;
  private long runRecords;
  /** Whether a seal of the stream's current file was read (its next seal must continue it), and where it ended. */
  private boolean fileSealed;
  private long fileSealedTo;

  /** What was found, in order; past {@link #MAX_FINDINGS} only counted, so that memory stays bounded. */
  final List<Finding> findings = new ArrayList<>();
  static final int MAX_FINDINGS = 1000;
  long findingsLeftOut;
  /** The worst exit code of every finding, those left out included. */
  private int findingsCode;
  Finding tampering;
  long records;
  long verifiedRecords;
  long seals;
  long duplicates;
  long notCompared;
  /** Records before the first one read, dropped as copies a resend sent again: none was compared. */
  long resentBeforeStart;
  long gaps;
  long files;
  long headRecords;
  long skipped;
  long firstMillis = -1;
  long lastMillis = -1;
  String anchor;
  final Set<String> keyIds = new LinkedHashSet<>();
  final Set<String> trails = new LinkedHashSet<>();
  String midChain;

  SourceCheck(String source, Map<String, SealKey> keys, boolean acceptLate, int maxPendingBytes, int window) {
    this.source = source;
    this.keys = keys;
    this.acceptLate = acceptLate;
    this.pending = new PendingRange(maxPendingBytes);
    this.recent = new RecentRecords(window);
  }

  void accept(StreamRecord r) {
    if (tampering != null) {
      skipped++;
      return;
    }
    if (r.malformed != null) {
      tamper(r, r.file, r.offset, "a record no shipper wrote: " + r.malformed);
      return;
    }
    if (r.key == null || !r.key.equals(r.source)) {
      tamper(r, r.file, r.offset, "its key is " + (r.key == null ? "missing" : "'" + r.key + "'") + " and its "
          + ShipHeaders.SOURCE + " header '" + r.source + "': the shipper gives both the same (a record of one "
          + "source replayed under another?)");
      return;
    }
    if (partition < 0) {
      partition = r.partition;
    } else if (r.partition != partition) {
      tamper(r, r.file, r.offset, "a record of the source in partition " + r.partition + ", its records before in "
          + "partition " + partition + ": a source's records all go to its key's partition");
      return;
    }
    switch (r.type) {
      case ShipHeaders.RECORD:
      case ShipHeaders.RECORD_CUT:
        line(r);
        break;
      case ShipHeaders.FILE_END:
        fileEnd(r);
        break;
      case ShipHeaders.SEAL:
        seal(r);
        break;
      case ShipHeaders.GAP:
        gap(r);
        break;
      default:
        report(new Finding(Finding.Kind.NOT_VERIFIED, source, r.file, r.offset, r.place(), "a record of type '"
            + r.type + "', which this version does not know"));
    }
  }

  /**
   * A place as one number, in the stream's order: {@link StreamRecord} refuses files from 2^23 and bytes from
   * 2^40 (none the shipper gives), so it neither overflows nor names two places.
   */
  private static long place(long file, long offset) {
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
        report(new Finding(Finding.Kind.NOT_VERIFIED, source, file, pending.start, null, pending.records
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

  private void line(StreamRecord r) {
    long at = place(r.file, r.offset);
    if (runFirst != null && (r.file != runFile || r.offset != runNext)) {
      runNotResent(r);
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
      recent.add(at, r.value);
      pending.add(r.value, ShipHeaders.RECORD_CUT.equals(r.type), r.end(), r.kafkaOffset);
      next = r.end();
      records++;
      if (firstMillis < 0) {
        firstMillis = r.timestamp;
      }
      lastMillis = r.timestamp;
    } else if (at < place(file, next)) {
      copy(r, at);
    } else if (r.file == file) {
      tamper(r, file, next, "records deleted: the file's next record should start at byte " + next + ", the next "
          + "one here starts at byte " + r.offset + " (" + (r.offset - next) + " bytes of records are missing, or "
          + "records were moved)");
    } else {
      tamper(r, file, next, "file " + file + " does not end (no file-end after byte " + next + ") before this "
          + "record of file " + r.file + ": records or the file's end are missing, or records were moved");
    }
  }

  /** A record at a place already read: a copy, which must be the same record. */
  private void copy(StreamRecord r, long at) {
    switch (recent.lookup(at, r.value)) {
      case SAME:
        duplicates++;
        break;
      case DIFFERENT:
        tamper(r, r.file, r.offset, "a record sent again with another value: the copy differs from the record "
            + "read first at this place");
        break;
      case NO_RECORD_THERE:
        tamper(r, r.file, r.offset, "records inserted: no record of the file starts at byte " + r.offset
            + " (or records were moved)");
        break;
      default:
        if (at < firstPlace) {
          resentBeforeStart(r);
        } else {
          notCompared++;
        }
    }
  }

  /**
   * A record before the first one read, never read here: a copy that a resend began before the read's start
   * (the read began inside a resend), which cannot be compared, if it goes on, record after record, to where the
   * read began; else a record put there, checked when the run breaks ({@link #runNotResent}).
   */
  private void resentBeforeStart(StreamRecord r) {
    if (runFirst == null) {
      runFirst = r;
      runFile = r.file;
      runRecords = 0;
    }
    runNext = r.end();
    runRecords++;
    runReached();
  }

  /** Whether the run before the read's start reached the first place read (or a file end read); ends it then. */
  private void runReached() {
    Long end = fileEnds.get(runFile);
    if (place(runFile, runNext) == firstPlace || end != null && end == runNext) {
      resentBeforeStart += runRecords; // copies sent again from before the read's start: never read here
      runFirst = null;
    }
  }

  /** {@code r} (null: the end of the read) comes while a run before the read's start did not reach it. */
  private void runNotResent(StreamRecord r) {
    StreamRecord f = runFirst;
    runFirst = null;
    tamper(r == null ? f : r, f.file, f.offset, "records inserted: " + runRecords + " record(s) from byte "
        + f.offset + " of file " + f.file + " (" + f.place() + "), before the first record read, stop at byte "
        + runNext + ", short of the records read: a resend goes on from where it begins to what was sent after "
        + "it, so these are no copies");
  }

  private void fileEnd(StreamRecord r) {
    if (runFirst != null) {
      if (r.file == runFile && r.offset == runNext) { // a resend goes on into the next file
        resentBeforeStart++;
        fileEnds.put(runFile, runNext);
        runFile++;
        runNext = 0;
        runReached();
      } else {
        runNotResent(r);
      }
      return;
    }
    if (!started) {
      begin(r.file + 1, 0);
      fileEnds.put(r.file, r.offset);
      return;
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
        duplicates++;
      } else if (end != null || r.file == file) {
        tamper(r, r.file, r.offset, "a file-end at byte " + r.offset + " of a file whose records "
            + (end != null ? "ended at byte " + end : "go on to byte " + next));
      } else {
        notCompared++;
      }
      return;
    }
    if (r.file != file) {
      tamper(r, file, next, "file " + file + " does not end (no file-end after byte " + next + ") before the end "
          + "of file " + r.file + ": records or the file's end are missing");
      return;
    }
    if (r.offset != next) {
      tamper(r, file, next, "records deleted: the file ends at byte " + r.offset + ", its records here at byte "
          + next);
      return;
    }
    if (!pending.isEmpty()) {
      if (lastSeal != null) {
        tamper(r, file, pending.start, "seals removed: " + pending.records + " record(s) at the end of the file "
            + "(bytes " + pending.start + "-" + next + ") have no seal, though a file's seals all come before "
            + "its file-end");
        return;
      }
      report(new Finding(Finding.Kind.UNSEALED, source, file, pending.start, r.place(), "unsealed file: "
          + pending.records + " record(s) and no seal before its end"));
    }
    fileEnds.put(file, next);
    files++;
    file++;
    next = 0;
    fileSealed = false;
    pending.reset(0, true);
  }

  private void gap(StreamRecord r) {
    if (gapIds.put(r.file + ":" + r.offset + ":" + r.text(), Boolean.TRUE) != null) {
      duplicates++;
      return;
    }
    gaps++;
    report(new Finding(Finding.Kind.GAP, source, r.file, r.offset, r.place(), "records lost before they "
        + "were shipped, as the source announced: " + r.text()));
    afterGap = true; // a hole it announced shows when the next record does not follow (resync)
    chainMayBreak = true;
  }

  private void seal(StreamRecord r) {
    Seal s;
    try {
      s = Seal.parse(r.text());
    } catch (IllegalArgumentException e) {
      tamper(r, r.file, r.offset, "altered seal: " + e.getMessage());
      return;
    }
    String hash = s.hash(); // of the line, which is the value byte for byte (it parsed)
    if (sealIds.put(r.file + ":" + r.offset + ":" + hash, Boolean.TRUE) != null) {
      duplicates++;
      return;
    }
    if (!started) {
      begin(r.file, r.offset);
      pending.reset(r.offset, false);
      // A chain's first seal over no bytes is the seal a start writes before its first record: nothing of its
      // chain was sent before it, so its file's next records must follow from its end. Any other seal may come
      // after records that follow its range.
      startedAtSeal = !(Seal.GENESIS.equals(s.prev) && s.from == s.to);
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
    if (r.offset != s.to) {
      tamper(r, r.file, r.offset, "altered seal: the record says it seals up to byte " + r.offset + ", seal "
          + s.number + " up to byte " + s.to);
      return;
    }
    if (startedAtSeal && r.file == file && s.to > next) { // its records were sent before the seal read first
      firstPlace = place(r.file, s.to);
      next = s.to;
      pending.reset(s.to, false);
    }
    if (lastSeal != null && place(r.file, r.offset) < firstPlace && !s.prev.equals(lastSeal.hash())
        && !sealHashes.containsKey(hash)) { // a seal sent again from before the read's start: not in the chain read
      String unsigned = SealSignature.problem(s, keys);
      if (unsigned != null) {
        tamper(r, r.file, r.offset, unsigned);
      } else {
        duplicates++;
      }
      return;
    }
    if (r.file != file || s.to > next) {
      tamper(r, r.file, r.offset, "seal " + s.number + " (bytes " + s.from + "-" + s.to + " of file " + r.file
          + ") is not after the record its range ends with: " + (r.file != file ? "the stream is at file " + file
          : "the file's records here end at byte " + next) + " (records removed, or the seal moved)");
      return;
    }
    String unsigned = SealSignature.problem(s, keys);
    if (unsigned != null) {
      tamper(r, r.file, r.offset, unsigned);
      return;
    }
    boolean again = sealHashes.containsKey(hash);
    if (again && !chainMayBreak) {
      tamper(r, r.file, r.offset, "seal " + s.number + ", read before, is here again under file " + r.file
          + " with no gap announced: records and seals replayed");
      return;
    }
    boolean gapBefore = chainMayBreak;
    if (!again && !chains(r, s)) {
      return;
    }
    if (!continues(r, s, gapBefore) || !kind(r, s) || !resumedFirst(r, s, gapBefore) || !range(r, s)) {
      return;
    }
    fileSealed = true;
    fileSealedTo = s.to;
    if (!again) {
      lastSeal = s;
      lastSealFile = r.file;
      sealHashes.put(hash, Boolean.TRUE);
      anchor = hash;
      seals++;
      keyIds.add(s.keyId);
      trails.add(s.trail);
    }
  }

  /** Whether {@code s} follows the chain read so far (a first seal, or a break a gap explains, are said). */
  private boolean chains(StreamRecord r, Seal s) {
    if (lastSeal == null) {
      if (!Seal.GENESIS.equals(s.prev)) {
        midChain = "starts mid-chain: its first seal read, seal " + s.number + " (file " + r.file + " bytes "
            + s.from + "-" + s.to + "), chains to seal " + s.prev + ", which is not in the topic (the topic's "
            + "start was deleted, or the trail was sealed before shipping began)";
      }
    } else if (!s.prev.equals(lastSeal.hash())) {
      if (Seal.GENESIS.equals(s.prev)) {
        report(new Finding(Finding.Kind.NOT_VERIFIED, source, r.file, s.from, r.place(), "a new seal chain "
            + "(trail " + s.trail + ") begins at seal " + s.number + " (" + s.kind.text() + ") after seal "
            + lastSeal.number + " of trail " + lastSeal.trail + ": the source lost its digest or sealing was "
            + "turned off and on; the break cannot be checked from the stream (verify the host's files)"));
      } else if (chainMayBreak) {
        report(new Finding(Finding.Kind.NOTE, source, r.file, s.from, r.place(), "the chain resumes at seal "
            + s.number + " after seal " + lastSeal.number + " read before the gap: "
            + Math.max(0, s.number - lastSeal.number - 1) + " seal(s) went with the records lost"));
      } else {
        tamper(r, r.file, s.from, "altered seal: seal " + s.number + " does not follow seal " + lastSeal.number
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
      report(new Finding(Finding.Kind.NOT_VERIFIED, source, r.file, pending.start, r.place(),
          pending.recordsThrough(s.from) + " record(s) (bytes " + pending.start + "-" + s.from + "), whose seal "
          + "went with the gap before seal " + s.number + ": not verified"));
      pending.dropThrough(s.from);
      return true;
    }
    if (fileSealed && s.from != fileSealedTo) {
      tamper(r, r.file, s.from, "altered seal: seal " + s.number + " starts at byte " + s.from + ", the file's seal "
          + "before it ended at byte " + fileSealedTo + " (a seal removed, or one replaced)");
      return false;
    }
    if (pending.startKnown || s.from > pending.start) {
      tamper(r, r.file, Math.min(s.from, pending.start), s.from > pending.start ? "seals removed: the records "
          + "from byte " + pending.start + " to " + s.from + " have no seal (seal " + s.number + " starts at byte "
          + s.from + ")" : "altered seal: seal " + s.number + " starts at byte " + s.from + ", the bytes before "
          + pending.start + " were sealed already");
      return false;
    }
    return true; // the start of the range is before the stream's start or a gap: not held, said by range()
  }

  /** What a start's seal says about the records it covers (as {@code nnaudit verify} reads it). */
  private boolean kind(StreamRecord r, Seal s) {
    String change = StartOfRunSeal.change(lastSeal, s, fileSealed);
    if (change != null) {
      tamper(r, r.file, s.from, change);
      return false;
    }
    if (StartOfRunSeal.sealedLate(s)) {
      report(new Finding(acceptLate ? Finding.Kind.NOTE : Finding.Kind.SEALED_LATE, source, r.file, s.from,
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
      tamper(r, r.file, lastSeal.to, "records inserted: " + pending.recordsAfter(s.to) + " record(s) after seal "
          + lastSeal.number + ", which closed the file (close), came before seal " + s.number + " (resume), "
          + "which a start writes before any record of its run");
      return false;
    }
    return true;
  }

  /** Whether the last seal is of the stream's file {@code f} and of one of {@code kinds}. */
  private boolean closedFile(long f, Seal.Kind... kinds) {
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
        tamper(r, r.file, s.from, "modified bytes: seal " + s.number + " ends at byte " + s.to + ", inside a "
            + "record here");
        return false;
      }
      long n = pending.recordsThrough(s.to);
      String why = !pending.hashable() ? pending.unhashable : pending.cutThrough(s.to) ? PendingRange.CUT : null;
      if (n != s.records || why == null && !pending.sha256Through(s.to).equals(s.sha256)) {
        long first = pending.kafkaOffsetAfter(s.from);
        String kind = n < s.records ? "records deleted" : n > s.records ? "records inserted" : "modified bytes";
        tamper(r, r.file, s.from, kind + ": the range sealed by seal " + s.number + " (bytes " + s.from + "-"
            + s.to + "): " + s.records + " record(s) were sealed, " + n + " are here" + (n == s.records
            ? ", and their bytes hash differently" : "") + " (its first record at partition " + r.partition
            + ", offset " + first + ")");
        return false;
      }
      if (why == null) {
        verifiedRecords += n;
      } else {
        report(new Finding(Finding.Kind.NOT_VERIFIED, source, r.file, s.from, r.place(), n + " record(s) up to "
            + "byte " + s.to + ", sealed by seal " + s.number + " (bytes " + s.from + "-" + s.to + "), could not be "
            + "hashed (their count and ends were checked): " + why));
      }
    } else {
      long n = pending.recordsThrough(s.to);
      String why = pending.unhashable != null ? pending.unhashable : pending.unknownWhy;
      if (why == null) {
        headRecords += n; // the stream starts mid-chain: the head up to the first seal's end, not a change
      } else {
        report(new Finding(Finding.Kind.NOT_VERIFIED, source, r.file, Math.max(s.from, pending.start),
            r.place(), n + " record(s) up to byte " + s.to + ", sealed by seal " + s.number + " (bytes " + s.from
            + "-" + s.to + "), could not be hashed: " + why));
      }
    }
    pending.dropThrough(s.to);
    return true;
  }

  /** At the end of the read: the records after the last seal. */
  void finish() {
    if (tampering == null && runFirst != null) {
      runNotResent(null);
    }
    if (tampering != null || pending.isEmpty()) {
      return;
    }
    long n = pending.records;
    if (!chainMayBreak && closedFile(file, Seal.Kind.CLOSE, Seal.Kind.ROTATE, Seal.Kind.MOVED)
        && pending.start >= lastSeal.to) {
      tamper(null, file, pending.start, "records inserted: " + n + " record(s) after seal " + lastSeal.number
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
        tamper(null, file, pending.start, "seals removed: " + n + " record(s) after seal " + lastSeal.number
            + " (bytes " + pending.start + "-" + pending.end + "), more than the source leaves unsealed ("
            + lastSeal.tailRecords + " records, then " + lastSeal.tailBytes + " bytes): the seals that covered "
            + "them are missing");
        return;
      }
    }
    report(new Finding(Finding.Kind.UNSEALED, source, file, pending.start, null, (lastSeal == null
        ? "no seal: " + n + " record(s) with no seal after them" : "unsealed tail: " + n + " record(s) after the "
        + "last seal")));
  }

  private void report(Finding f) {
    findingsCode = Math.max(findingsCode, f.kind.exitCode);
    if (findings.size() < MAX_FINDINGS) {
      findings.add(f);
    } else {
      findingsLeftOut++;
    }
  }

  private void tamper(StreamRecord r, long f, long offset, String text) {
    tampering = new Finding(Finding.Kind.TAMPERED, source, f, offset, r == null ? null : r.place(), text);
  }

  /** The exit code this source's findings give, as {@code nnaudit verify}'s. */
  int exitCode() {
    if (tampering != null) {
      return 1;
    }
    int code = findingsCode;
    if (notCompared > 0 || resentBeforeStart > 0 || records == 0 && seals == 0) {
      code = Math.max(code, 2);
    }
    return code;
  }
}
