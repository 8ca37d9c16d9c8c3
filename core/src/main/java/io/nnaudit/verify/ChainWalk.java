package io.nnaudit.verify;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import io.nnaudit.seal.CrashTail;
import io.nnaudit.seal.DigestFile;
import io.nnaudit.seal.Seal;
import io.nnaudit.seal.SealKey;
import io.nnaudit.trail.TrailNames;

/**
 * Walks the seal chain of one trail across its files, oldest file first, seal by seal: each seal's signature and
 * place in the chain ({@link SealCheck}), the bytes of its range (a difference is named by
 * {@link ChangeClassifier}), what a start's seal says ({@link StartOfRun}). It stops at the first change. Bytes
 * after a file's last seal are unsealed, not a change, unless the seal before them closed the file (a close seal,
 * or a rotated file's last seal) or they exceed what a killed run can leave ({@link CrashTail}). Files without a
 * digest are unsealed history (before the first seal), files written while sealing was off (vouched for by the
 * next seal) or a change (a removed digest). Then: the oldest files the last seal says are kept, the digests set
 * aside at a start, the anchor. Not thread-safe: one walk of one trail, on the caller's thread.
 */
final class ChainWalk {
  private final TrailFiles files;
  /** The live file's path as verify was given it: the name of problems of the trail as a whole. */
  private final Path live;
  /** The keys seals may be signed with, by key id. */
  private final Map<String, SealKey> keys;
  private final String anchor;
  private final SealCheck sealCheck;
  private final ChangeClassifier classifier;

  ChainWalk(TrailFiles files, Path live, Map<String, SealKey> keys, String anchor) {
    this.files = files;
    this.live = live;
    this.keys = keys;
    this.anchor = anchor;
    SwappedFiles swapped = new SwappedFiles(files, keys);
    this.sealCheck = new SealCheck(keys, swapped);
    this.classifier = new ChangeClassifier(files, swapped);
  }

  /** Walks the trail; what it finds goes to {@code r}. */
  void walk(VerifyReport r) throws IOException {
    ChainSoFar chain = new ChainSoFar(newestTrail(), anchor);
    List<Path> unsealedHistory = new ArrayList<>();
    for (int i : files.indices()) {
      Path f = files.file(i);
      Path d = TrailNames.digest(f);
      List<Path> members = files.members(i);
      boolean hasFile = !members.isEmpty();
      boolean hasDigest = files.isFile(d);
      for (Path m : members) {
        r.accounted.add(files.at(m));
      }
      if (hasDigest) {
        r.accounted.add(files.at(d));
      }
      if (!hasFile && !hasDigest) {
        continue;
      }
      if (!hasFile) {
        r.tampering = new Problem(Problem.Kind.FILE_MISSING, f, -1, -1, "its digest " + d.getFileName()
            + " is there but the file is not" + (i > 0 ? " (nor " + TrailNames.compressed(f).getFileName() + ")"
            : ""), -1);
        return;
      }
      if (!hasDigest) {
        if (chain.last == null) {
          unsealedHistory.add(files.name(i));
        } else {
          chain.unsealed.add(files.name(i)); // sealing off meanwhile, if the next sealed file's first seal vouches
        }
        continue;
      }
      if (!walkFile(r, chain, i)) {
        return;
      }
    }
    if (chain.last != null && files.renames().isEmpty() && !files.isFile(live)
        && !files.isFile(TrailNames.digest(live))) {
      r.unsealed.add(new Problem(Problem.Kind.UNSEALED_FILE, live, -1, -1, "the live file and its digest are "
          + "missing, though the last seal (" + chain.last.kind.text() + ", file " + chain.last.file + ") has a file "
          + "after it: a rotation under way, or killed before it made the new file, or they were deleted", -1));
    }
    if (chain.first == null) {
      r.unsealed.add(new Problem(Problem.Kind.UNSEALED_FILE, live, -1, -1, "the trail holds no seal: nothing in it "
          + "is verified", -1));
    }
    for (Path f : chain.unsealed) {
      long records = AuditBytes.countLines(files.at(f));
      r.unsealed.add(new Problem(Problem.Kind.UNSEALED_FILE, f, 0, 1, Plural.of(records, "record") + " in a file "
          + "without a digest, newer than the last seal: sealing is off, or its digest was removed", records));
    }
    if (!unsealedHistory.isEmpty()) {
      if (chain.first != null && !Seal.GENESIS.equals(chain.first.prev)) {
        Path newest = unsealedHistory.get(unsealedHistory.size() - 1);
        r.tampering = new Problem(Problem.Kind.DIGEST_MISSING, newest, -1, -1, "it has no digest, but the sealed "
            + "file after it chains to a seal before it", -1);
        return;
      }
      List<Problem> history = new ArrayList<>();
      for (Path f : unsealedHistory) {
        long records = AuditBytes.countLines(files.at(f));
        history.add(new Problem(Problem.Kind.UNSEALED_FILE, f, 0, 1, Plural.of(records, "record") + " in a file "
            + "older than the first seal (written before sealing was turned on)", records));
      }
      r.unsealed.addAll(0, history);
    }
    if (chain.first != null && chain.first.file > chain.last.oldest) {
      r.tampering = new Problem(Problem.Kind.FILE_MISSING, files.file(chain.firstIndex + 1), -1, -1,
          "the oldest sealed file here is file "
          + chain.first.file + " of the trail, but the last seal says files from file " + chain.last.oldest
          + " are kept: the oldest rotated file(s) were deleted", -1);
      return;
    }
    for (Path aside : files.setAside()) {
      r.accounted.add(aside.toAbsolutePath());
      r.unsealed.add(new Problem(Problem.Kind.UNSEALED_FILE, aside, -1, -1, "a digest set aside at a start because "
          + "its file did not hold what it sealed (a rotation killed half-way, or the file changed while the "
          + "NameNode was down): compare it with the files", -1));
    }
    if (anchor != null && !chain.anchorSeen && r.tampering == null) {
      r.tampering = new Problem(Problem.Kind.ANCHOR_MISSING, live, -1, -1, "no seal of the trail has the hash "
          + anchor + " recorded off the host: seals were removed, or the trail was rewritten", -1);
    }
  }

  /**
   * The trail most of the files' last seals name (only seals whose signature holds count; a tie goes to the
   * older files): a file whose seals name another trail came from elsewhere, and is the one named. Null when no
   * file has such a seal (the walk then reports what is wrong where it is).
   */
  private String newestTrail() throws IOException {
    Map<String, Integer> votes = new java.util.LinkedHashMap<>(); // oldest file's trail first
    for (int i : files.indices()) {
      Path d = TrailNames.digest(files.file(i));
      if (!files.isFile(d)) {
        continue;
      }
      try {
        Seal s = DigestReader.lastSeal(files.at(d));
        SealKey key = s == null ? null : keys.get(s.keyId);
        if (key != null && s.signatureValid(key)) {
          votes.merge(s.trail, 1, Integer::sum);
        }
      } catch (IllegalArgumentException e) {
        // a damaged digest: the walk reports it where it is
      }
    }
    String best = null;
    for (Map.Entry<String, Integer> e : votes.entrySet()) {
      if (best == null || e.getValue() > votes.get(best)) {
        best = e.getKey();
      }
    }
    return best;
  }

  /**
   * Walks the seals of file {@code index}; false when it found a change (in {@code r}), which ends the walk. A
   * file there both plain and compressed (a kill between the compressor's rename and its delete) is checked
   * twice against its seals, each copy named by its own name; its records count once.
   */
  private boolean walkFile(VerifyReport r, ChainSoFar chain, int index) throws IOException {
    List<Path> members = files.members(index);
    List<VerifyReport> others = new ArrayList<>();
    for (Path other : members.subList(1, members.size())) { // first, so that nothing of the file counts if one fails
      VerifyReport copy = new VerifyReport(r.trail, r.acceptLate); // what this copy finds, counted nowhere
      if (!walkMember(copy, chain.copy(), index, other)) {
        r.tampering = copy.tampering;
        return false;
      }
      others.add(copy);
    }
    if (!walkMember(r, chain, index, members.get(0))) {
      return false;
    }
    for (VerifyReport copy : others) {
      addNew(r.unsealed, copy.unsealed);
      addNew(r.late, copy.late);
    }
    return true;
  }

  /** Adds to {@code to} what {@code from} found that {@code to} does not say already of the other copy. */
  private static void addNew(List<Problem> to, List<Problem> from) {
    for (Problem p : from) {
      boolean known = false;
      for (Problem q : to) {
        known |= q.kind == p.kind && q.offset == p.offset && q.line == p.line && q.records == p.records
            && q.detail.equals(p.detail);
      }
      if (!known) {
        to.add(p);
      }
    }
  }

  /**
   * Walks the seals of file {@code index} over the bytes of {@code f}, its plain or its compressed copy, which
   * names what is found; false when it found a change (in {@code r}).
   */
  private boolean walkMember(VerifyReport r, ChainSoFar chain, int index, Path f) throws IOException {
    Path d = TrailNames.digest(files.file(index));
    boolean isLive = index == 0;
    Seal last = null; // the file's last seal that verified
    try (MemberBytes bytes = MemberBytes.open(files.at(f));
        DigestLines lines = new DigestLines(files.at(d))) {
      FileChannel ch = bytes.channel;
      long size = ch.size();
      long line = 1; // the line of the audit file at the start of the next range
      String text;
      for (int k = 0; (text = lines.next()) != null; k++) {
        if (text == DigestLines.UNFINISHED) { // a seal half-written when the process was killed
          if (isLive && lines.next() == null) {
            break;
          }
          r.tampering = new Problem(Problem.Kind.SEAL_ALTERED, d, -1, k + 1, "the line does not end", -1);
          return false;
        }
        if (text == DigestLines.TOO_LONG) {
          r.tampering = new Problem(Problem.Kind.SEAL_ALTERED, d, -1, k + 1, "line " + (k + 1) + " is longer than "
              + "any seal (" + DigestFile.MAX_LINE + " bytes or more): not a seal", -1);
          return false;
        }
        Seal s;
        try {
          s = Seal.parse(text);
        } catch (IllegalArgumentException e) {
          r.tampering = new Problem(Problem.Kind.SEAL_ALTERED, d, -1, k + 1, "line " + (k + 1) + " is not a seal: "
              + e.getMessage(), -1);
          return false;
        }
        Problem p = last == null ? unsealedBefore(r, chain, s) : null;
        if (p == null) {
          p = sealCheck.check(chain, last, s, f, d, k + 1, files.file(index + 1), ch, size);
        }
        if (p != null) {
          r.tampering = damaged(bytes, p, f);
          return false;
        }
        if (!AuditBytes.rangeMatches(ch, size, s)) {
          r.tampering = damaged(bytes, classifier.classify(ch, size, s, f, line, d, isLive), f);
          return false;
        }
        p = StartOfRun.check(ch, last, s, f, line, r);
        if (p != null) {
          r.tampering = damaged(bytes, p, f);
          return false;
        }
        last = s;
        chain.add(s);
        if (chain.firstIndex < 0) {
          chain.firstIndex = index;
        }
        line += s.records;
        r.records += s.records;
        if (r.firstMillis < 0) {
          r.firstMillis = s.sinceMillis;
        }
        r.lastMillis = s.timeMillis;
        r.lastSealHash = s.hash();
      }
      if (bytes.damage != null) {
        r.tampering = damaged(bytes, null, f);
        return false;
      }
      Problem p = afterLastSeal(r, ch, size, last, f, line, isLive);
      if (p != null) {
        r.tampering = p;
        return false;
      }
      r.files++;
      return true;
    }
  }

  /**
   * The change to report in {@code f} when the walk of its bytes found {@code found} (null: nothing): when a
   * compressed file's gzip data is damaged (cut short, or wrong), that is the change, a truncation or a
   * modification of {@code f}; placed where the walk found its bytes differ, if it did, else where the
   * damage is. What the walk found stands when the data is whole, or when it is not about the file's bytes (a
   * file out of place, a seal altered).
   */
  private static Problem damaged(MemberBytes bytes, Problem found, Path f) {
    StrictGunzip.Damage dmg = bytes.damage;
    if (dmg == null || found != null && !(found.file.equals(f) && BYTE_CHANGES.contains(found.kind))) {
      return found;
    }
    Problem.Kind kind = dmg.cut ? Problem.Kind.TRUNCATED : Problem.Kind.MODIFIED;
    String what = (dmg.cut ? "the compressed file is cut short: " : "the compressed file is damaged: ") + dmg;
    if (found == null) {
      return new Problem(kind, f, dmg.uncompressedBytes, -1, what + "; the bytes before it are as sealed", -1);
    }
    return new Problem(kind, f, found.offset, found.line, what + "; from there, " + found.kind.text + ": "
        + found.detail, found.records);
  }

  /** The kinds of change that say a file's bytes differ from what was sealed. */
  private static final java.util.Set<Problem.Kind> BYTE_CHANGES = java.util.EnumSet.of(Problem.Kind.MODIFIED,
      Problem.Kind.RECORDS_INSERTED, Problem.Kind.RECORDS_DELETED, Problem.Kind.RECORDS_REORDERED,
      Problem.Kind.TRUNCATED);

  /**
   * The bytes of file {@code f} after {@code last}, its last seal (null: none), from {@code line}: none; an
   * unsealed tail (added to {@code r}); or records where nothing may be written, the change returned.
   */
  private static Problem afterLastSeal(VerifyReport r, FileChannel ch, long size, Seal last, Path f, long line,
      boolean isLive) throws IOException {
    long sealedEnd = last == null ? 0 : last.to;
    if (size <= sealedEnd) {
      return null;
    }
    long records = AuditBytes.countLines(ch, sealedEnd, size);
    if (last != null && (last.kind == Seal.Kind.CLOSE
        || !isLive && (last.kind == Seal.Kind.ROTATE || last.kind == Seal.Kind.MOVED))) {
      return new Problem(Problem.Kind.RECORDS_INSERTED, f, sealedEnd, line, Plural.of(records, "record")
          + " after the file's last seal, which closed it (" + last.kind.text() + "): nothing is written there "
          + "until a start's seal", records);
    }
    long allowed = last == null ? size : CrashTail.end(ch, last, size);
    if (allowed < size) {
      long beyond = AuditBytes.countLines(ch, allowed, size);
      return new Problem(Problem.Kind.RECORDS_INSERTED, f, allowed, line + AuditBytes.countLines(ch, sealedEnd,
          allowed), Plural.of(beyond, "record") + " after the last seal beyond what a run can leave unsealed ("
          + last.tailRecords + " records, then " + last.tailBytes + " bytes)", beyond);
    }
    r.unsealed.add(new Problem(Problem.Kind.UNSEALED_TAIL, f, sealedEnd, line, Plural.of(records, "record")
        + " after the last seal" + (isLive ? " (the NameNode is running, or was killed: the next start seals "
        + "them as recovered)" : " of a rotated file (a seal failed under fail-open?)"), records));
    return null;
  }

  /**
   * Files without a digest between two sealed ones: written while sealing was off, if the first seal after them
   * says so (a seal made at a start, chained to the last seal before them, numbered past them all), which is
   * unsealed, not a change; else their digests were removed.
   */
  private Problem unsealedBefore(VerifyReport r, ChainSoFar chain, Seal first) throws IOException {
    if (chain.unsealed.isEmpty()) {
      return null;
    }
    boolean vouched = (first.kind == Seal.Kind.ADOPT || first.kind == Seal.Kind.OPEN)
        && first.prev.equals(chain.last.hash()) && first.file == chain.last.file + chain.unsealed.size() + 1
        && keys.containsKey(first.keyId) && first.signatureValid(keys.get(first.keyId));
    if (!vouched) {
      return new Problem(Problem.Kind.DIGEST_MISSING, chain.unsealed.get(0), -1, -1, "it has no digest ("
          + TrailNames.digest(TrailNames.uncompressed(chain.unsealed.get(0))).getFileName()
          + "), though the files before it are sealed", -1);
    }
    for (Path f : chain.unsealed) {
      long records = AuditBytes.countLines(files.at(f));
      r.unsealed.add(new Problem(Problem.Kind.UNSEALED_FILE, f, 0, 1, Plural.of(records, "record") + " written "
          + "while sealing was off", records));
    }
    chain.unsealed.clear();
    chain.skipped = true;
    return null;
  }
}
