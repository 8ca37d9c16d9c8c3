package io.nnaudit.verify;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import io.nnaudit.seal.CrashTail;
import io.nnaudit.seal.DigestFile;
import io.nnaudit.seal.Seal;
import io.nnaudit.seal.SealKey;
import io.nnaudit.seal.SegmentDigest;
import io.nnaudit.trail.InterruptedRotation;
import io.nnaudit.trail.TrailNames;

/**
 * Checks a trail (an audit file, its rotated files and their digests) against its seals, oldest file first,
 * seal by seal: each seal's signature, its place in the chain (the previous seal's hash, the file's number,
 * the byte range following the previous one) and the bytes of its range. It stops at the first change and
 * says what kind of change it is and where. Bytes after a file's last seal are reported as unsealed, not as a
 * change, unless the seal before them closed the file (a close seal, or a rotated file's last seal) or they
 * exceed what a killed run can leave ({@link CrashTail}). Records a later start sealed (RECOVER, ADOPT) are
 * listed as sealed late; a start's FOUND seal is a change.
 *
 * <p>How a change is placed: a seal covers a range of bytes, so verify names the range whose bytes differ
 * (its first byte and line). To tell the kind, it looks for where the next sealed range starts now (at the
 * sealed offset, or a few records earlier or later) and compares what lies between with what the seals say
 * was there: the same length and the same records in another order is a reordering; the same length
 * otherwise, a modification; more records, an insertion; fewer, a deletion; a file that ends inside its sealed
 * ranges, a truncation. Stateless apart from its key and anchor; one trail per call.
 */
public final class TrailVerifier {
  /** How many records around the sealed count verify tries when it looks for where the next range starts. */
  private static final int SHIFT = 3;

  /** The keys seals may be signed with, by key id (several after a change of key). */
  private final java.util.Map<String, SealKey> keys = new java.util.LinkedHashMap<>();
  private final String anchor;
  /** Whether records sealed late are accepted (exit 0, still listed): verify --accept-late. */
  private final boolean acceptLate;
  /** The names of the trail being verified (one trail per call; not thread-safe). */
  private Names names;

  /** Checks signatures with {@code key}; {@code anchor}, when not null, is a seal hash the trail must hold. */
  public TrailVerifier(SealKey key, String anchor) {
    this(java.util.Collections.singletonList(key), anchor);
  }

  /** Checks signatures with whichever of {@code keys} a seal names (after a change of key, the old and new). */
  public TrailVerifier(List<SealKey> keys, String anchor) {
    this(keys, anchor, false);
  }

  /** As above; {@code acceptLate}: records sealed late count as verified (they are still listed). */
  public TrailVerifier(List<SealKey> keys, String anchor, boolean acceptLate) {
    for (SealKey k : keys) {
      this.keys.put(k.keyId(), k);
    }
    this.anchor = anchor;
    this.acceptLate = acceptLate;
  }

  /** The trails in {@code dir}: the live path of every audit file that has a digest there, sorted. */
  public static List<Path> trailsIn(Path dir) throws IOException {
    Set<Path> bases = new TreeSet<>();
    try (DirectoryStream<Path> ds = Files.newDirectoryStream(dir)) {
      for (Path p : ds) {
        String name = p.getFileName().toString();
        if (TrailNames.isDigest(name) && name.length() > TrailNames.DIGEST_SUFFIX.length()) {
          String audit = TrailNames.auditFileOf(name);
          // a rotated file's digest, or one a rotation left under a temporary name, belongs to the live file's trail
          bases.add(dir.resolve(TrailNames.liveNameOf(audit)));
        }
      }
    }
    return new ArrayList<>(bases);
  }

  /** Checks the trail whose live file is {@code live}. */
  public VerifyReport verify(Path live) throws IOException {
    VerifyReport r = new VerifyReport(live, acceptLate);
    InterruptedRotation left = InterruptedRotation.find(live, true);
    names = new Names(live, left.unexpected() == null ? left.finishedNames()
        : java.util.Collections.<Path, Path>emptyMap());
    if (!left.renames().isEmpty()) {
      r.notes.add("a rotation is half done (under way, or the NameNode was killed while rotating): the files are "
          + "read as it leaves them, as the rotation, or the next start, finishes it: " + left.renames());
    }
    for (InterruptedRotation.Rename rename : left.renames()) {
      r.accounted.add(rename.from.toAbsolutePath()); // read under the name the rotation gives it
    }
    Chain chain = new Chain();
    chain.trail = newestTrail();
    List<Path> unsealedHistory = new ArrayList<>();
    for (int i : names.indices()) {
      Path f = names.file(i);
      Path d = TrailNames.digest(f);
      boolean hasFile = names.isFile(f);
      boolean hasDigest = names.isFile(d);
      if (hasFile) {
        r.accounted.add(names.at(f));
      }
      if (hasDigest) {
        r.accounted.add(names.at(d));
      }
      if (!hasFile && !hasDigest) {
        continue;
      }
      if (!hasFile) {
        r.tampering = new Problem(Problem.Kind.FILE_MISSING, f, -1, -1, "its digest " + d.getFileName()
            + " is there but the file is not", -1);
        return r;
      }
      if (!hasDigest) {
        if (chain.last == null) {
          unsealedHistory.add(f);
        } else {
          chain.unsealed.add(f); // sealing off meanwhile, if the next sealed file's first seal vouches for it
        }
        continue;
      }
      if (!verifyFile(r, chain, live, i)) {
        return r;
      }
    }
    if (chain.last != null && left.renames().isEmpty() && !names.isFile(live)
        && !names.isFile(TrailNames.digest(live))) {
      r.unsealed.add(new Problem(Problem.Kind.UNSEALED_FILE, live, -1, -1, "the live file and its digest are "
          + "missing, though the last seal (" + chain.last.kind.text() + ", file " + chain.last.file + ") has a file "
          + "after it: a rotation under way, or killed before it made the new file, or they were deleted", -1));
    }
    if (chain.first == null) {
      r.unsealed.add(new Problem(Problem.Kind.UNSEALED_FILE, live, -1, -1, "the trail holds no seal: nothing in it "
          + "is verified", -1));
    }
    for (Path f : chain.unsealed) {
      long records = countLines(names.at(f));
      r.unsealed.add(new Problem(Problem.Kind.UNSEALED_FILE, f, 0, 1, count(records, "record") + " in a file without "
          + "a digest, newer than the last seal: sealing is off, or its digest was removed", records));
    }
    if (!unsealedHistory.isEmpty()) {
      if (chain.first != null && !Seal.GENESIS.equals(chain.first.prev)) {
        Path newest = unsealedHistory.get(unsealedHistory.size() - 1);
        r.tampering = new Problem(Problem.Kind.DIGEST_MISSING, newest, -1, -1, "it has no digest, but the sealed "
            + "file after it chains to a seal before it", -1);
        return r;
      }
      List<Problem> history = new ArrayList<>();
      for (Path f : unsealedHistory) {
        long records = countLines(names.at(f));
        history.add(new Problem(Problem.Kind.UNSEALED_FILE, f, 0, 1, count(records, "record") + " in a file older "
            + "than the first seal (written before sealing was turned on)", records));
      }
      r.unsealed.addAll(0, history);
    }
    if (chain.first != null && chain.first.file > chain.last.oldest) {
      r.tampering = new Problem(Problem.Kind.FILE_MISSING, names.file(chain.firstIndex + 1), -1, -1,
          "the oldest sealed file here is file "
          + chain.first.file + " of the trail, but the last seal says files from file " + chain.last.oldest
          + " are kept: the oldest rotated file(s) were deleted", -1);
      return r;
    }
    for (Path aside : setAside(live)) {
      r.accounted.add(aside.toAbsolutePath());
      r.unsealed.add(new Problem(Problem.Kind.UNSEALED_FILE, aside, -1, -1, "a digest set aside at a start because "
          + "its file did not hold what it sealed (a rotation killed half-way, or the file changed while the "
          + "NameNode was down): compare it with the files", -1));
    }
    if (anchor != null && !chain.anchorSeen && r.tampering == null) {
      r.tampering = new Problem(Problem.Kind.ANCHOR_MISSING, live, -1, -1, "no seal of the trail has the hash "
          + anchor + " recorded off the host: seals were removed, or the trail was rewritten", -1);
    }
    return r;
  }

  /** What the walk along the chain has seen so far. */
  private final class Chain {
    /** The trail of the newest file: null when no digest had a seal. */
    String trail;
    Seal first;
    Seal last;
    /** The index of the oldest sealed file here. */
    int firstIndex = -1;
    /** Files without a digest since the last sealed one, oldest first. */
    final List<Path> unsealed = new ArrayList<>();
    /** The next seal follows files written while sealing was off, which its signature vouches for. */
    boolean skipped;
    boolean anchorSeen;

    void add(Seal s) {
      if (first == null) {
        first = s;
      }
      last = s;
      if (anchor != null && anchor.equalsIgnoreCase(s.hash())) {
        anchorSeen = true;
      }
    }
  }

  /**
   * The names of a trail's files, read as if an interrupted rotation were finished: a name maps to the file that
   * will have it ({@link InterruptedRotation#finishedNames}), every other name to itself.
   */
  private static final class Names {
    final Path live;
    private final Map<Path, Path> moved;

    Names(Path live, Map<Path, Path> moved) {
      this.live = live.toAbsolutePath();
      this.moved = moved;
    }

    /** The live file (0) or the rotated file {@code i}. */
    Path file(int i) {
      return TrailNames.file(live, i);
    }

    /** The file that has (or, once the rotation is finished, will have) the name {@code p}; null for none. */
    Path at(Path p) {
      Path a = p.toAbsolutePath();
      return moved.containsKey(a) ? moved.get(a) : a;
    }

    boolean isFile(Path p) {
      Path a = at(p);
      return a != null && Files.isRegularFile(a, LinkOption.NOFOLLOW_LINKS);
    }

    /** The indices of the trail's files and digests there are, oldest (highest) first; 0 is the live file. */
    List<Integer> indices() throws IOException {
      Pattern p = TrailNames.numberedPattern(live);
      Set<Path> present = new HashSet<>();
      try (DirectoryStream<Path> ds = Files.newDirectoryStream(live.getParent())) {
        for (Path f : ds) {
          present.add(live.resolveSibling(f.getFileName().toString()));
        }
      }
      for (Map.Entry<Path, Path> e : moved.entrySet()) {
        if (e.getValue() == null) {
          present.remove(e.getKey());
        } else {
          present.add(e.getKey());
        }
      }
      Set<Integer> found = new TreeSet<>((a, b) -> Integer.compare(b, a));
      for (Path f : present) {
        Matcher m = p.matcher(f.getFileName().toString());
        if (m.matches()) {
          found.add(TrailNames.indexOf(m));
        }
      }
      return new ArrayList<>(found);
    }
  }

  /** Digests of the trail's files set aside at a start ({@code <digest>.stale-<time>}). */
  private static List<Path> setAside(Path live) throws IOException {
    List<Path> out = new ArrayList<>();
    Pattern p = TrailNames.staleDigestPattern(live);
    try (DirectoryStream<Path> ds = Files.newDirectoryStream(live.toAbsolutePath().getParent())) {
      for (Path f : ds) {
        if (p.matcher(f.getFileName().toString()).matches()) {
          out.add(f);
        }
      }
    }
    java.util.Collections.sort(out);
    return out;
  }

  /**
   * The trail most of the files' last seals name (only seals whose signature holds count; a tie goes to the
   * older files): a file whose seals name another trail came from elsewhere, and is the one named. Null when no
   * file has such a seal (the walk then reports what is wrong where it is).
   */
  private String newestTrail() throws IOException {
    Map<String, Integer> votes = new java.util.LinkedHashMap<>(); // oldest file's trail first
    for (int i : names.indices()) {
      Path d = TrailNames.digest(names.file(i));
      if (!names.isFile(d)) {
        continue;
      }
      try (FileChannel ch = FileChannel.open(names.at(d), StandardOpenOption.READ, LinkOption.NOFOLLOW_LINKS)) {
        Seal s = DigestFile.lastCompleteSeal(ch);
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

  private static List<Integer> reversed(List<Integer> in) {
    List<Integer> out = new ArrayList<>(in);
    java.util.Collections.reverse(out);
    return out;
  }

  private boolean verifyFile(VerifyReport r, Chain chain, Path live, int index) throws IOException {
    Path f = names.file(index);
    Path d = TrailNames.digest(f);
    boolean isLive = index == 0;
    Seal last = null; // the file's last seal that verified
    try (FileChannel ch = FileChannel.open(names.at(f), StandardOpenOption.READ, LinkOption.NOFOLLOW_LINKS);
        DigestLines lines = new DigestLines(names.at(d))) {
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
          p = checkSeal(chain, last, s, f, d, k + 1, names.file(index + 1), ch, size);
        }
        if (p != null) {
          r.tampering = p;
          return false;
        }
        if (!rangeMatches(ch, size, s)) {
          r.tampering = classify(ch, size, s, f, line, d, live, isLive);
          return false;
        }
        p = startOfRun(ch, last, s, f, line, r);
        if (p != null) {
          r.tampering = p;
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
      long sealedEnd = last == null ? 0 : last.to;
      if (size > sealedEnd) {
        long records = countLines(ch, sealedEnd, size);
        if (last != null && (last.kind == Seal.Kind.CLOSE
            || !isLive && (last.kind == Seal.Kind.ROTATE || last.kind == Seal.Kind.MOVED))) {
          r.tampering = new Problem(Problem.Kind.RECORDS_INSERTED, f, sealedEnd, line, count(records, "record")
              + " after the file's last seal, which closed it (" + last.kind.text() + "): nothing is written there "
              + "until a start's seal", records);
          return false;
        }
        long allowed = last == null ? size : CrashTail.end(ch, last, size);
        if (allowed < size) {
          long beyond = countLines(ch, allowed, size);
          r.tampering = new Problem(Problem.Kind.RECORDS_INSERTED, f, allowed, line + countLines(ch, sealedEnd,
              allowed), count(beyond, "record") + " after the last seal beyond what a run can leave unsealed ("
              + last.tailRecords + " records, then " + last.tailBytes + " bytes)", beyond);
          return false;
        }
        r.unsealed.add(new Problem(Problem.Kind.UNSEALED_TAIL, f, sealedEnd, line, count(records, "record")
            + " after the last seal" + (isLive ? " (the NameNode is running, or was killed: the next start seals "
            + "them as recovered)" : " of a rotated file (a seal failed under fail-open?)"), records));
      }
      r.files++;
      return true;
    }
  }

  /**
   * What a seal made at a start says about the records before it: a start's own seal (RESUME) vouches for
   * nothing; records a later start sealed (RECOVER after a killed run, ADOPT of a file without seals) are
   * listed as sealed late, within what the killed run's last seal allows; FOUND, and anything but a start's
   * seal after a close seal, means records were put where no run wrote them. Null when the seal is right.
   */
  private Problem startOfRun(FileChannel ch, Seal before, Seal s, Path f, long line, VerifyReport r)
      throws IOException {
    boolean afterClose = before != null && before.kind == Seal.Kind.CLOSE;
    if (s.kind == Seal.Kind.FOUND) {
      boolean inserted = before != null && s.from == before.to;
      return new Problem(inserted ? Problem.Kind.RECORDS_INSERTED : Problem.Kind.MODIFIED, f, s.from, line,
          inserted ? count(s.records, "record") + " (bytes " + s.from + "-" + s.to + ") were found after seal "
              + before.number + " at " + Seal.formatTime(s.timeMillis) + " (by a start, or as the file was reopened), "
              + "where no run wrote them: " + (afterClose ? "after a close seal" : "more than a killed run can leave "
              + "unsealed, or written by something else")
          : "the start at " + Seal.formatTime(s.timeMillis) + " found the file (" + s.to + " bytes) not holding what "
              + "its seals say", s.records);
    }
    if (afterClose && (s.kind == Seal.Kind.RECOVER || s.version >= 2 && s.kind != Seal.Kind.RESUME)) {
      return new Problem(Problem.Kind.RECORDS_INSERTED, f, s.from, line, count(s.records, "record") + " after "
          + "seal " + before.number + ", which closed the file, sealed by seal " + s.number + " (" + s.kind.text()
          + ") with no start's seal between them", s.records);
    }
    if (s.kind == Seal.Kind.RECOVER && before != null) {
      long allowed = CrashTail.end(ch, before, s.to);
      if (allowed < s.to) {
        long beyond = countLines(ch, allowed, s.to);
        return new Problem(Problem.Kind.RECORDS_INSERTED, f, allowed, line + countLines(ch, s.from, allowed),
            count(beyond, "record") + " sealed as recovered beyond what a killed run can leave after seal "
            + before.number + " (" + before.tailRecords + " records, then " + before.tailBytes + " bytes)", beyond);
      }
    }
    if (s.kind == Seal.Kind.ADOPT && s.records == 0 && !Seal.GENESIS.equals(s.prev)) {
      r.late.add(new Problem(Problem.Kind.SEALED_LATE, f, -1, -1, "file " + s.file + " of the trail was begun by "
          + "the start at " + Seal.formatTime(s.timeMillis) + " (seal " + s.number + ", adopt), not by the rotation "
          + "before it: that rotation was killed before it began the file, or the file and its digest were "
          + "deleted", 0));
    }
    if ((s.kind == Seal.Kind.RECOVER || s.kind == Seal.Kind.ADOPT) && s.records > 0) {
      r.late.add(new Problem(Problem.Kind.SEALED_LATE, f, s.from, line, count(s.records, "record") + " sealed at "
          + "the start at " + Seal.formatTime(s.timeMillis) + (s.kind == Seal.Kind.RECOVER ? ", after the run "
          + "that wrote them was killed (seal " + s.number + ", recover)" : ", which found the file without a "
          + "digest (seal " + s.number + ", adopt): sealing was just turned on, or the digest was removed"),
          s.records));
    }
    return null;
  }

  /**
   * Files without a digest between two sealed ones: written while sealing was off, if the first seal after them
   * says so (a seal made at a start, chained to the last seal before them, numbered past them all), which is
   * unsealed, not a change; else their digests were removed.
   */
  private Problem unsealedBefore(VerifyReport r, Chain chain, Seal first) throws IOException {
    if (chain.unsealed.isEmpty()) {
      return null;
    }
    boolean vouched = (first.kind == Seal.Kind.ADOPT || first.kind == Seal.Kind.OPEN)
        && first.prev.equals(chain.last.hash()) && first.file == chain.last.file + chain.unsealed.size() + 1
        && keys.containsKey(first.keyId) && first.signatureValid(keys.get(first.keyId));
    if (!vouched) {
      return new Problem(Problem.Kind.DIGEST_MISSING, chain.unsealed.get(0), -1, -1, "it has no digest ("
          + TrailNames.digest(chain.unsealed.get(0)).getFileName() + "), though the files before it are sealed", -1);
    }
    for (Path f : chain.unsealed) {
      long records = countLines(names.at(f));
      r.unsealed.add(new Problem(Problem.Kind.UNSEALED_FILE, f, 0, 1, count(records, "record") + " written while "
          + "sealing was off", records));
    }
    chain.unsealed.clear();
    chain.skipped = true;
    return null;
  }

  /** Signature and place in the chain of {@code s}, the next seal of file {@code f}; null when both are right. */
  private Problem checkSeal(Chain chain, Seal prevInFile, Seal s, Path f, Path d, int digestLine,
      Path olderName, FileChannel ch, long size) throws IOException {
    SealKey key = keys.get(s.keyId);
    if (key == null || !s.algorithm.equals(key.algorithm())) {
      return new Problem(Problem.Kind.BAD_SIGNATURE, d, -1, digestLine, "seal " + s.number + " is signed by key "
          + s.keyId + " (" + s.algorithm + "), " + (keys.size() == 1 ? "not by the given key " + keys.keySet()
          + " (if the sealing key was changed, give each key's certificate)" : "not by any given key "
          + keys.keySet()), -1);
    }
    if (!s.signatureValid(key)) {
      return new Problem(Problem.Kind.BAD_SIGNATURE, d, -1, digestLine, "seal " + s.number + " does not match its "
          + "signature: the seal was changed after it was signed", -1);
    }
    Seal before = chain.last;
    boolean firstOfFile = prevInFile == null;
    if (chain.skipped) { // files written while sealing was off come between: the seal numbers them past those
      chain.skipped = false;
      before = null;
    }
    if (chain.trail != null && !s.trail.equals(chain.trail)) {
      return new Problem(Problem.Kind.FOREIGN_FILE, f, 0, 1, "its seals belong to trail " + s.trail + ", most of "
          + "the files' to trail " + chain.trail, -1);
    }
    if (before != null && !s.prev.equals(before.hash())) {
      if (!firstOfFile) {
        return new Problem(Problem.Kind.SEAL_ALTERED, d, -1, digestLine, "seal " + s.number + " does not follow "
            + "seal " + before.number + " before it: a seal between them was removed, or one was replaced", -1);
      }
      if (!s.trail.equals(before.trail)) {
        return new Problem(Problem.Kind.FOREIGN_FILE, f, 0, 1, "its seals belong to trail " + s.trail + ", the files "
            + "before it to trail " + before.trail, -1);
      }
      Problem misplaced = misplaced(ch, size, s, before, f, d);
      if (misplaced != null) {
        return misplaced;
      }
      if (s.file > before.file + 1) {
        return new Problem(Problem.Kind.FILE_MISSING, olderName, -1, -1, (s.file - before.file - 1) + " file(s) of "
            + "the trail are missing before " + f.getFileName() + " (file " + s.file + " of the trail; the file "
            + "before it here is file " + before.file + ")", -1);
      }
      if (s.file <= before.file) {
        return new Problem(Problem.Kind.FILES_OUT_OF_ORDER, f, -1, -1, "it is file " + s.file + " of the trail, but "
            + "comes after file " + before.file, -1);
      }
      return new Problem(Problem.Kind.SEAL_ALTERED, d, -1, digestLine, "its first seal does not follow the last "
          + "seal of the file before it", -1);
    }
    if (!firstOfFile) {
      if (!s.trail.equals(prevInFile.trail) || s.file != prevInFile.file || s.from != prevInFile.to) {
        return new Problem(Problem.Kind.SEAL_ALTERED, d, -1, digestLine, "seal " + s.number + " does not continue "
            + "the file's seals (file " + s.file + " bytes " + s.from + "-, after file " + prevInFile.file
            + " bytes -" + prevInFile.to + ")", -1);
      }
    } else if (s.from != 0) {
      return new Problem(Problem.Kind.SEAL_ALTERED, d, -1, digestLine, "the file's first seal starts at byte "
          + s.from, -1);
    }
    return null;
  }

  /**
   * The first seal of file {@code f} does not follow the file before it: were files renamed or swapped, or only
   * their digests? The file is named by what it holds: if its bytes are another digest's first sealed range, the
   * digests were swapped (the digest is named); if its seals are right for it but another file of the trail is
   * the one that follows {@code before}, the files were renamed or swapped (the file is named). Null otherwise.
   */
  private Problem misplaced(FileChannel ch, long size, Seal first, Seal before, Path f, Path d) throws IOException {
    Seal own = firstSeal(names.at(d), true);
    if (own != null && !(own.to <= size && matches(digestOf(ch, own.from, own.to), own))) {
      Path other = whoseFirstRange(ch, size, f);
      return other == null ? null : new Problem(Problem.Kind.FILES_OUT_OF_ORDER, d, -1, 1, "it holds the seals of "
          + "file " + own.file + " of the trail, but " + f.getFileName() + " holds what "
          + TrailNames.digest(other).getFileName() + " seals: digests were renamed or swapped", -1);
    }
    for (int i : names.indices()) {
      Path other = names.file(i);
      if (other.equals(f)) {
        continue;
      }
      Seal theirs = firstSeal(names.at(TrailNames.digest(other)), false);
      if (theirs != null && theirs.trail.equals(first.trail) && theirs.file == before.file + 1) {
        return new Problem(Problem.Kind.FILES_OUT_OF_ORDER, f, 0, 1, "it is file " + first.file + " of the trail, "
            + "but follows file " + before.file + ", and file " + theirs.file + " is " + other.getFileName()
            + ": files were renamed or swapped", -1);
      }
    }
    return null;
  }

  private static boolean rangeMatches(FileChannel ch, long size, Seal s) throws IOException {
    if (s.to > size) {
      return false;
    }
    return matches(digestOf(ch, s.from, s.to), s);
  }

  private static boolean matches(SegmentDigest d, Seal s) {
    return d.records() == s.records && d.lineSum() == s.lineSum && Seal.hex(d.peekSha256()).equals(s.sha256);
  }

  /**
   * The bytes of {@code s}'s range differ: finds out how, as described in the class comment. {@code line} is
   * the line at which the range starts; everything before it verified. A rotated file whose last seal closed
   * it (rotated or moved away) may hold nothing after its sealed bytes.
   */
  private Problem classify(FileChannel ch, long size, Seal s, Path f, long line, Path d, Path live, boolean isLive)
      throws IOException {
    long c = s.from;
    if (c == 0) {
      Problem moved = identifyFile(ch, size, f, live);
      if (moved != null) {
        return moved;
      }
    }
    List<Seal> ranges = new ArrayList<>();
    ranges.add(s);
    ranges.addAll(laterSeals(names.at(d), s));
    Seal last = ranges.get(ranges.size() - 1);
    // a rotated file sealed for good; the live file's last seal says rotate when that rotation failed
    boolean closed = !isLive && (last.kind == Seal.Kind.ROTATE || last.kind == Seal.Kind.MOVED);
    Problem p = reordering(ch, size, ranges, f, line);
    if (p != null) {
      return p;
    }
    // Where does a later range start now? At its sealed offset, or a few records before or after.
    Totals sealed = new Totals();
    for (int j = 1; j < ranges.size(); j++) {
      sealed.add(ranges.get(j - 1));
      Seal next = ranges.get(j);
      if (next.to == next.from) {
        continue;
      }
      for (long start : candidates(ch, c, sealed.records, next.from)) {
        long len = next.to - next.from;
        if (start >= c && start + len <= size && matches(digestOf(ch, start, start + len), next)) {
          return describe(f, c, line, digestOf(ch, c, start), sealed, s, false);
        }
      }
    }
    sealed.add(last);
    // No later range is intact: where do the last range's records end now? Its last record, found by its
    // checksum a few records before or after where it was, says; else the sealed end, or the file's end.
    long lastLine = 0; // the checksum of the last record sealed: in the last range that has records
    for (Seal r : ranges) {
      if (r.records > 0) {
        lastLine = r.lastLine;
      }
    }
    long end = endOfLastRecord(ch, c, sealed.records, lastLine);
    if (end >= 0 && (!closed || end == size)) {
      return describe(f, c, line, digestOf(ch, c, end), sealed, s, true);
    }
    if (size < last.to) {
      SegmentDigest actual = digestOf(ch, c, size);
      boolean midRecord = size > 0 && byteAt(ch, size - 1) != '\n';
      if (midRecord || actual.records() >= sealed.records) {
        return new Problem(Problem.Kind.TRUNCATED, f, c, line, "the file ends at byte " + size + (midRecord
            ? " in the middle of a record" : "") + ", inside the range sealed by seal " + s.number + " and after "
            + "(sealed up to byte " + last.to + ")", -1);
      }
      return describe(f, c, line, actual, sealed, s, true);
    }
    return describe(f, c, line, digestOf(ch, c, closed ? size : last.to), sealed, s, true);
  }

  /** Bytes, records and checksum sum of sealed ranges taken together. */
  private static final class Totals {
    long bytes;
    long records;
    long sum;

    void add(Seal s) {
      bytes += s.to - s.from;
      records += s.records;
      sum += s.lineSum;
    }
  }

  /**
   * Records put in another order: from the changed range up to the start of a later range that is intact
   * where it was sealed (or up to the sealed end), the same bytes count, the same records count and the same
   * sum of record checksums, with other bytes.
   */
  private static Problem reordering(FileChannel ch, long size, List<Seal> ranges, Path f, long line)
      throws IOException {
    long c = ranges.get(0).from;
    SegmentDigest actual = new SegmentDigest();
    Totals sealed = new Totals();
    long fed = c;
    for (int j = 0; j < ranges.size(); j++) {
      Seal r = ranges.get(j);
      sealed.add(r);
      if (r.to > size) {
        return null;
      }
      actual.update(ch, fed, r.to);
      fed = r.to;
      boolean intactAfter = j + 1 == ranges.size() || rangeMatches(ch, size, ranges.get(j + 1));
      if (intactAfter && actual.records() == sealed.records && actual.lineSum() == sealed.sum) {
        return new Problem(Problem.Kind.RECORDS_REORDERED, f, c, line, "the " + sealed.records + " records sealed "
            + "from byte " + c + " (seal " + ranges.get(0).number + ") to byte " + r.to + " are all there, in "
            + "another order", sealed.records);
      }
    }
    return null;
  }

  /**
   * The offset just after the record whose checksum is {@code lastLine}, looked for among the records
   * {@code records - SHIFT} to {@code records + SHIFT} from {@code c} (the last of them that has it); -1 when
   * none has it.
   */
  private static long endOfLastRecord(FileChannel ch, long c, long records, long lastLine) throws IOException {
    if (records == 0) {
      return -1;
    }
    long from = Math.max(0, records - 1 - SHIFT);
    long start = offsetAfterLines(ch, c, from);
    long found = -1;
    for (long i = from; start >= 0 && i <= records - 1 + SHIFT; i++) {
      long next = offsetAfterLines(ch, start, 1);
      if (next < 0) {
        break;
      }
      SegmentDigest one = digestOf(ch, start, next);
      if (one.lastLineHash() == lastLine) {
        found = next; // the last in the window: a copy of the last record put before it is an insertion
      }
      start = next;
    }
    return found;
  }

  private static byte byteAt(FileChannel ch, long pos) throws IOException {
    ByteBuffer b = ByteBuffer.allocate(1);
    return ch.read(b, pos) == 1 ? b.get(0) : 0;
  }

  /** Where the range after the changed ones may start now: its sealed offset, or after a few records more or less. */
  private static Set<Long> candidates(FileChannel ch, long c, long records, long sealedOffset) throws IOException {
    Set<Long> out = new LinkedHashSet<>();
    out.add(sealedOffset);
    for (int d = -SHIFT; d <= SHIFT; d++) {
      if (records + d >= 0) {
        long o = offsetAfterLines(ch, c, records + d);
        if (o >= 0) {
          out.add(o);
        }
      }
    }
    return out;
  }

  private static Problem describe(Path f, long c, long line, SegmentDigest actual, Totals sealed, Seal s,
      boolean toTheEnd) {
    String where = "the range sealed by seal " + s.number + (toTheEnd ? " and after" : "") + " (from byte " + c
        + ", line " + line + ")";
    Problem.Kind kind;
    String what;
    if (actual.bytes() == sealed.bytes) {
      kind = Problem.Kind.MODIFIED;
      what = "its " + count(sealed.records, "record") + " (" + sealed.bytes + " bytes) differ from what was sealed";
    } else {
      kind = actual.records() > sealed.records ? Problem.Kind.RECORDS_INSERTED
          : actual.records() < sealed.records ? Problem.Kind.RECORDS_DELETED : Problem.Kind.MODIFIED;
      what = count(sealed.records, "record") + " of " + sealed.bytes + " bytes were sealed, " + actual.records()
          + " of " + actual.bytes() + " bytes are there";
    }
    return new Problem(kind, f, c, line, where + ": " + what, Math.abs(actual.records() - sealed.records));
  }

  static String count(long n, String noun) {
    return n + " " + noun + (n == 1 ? "" : "s");
  }

  /**
   * The file's first sealed bytes differ: if they are the first sealed range of another file of the trail,
   * the files were swapped or renamed.
   */
  private Problem identifyFile(FileChannel ch, long size, Path f, Path live) throws IOException {
    Path other = whoseFirstRange(ch, size, f);
    return other == null ? null : new Problem(Problem.Kind.FILES_OUT_OF_ORDER, f, 0, 1, "it holds the records "
        + "sealed for " + other.getFileName() + " (file " + firstSeal(names.at(TrailNames.digest(other)), true).file
        + " of the trail): files were renamed or swapped", -1);
  }

  /** The other file of the trail whose first sealed range the first bytes of {@code f} are, or null. */
  private Path whoseFirstRange(FileChannel ch, long size, Path f) throws IOException {
    for (int i : names.indices()) {
      Path other = names.file(i);
      if (other.equals(f)) {
        continue;
      }
      Seal first = firstSeal(names.at(TrailNames.digest(other)), true);
      SealKey key = first == null ? null : keys.get(first.keyId);
      if (key != null && first.to <= size && first.signatureValid(key) && matches(digestOf(ch, 0, first.to), first)) {
        return other;
      }
    }
    return null;
  }

  /**
   * The first seal of a digest, or with {@code withBytes} the first that covers bytes; null when there is none,
   * or a line that is not a seal comes first.
   */
  private static Seal firstSeal(Path digest, boolean withBytes) throws IOException {
    if (digest == null || !Files.isRegularFile(digest, LinkOption.NOFOLLOW_LINKS)) {
      return null;
    }
    try (DigestLines lines = new DigestLines(digest)) {
      String line;
      while ((line = lines.next()) != null) {
        Seal s = Seal.parse(line);
        if (!withBytes || s.to > 0) {
          return s;
        }
      }
    } catch (IllegalArgumentException e) {
      return null;
    }
    return null;
  }

  /** Later seals read when placing a change, at most: enough to find where the records shifted to. */
  private static final int MAX_LATER_SEALS = 10_000;

  /**
   * The seals of digest {@code d} after {@code s} that parse and continue the ranges before them, in order,
   * stopping at the first that does not (a start's FOUND seal over the whole file as it found it starts again at
   * byte 0: the ranges sealed before are what tells where records shifted).
   */
  private static List<Seal> laterSeals(Path d, Seal s) throws IOException {
    List<Seal> out = new ArrayList<>();
    long end = s.to;
    boolean after = false;
    String wanted = s.line();
    try (DigestLines lines = new DigestLines(d)) {
      String line;
      while ((line = lines.next()) != null && out.size() < MAX_LATER_SEALS) {
        if (after) {
          Seal next;
          try {
            next = Seal.parse(line);
          } catch (IllegalArgumentException e) {
            break;
          }
          if (next.from != end || next.kind == Seal.Kind.FOUND) { // FOUND: what a start found, not what was written
            break;
          }
          out.add(next);
          end = next.to;
        } else if (line.equals(wanted)) {
          after = true;
        }
      }
    }
    return out;
  }

  static SegmentDigest digestOf(FileChannel ch, long from, long to) throws IOException {
    SegmentDigest d = new SegmentDigest();
    d.update(ch, from, to);
    return d;
  }



  /** The offset just after the {@code n}-th newline from {@code from}, or -1 if the file has fewer. */
  private static long offsetAfterLines(FileChannel ch, long from, long n) throws IOException {
    if (n == 0) {
      return from;
    }
    ByteBuffer b = ByteBuffer.allocate(1 << 16);
    long pos = from;
    long seen = 0;
    int r;
    while ((r = ch.read(b, pos)) > 0) {
      for (int i = 0; i < r; i++) {
        if (b.get(i) == '\n' && ++seen == n) {
          return pos + i + 1;
        }
      }
      pos += r;
      b.clear();
    }
    return -1;
  }

  private static long countLines(FileChannel ch, long from, long to) throws IOException {
    return digestOf(ch, from, to).records();
  }

  private static long countLines(Path f) throws IOException {
    try (FileChannel ch = FileChannel.open(f, StandardOpenOption.READ, LinkOption.NOFOLLOW_LINKS)) {
      return countLines(ch, 0, ch.size());
    }
  }
}
