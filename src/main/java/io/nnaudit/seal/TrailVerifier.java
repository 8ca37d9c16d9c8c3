package io.nnaudit.seal;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
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

/**
 * Checks a trail (an audit file, its rotated files and their digests) against its seals, oldest file first,
 * seal by seal: each seal's signature, its place in the chain (the previous seal's hash, the file's number,
 * the byte range following the previous one) and the bytes of its range. It stops at the first change and
 * says what kind of change it is and where; bytes after a file's last seal are reported as unsealed, not as a
 * change, unless the seal before them closed the file for good (rotated or moved away).
 *
 * <p>How a change is placed: a seal covers a range of bytes, so verify names the range whose bytes differ
 * (its first byte and line). To tell the kind, it looks for where the next sealed range starts now (at the
 * sealed offset, or a few records earlier or later) and compares what lies between with what the seals say
 * was there: the same length and the same records in another order is a reordering; the same length
 * otherwise, a modification; more records, an insertion; fewer, a deletion; a file that ends inside its sealed
 * ranges, a truncation. Stateless apart from its keys and anchor; one trail per call.
 */
public final class TrailVerifier {
  /** How many records around the sealed count verify tries when it looks for where the next range starts. */
  private static final int SHIFT = 3;
  /** How many sealed ranges past a changed one verify looks at for the next that is intact. */
  private static final int LOOK_AHEAD = 3;

  /** The keys that may have signed the trail's seals: more than one when the sealing key was changed. */
  private final List<SealKey> keys;
  private final String anchor;

  /** Checks signatures with {@code key}; {@code anchor}, when not null, is a seal hash the trail must hold. */
  public TrailVerifier(SealKey key, String anchor) {
    this(java.util.Collections.singletonList(key), anchor);
  }

  /**
   * Checks each seal's signature with the one of {@code keys} that it names (its key id): a trail sealed with a
   * key, then with another after the key was changed, verifies with both.
   */
  public TrailVerifier(List<SealKey> keys, String anchor) {
    if (keys.isEmpty()) {
      throw new IllegalArgumentException("no key to check seals with");
    }
    this.keys = new ArrayList<>(keys);
    this.anchor = anchor;
  }

  /** The trails in {@code dir}: the live path of every audit file that has a digest there, sorted. */
  public static List<Path> trailsIn(Path dir) throws IOException {
    Set<Path> bases = new TreeSet<>();
    try (DirectoryStream<Path> ds = Files.newDirectoryStream(dir)) {
      for (Path p : ds) {
        String name = p.getFileName().toString();
        if (name.endsWith(DigestFile.SUFFIX) && name.length() > DigestFile.SUFFIX.length()) {
          String audit = name.substring(0, name.length() - DigestFile.SUFFIX.length());
          // a rotated file's digest, or one a rotation left under a temporary name, belongs to the live file's trail
          bases.add(dir.resolve(audit.replaceFirst("\\.(?:[0-9]+|rotating-[0-9]+|[0-9]+\\.expired-[0-9]+)$", "")));
        }
      }
    }
    return new ArrayList<>(bases);
  }

  /**
   * Checks the trail whose live file is {@code live}. A rotation that a kill interrupted is read as finished
   * (see {@link InterruptedRotation}), as the next start finishes it: files are checked by their seals, wherever
   * the kill left their names, and the report says so.
   */
  public VerifyReport verify(Path live) throws IOException {
    VerifyReport r = new VerifyReport(live);
    InterruptedRotation left = InterruptedRotation.find(live, true);
    Names names = new Names(live, left.unexpected() == null ? left.finishedNames()
        : java.util.Collections.<Path, Path>emptyMap());
    if (!left.renames().isEmpty()) {
      r.notes.add("a rotation is half done (under way, or the NameNode was killed while rotating): the files are "
          + "read as it leaves them, as the rotation, or the next start, finishes it: " + left.renames());
    }
    Chain chain = new Chain();
    List<Path> unsealedHistory = new ArrayList<>();
    for (int i : names.indices()) {
      Path f = names.file(i);
      Path d = DigestFile.of(f);
      boolean hasFile = names.isFile(f);
      boolean hasDigest = names.isFile(d);
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
          continue;
        }
        if (i == 0) {
          // The live file is started before its first seal opens its digest: a kill in between (or, under
          // fail-open, a digest that could not be written) leaves it without one. Its records are unsealed, as
          // a tail after the last seal is; the next start seals them (adopt).
          long records = countLines(names.at(f));
          if (Files.size(names.at(f)) > 0) {
            r.unsealed.add(new Problem(Problem.Kind.UNSEALED_FILE, f, 0, 1, records + " records in the live file, "
                + "which has no digest yet (" + d.getFileName() + "): the NameNode stopped before the file's first "
                + "seal (killed as it started the file?) or could not write it under fail-open; the next seal, or "
                + "the next start, seals them", records));
          }
          continue;
        }
        r.tampering = new Problem(Problem.Kind.DIGEST_MISSING, f, -1, -1, "it has no digest (" + d.getFileName()
            + "), though the files before it are sealed", -1);
        return r;
      }
      if (!verifyFile(r, chain, names, f, d, i == 0)) {
        return r;
      }
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
        history.add(new Problem(Problem.Kind.UNSEALED_FILE, f, 0, 1, records + " records in a file older than the "
            + "first seal (written before sealing was turned on)", records));
      }
      r.unsealed.addAll(0, history);
    }
    if (chain.first != null && chain.first.file > chain.last.oldest) {
      r.tampering = new Problem(Problem.Kind.FILE_MISSING, live, -1, -1, "the oldest sealed file here is file "
          + chain.first.file + " of the trail, but the last seal says files from file " + chain.last.oldest
          + " are kept: the oldest rotated file(s) were deleted", -1);
      return r;
    }
    if (anchor != null && !chain.anchorSeen && r.tampering == null) {
      r.tampering = new Problem(Problem.Kind.ANCHOR_MISSING, live, -1, -1, "no seal of the trail has the hash "
          + anchor + " recorded off the host: seals were removed, or the trail was rewritten", -1);
    }
    return r;
  }

  /** What the walk along the chain has seen so far. */
  private final class Chain {
    Seal first;
    Seal last;
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
      return i == 0 ? live : live.resolveSibling(live.getFileName() + "." + i);
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
      String base = Pattern.quote(live.getFileName().toString());
      Pattern p = Pattern.compile(base + "(?:\\.([0-9]{1,9}))?(?:" + Pattern.quote(DigestFile.SUFFIX) + ")?");
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
          found.add(m.group(1) == null ? 0 : Integer.parseInt(m.group(1)));
        }
      }
      return new ArrayList<>(found);
    }
  }

  private boolean verifyFile(VerifyReport r, Chain chain, Names names, Path f, Path d, boolean isLive)
      throws IOException {
    List<Seal> seals = new ArrayList<>();
    List<String> lines = readLines(names.at(d));
    try (FileChannel ch = FileChannel.open(names.at(f), StandardOpenOption.READ, LinkOption.NOFOLLOW_LINKS)) {
      long size = ch.size();
      long line = 1; // the line of the audit file at the start of the next range
      for (int k = 0; k < lines.size(); k++) {
        String text = lines.get(k);
        if (text == null) { // an unfinished last line: a seal half-written when the process was killed
          if (isLive && k == lines.size() - 1) {
            break;
          }
          r.tampering = new Problem(Problem.Kind.SEAL_ALTERED, d, -1, k + 1, "the line does not end", -1);
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
        Problem p = checkSeal(chain, seals, s, f, d, k + 1);
        if (p != null) {
          r.tampering = p;
          return false;
        }
        if (!rangeMatches(ch, size, s)) {
          r.tampering = classify(ch, size, seals, s, f, line, d, names);
          return false;
        }
        seals.add(s);
        chain.add(s);
        line += s.records;
        r.records += s.records;
        if (s.kind == Seal.Kind.RECOVER || s.kind == Seal.Kind.ADOPT) {
          r.sealedLate += s.records;
        }
        if (r.firstMillis < 0) {
          r.firstMillis = s.sinceMillis;
        }
        r.lastMillis = s.timeMillis;
        r.lastSealHash = s.hash();
      }
      Seal last = seals.isEmpty() ? null : seals.get(seals.size() - 1);
      long sealedEnd = last == null ? 0 : last.to;
      if (size > sealedEnd) {
        long records = countLines(ch, sealedEnd, size);
        if (last != null && (last.kind == Seal.Kind.ROTATE || last.kind == Seal.Kind.MOVED)) {
          r.tampering = new Problem(Problem.Kind.RECORDS_INSERTED, f, sealedEnd, line, records + " records after "
              + "the file's last seal, which closed it (" + last.kind.text() + ")", records);
          return false;
        }
        r.unsealed.add(new Problem(Problem.Kind.UNSEALED_TAIL, f, sealedEnd, line, records + " records after the "
            + "last seal" + (isLive ? " (the NameNode is running, or was killed: the next seal, or the next start, "
            + "seals them)" : " of a rotated file (a seal failed under fail-open?)"), records));
      }
      r.files++;
      return true;
    }
  }

  /** Signature and place in the chain of {@code s}, the next seal of file {@code f}; null when both are right. */
  private Problem checkSeal(Chain chain, List<Seal> fileSeals, Seal s, Path f, Path d, int digestLine) {
    SealKey key = null;
    for (SealKey k : keys) {
      if (s.keyId.equals(k.keyId()) && s.algorithm.equals(k.algorithm())) {
        key = k;
      }
    }
    if (key == null) {
      StringBuilder given = new StringBuilder();
      for (SealKey k : keys) {
        given.append(given.length() == 0 ? "" : ", ").append(k.keyId()).append(" (").append(k.algorithm()).append(')');
      }
      return new Problem(Problem.Kind.BAD_SIGNATURE, d, -1, digestLine, "seal " + s.number + " is signed by key "
          + s.keyId + " (" + s.algorithm + "), not by " + (keys.size() == 1 ? "the given key " : "any given key: ")
          + given + (keys.size() == 1 ? " (if the sealing key was changed, give each key's certificate)" : ""), -1);
    }
    if (!s.signatureValid(key)) {
      return new Problem(Problem.Kind.BAD_SIGNATURE, d, -1, digestLine, "seal " + s.number + " does not match its "
          + "signature: the seal was changed after it was signed", -1);
    }
    Seal before = chain.last;
    boolean firstOfFile = fileSeals.isEmpty();
    if (before != null && !s.prev.equals(before.hash())) {
      if (!firstOfFile) {
        return new Problem(Problem.Kind.SEAL_ALTERED, d, -1, digestLine, "seal " + s.number + " does not follow "
            + "seal " + before.number + " before it: a seal between them was removed, or one was replaced", -1);
      }
      if (!s.trail.equals(before.trail)) {
        return new Problem(Problem.Kind.FOREIGN_FILE, f, 0, 1, "its seals belong to trail " + s.trail + ", the files "
            + "before it to trail " + before.trail, -1);
      }
      if (s.file > before.file + 1) {
        return new Problem(Problem.Kind.FILE_MISSING, f, -1, -1, (s.file - before.file - 1) + " file(s) of the "
            + "trail are missing before it (it is file " + s.file + ", the file before it is file " + before.file
            + ")", -1);
      }
      if (s.file <= before.file) {
        return new Problem(Problem.Kind.FILES_OUT_OF_ORDER, f, -1, -1, "it is file " + s.file + " of the trail, but "
            + "comes after file " + before.file, -1);
      }
      return new Problem(Problem.Kind.SEAL_ALTERED, d, -1, digestLine, "its first seal does not follow the last "
          + "seal of the file before it", -1);
    }
    if (!firstOfFile) {
      Seal prevInFile = fileSeals.get(fileSeals.size() - 1);
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
   * the line at which the range starts; everything before it verified.
   */
  private Problem classify(FileChannel ch, long size, List<Seal> verified, Seal s, Path f, long line, Path d,
      Names names) throws IOException {
    long c = s.from;
    List<Seal> rest = laterSeals(names.at(d), s);
    if (s.from == 0) {
      Problem moved = identifyFile(ch, size, f, names);
      if (moved != null) {
        return moved;
      }
    }
    long sealedBytes = s.to - s.from;
    long sealedRecords = s.records;
    long sealedSum = s.lineSum;
    long sealedEnd = s.to;
    for (int j = 0; j < rest.size() && j < LOOK_AHEAD; j++) {
      Seal next = rest.get(j);
      if (next.to > next.from) {
        for (long start : candidates(ch, c, sealedRecords, next.from)) {
          long len = next.to - next.from;
          if (start >= c && start + len <= size && matches(digestOf(ch, start, start + len), next)) {
            return describe(f, c, line, digestOf(ch, c, start), sealedBytes, sealedRecords, sealedSum, s, false);
          }
        }
      }
      sealedBytes += next.to - next.from;
      sealedRecords += next.records;
      sealedSum += next.lineSum;
      sealedEnd = next.to;
    }
    // no later range is intact where it could be: compare up to the sealed end, or the file's end before it
    if (size < sealedEnd) {
      SegmentDigest actual = digestOf(ch, c, size);
      long shortBy = sealedRecords - actual.records();
      return new Problem(Problem.Kind.TRUNCATED, f, c, line, "the file ends at byte " + size + ", inside the range "
          + "sealed up to byte " + sealedEnd + " (seal " + s.number + " and after; " + Math.max(0, shortBy)
          + " sealed records are not there)", -1);
    }
    return describe(f, c, line, digestOf(ch, c, sealedEnd), sealedBytes, sealedRecords, sealedSum, s, true);
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

  private static Problem describe(Path f, long c, long line, SegmentDigest actual, long sealedBytes,
      long sealedRecords, long sealedSum, Seal s, boolean toSealedEnd) {
    String where = "the range sealed by seal " + s.number + (toSealedEnd ? " and after" : "") + " (from byte " + c
        + ", line " + line + ")";
    String what = sealedRecords + " records of " + sealedBytes + " bytes were sealed, " + actual.records()
        + " records of " + actual.bytes() + " bytes are there";
    Problem.Kind kind;
    if (actual.bytes() == sealedBytes) {
      kind = actual.records() == sealedRecords && actual.lineSum() == sealedSum ? Problem.Kind.RECORDS_REORDERED
          : Problem.Kind.MODIFIED;
    } else if (actual.records() > sealedRecords) {
      kind = Problem.Kind.RECORDS_INSERTED;
    } else if (actual.records() < sealedRecords) {
      kind = Problem.Kind.RECORDS_DELETED;
    } else {
      kind = Problem.Kind.MODIFIED;
    }
    return new Problem(kind, f, c, line, where + ": " + what, Math.abs(actual.records() - sealedRecords));
  }

  /**
   * The file's first sealed bytes differ: if they are the first sealed range of another file of the trail,
   * the files were swapped or renamed.
   */
  private Problem identifyFile(FileChannel ch, long size, Path f, Names names) throws IOException {
    for (int i : names.indices()) {
      Path other = names.file(i);
      if (other.equals(f.toAbsolutePath())) {
        continue;
      }
      Seal firstRange = firstNonEmptySeal(names.at(DigestFile.of(other)));
      if (firstRange != null && firstRange.to <= size && matches(digestOf(ch, 0, firstRange.to), firstRange)) {
        return new Problem(Problem.Kind.FILES_OUT_OF_ORDER, f, 0, 1, "it holds the records sealed for "
            + other.getFileName() + " (file " + firstRange.file + " of the trail): files were renamed or swapped",
            -1);
      }
    }
    return null;
  }

  private static Seal firstNonEmptySeal(Path digest) throws IOException {
    if (digest == null || !Files.isRegularFile(digest, LinkOption.NOFOLLOW_LINKS)) {
      return null;
    }
    for (String line : readLines(digest)) {
      try {
        Seal s = line == null ? null : Seal.parse(line);
        if (s != null && s.to > 0) {
          return s;
        }
      } catch (IllegalArgumentException e) {
        return null;
      }
    }
    return null;
  }

  /** The seals of digest {@code d} after {@code s} that parse, in order, stopping at the first that does not. */
  private static List<Seal> laterSeals(Path d, Seal s) throws IOException {
    List<Seal> out = new ArrayList<>();
    boolean after = false;
    for (String line : readLines(d)) {
      if (line == null) {
        break;
      }
      if (after) {
        try {
          out.add(Seal.parse(line));
        } catch (IllegalArgumentException e) {
          break;
        }
      } else if (line.equals(s.line())) {
        after = true;
      }
    }
    return out;
  }

  /** The digest's lines; an unfinished last line (no newline) is given as null. */
  private static List<String> readLines(Path digest) throws IOException {
    byte[] all = Files.readAllBytes(digest);
    List<String> out = new ArrayList<>();
    int start = 0;
    for (int i = 0; i < all.length; i++) {
      if (all[i] == '\n') {
        out.add(new String(all, start, i - start, StandardCharsets.UTF_8));
        start = i + 1;
      }
    }
    if (start < all.length) {
      out.add(null);
    }
    return out;
  }

  static SegmentDigest digestOf(FileChannel ch, long from, long to) throws IOException {
    SegmentDigest d = new SegmentDigest();
    ByteBuffer b = ByteBuffer.allocate(1 << 16);
    long pos = from;
    while (pos < to) {
      b.clear();
      b.limit((int) Math.min(b.capacity(), to - pos));
      int n = ch.read(b, pos);
      if (n < 0) {
        break;
      }
      b.flip();
      d.update(b);
      pos += n;
    }
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
