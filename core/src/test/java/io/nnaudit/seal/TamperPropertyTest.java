package io.nnaudit.seal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumMap;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.stream.Stream;

import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.nnaudit.config.NnauditConfigKeys;
import io.nnaudit.settings.NnauditSettings;
import io.nnaudit.sink.file.RollingFileSink;
import io.nnaudit.trail.TrailNames;
import io.nnaudit.verify.Problem;
import io.nnaudit.verify.Verification;
import io.nnaudit.verify.VerifyReport;

/**
 * Property: every change to a sealed trail is found, named by its kind and placed. Trails are written by the
 * real file sink with sealing on (several rotations, the oldest files expired, restarts, with and without an
 * unsealed tail); each case copies one, makes one random change of one of the kinds an attacker (or an
 * accident) makes, and runs the verifier. The case's seed is printed on failure: {@code -Dtamper.seed=S}
 * replays it, {@code -Dtamper.cases=N} runs more.
 *
 * <p>What "placed" means: for a change to the bytes of a file, the problem names that file and the first
 * byte of the sealed range that holds the change (a seal covers a range; verify narrows a change to it); for
 * a change to a digest, the digest and its line; for a missing, renamed or foreign file, that file (or, for a
 * chain broken between two files, one of them). The kind is exact, except where the change is in the last
 * sealed range of the live file and unsealed records follow it: there verify cannot tell which records the
 * change shifted, and may call it modified.
 */
class TamperPropertyTest {
  private static final int CASES = Integer.getInteger("tamper.cases", 1000);
  private static final long SEED = Long.getLong("tamper.seed", 0x5EA1ED5EEDL);

  @TempDir
  static Path work;
  static SealKeys.KeyFiles key;
  static SealKeys.KeyFiles otherKey;
  static SealKey checking;
  /** Trails written by the sink, copied for each case. */
  static final List<Path> templates = new ArrayList<>();
  static Path foreign;

  enum Change {
    FLIP_BYTE, DELETE_LINE, INSERT_LINE, DUPLICATE_LINE, SWAP_LINES, TRUNCATE, DELETE_FILE, DELETE_FILE_ONLY,
    DELETE_DIGEST_ONLY, RENAME_FILE, SWAP_FILES, SWAP_FILES_WITH_DIGESTS, FOREIGN_FILE, EDIT_SEAL, RESIGN,
    /** Records appended to the live file: after a close seal, or after a killed run's tail. */
    APPEND_RECORDS,
    /** A record of the live file changed and its digest deleted. */
    EDIT_LIVE_DELETE_DIGEST,
    /** A record changed and every digest deleted. */
    EDIT_DELETE_ALL_DIGESTS
  }

  /** What happens after the change, before verify: nothing, clean starts and stops, or a crash and a start. */
  enum After {
    NOTHING, RESTART, RESTARTS, CRASH_RESTART
  }

  @BeforeAll
  static void writeTrails() throws Exception {
    key = SealKeys.ec(work.resolve("keys"));
    otherKey = SealKeys.ec(work.resolve("other-keys"));
    checking = key.checkingKey();
    templates.add(writeTrail(work.resolve("t-closed"), 7, 0, 1, 11));
    templates.add(writeTrail(work.resolve("t-tail"), 5, 9, 1, 12));
    templates.add(writeTrail(work.resolve("t-restarts"), 13, 0, 4, 13));
    templates.add(writeTrail(work.resolve("t-restarts-tail"), 3, 4, 3, 14));
    templates.add(writeTrail(work.resolve("t-single"), 7, 0, 2, 16, "1m"));
    templates.add(writeTrail(work.resolve("t-single-tail"), 5, 6, 1, 17, "1m"));
    foreign = writeTrail(work.resolve("t-foreign"), 7, 0, 1, 15);
    for (Path t : templates) {
      VerifyReport r = Verification.report(checking, t.resolve("audit.log"));
      assertNull(r.tampering(), t + ": " + r.lines());
      assertTrue(r.files() >= (t.getFileName().toString().startsWith("t-single") ? 1 : 4), t + ": " + r.lines());
    }
  }

  static Path writeTrail(Path dir, int interval, int tail, int runs, long seed) throws Exception {
    return writeTrail(dir, interval, tail, runs, seed, "3k");
  }

  /**
   * A trail (of several files, when {@code maxSize} is small): records of random lengths (all different) written
   * in batches through the sink, closed and reopened {@code runs} times; with a {@code tail}, the last run is
   * not closed but left as a kill leaves it: everything it wrote sealed, then {@code tail} records written after
   * its last seal that it never hashed.
   */
  static Path writeTrail(Path dir, int interval, int tail, int runs, long seed, String maxSize) throws Exception {
    Files.createDirectories(dir);
    Random rnd = new Random(seed);
    File f = dir.resolve("audit.log").toFile();
    int n = 0;
    for (int run = 0; run < runs; run++) {
      Configuration c = new Configuration(false);
      c.set(NnauditConfigKeys.FILE_PATH_KEY, f.getPath());
      c.set(NnauditConfigKeys.FILE_MAX_SIZE_KEY, maxSize);
      c.setInt(NnauditConfigKeys.FILE_MAX_BACKUPS_KEY, 4);
      c.setInt(NnauditConfigKeys.SEAL_INTERVAL_RECORDS_KEY, interval);
      c.setLong(NnauditConfigKeys.SEAL_INTERVAL_MS_KEY, 86_400_000L); // no seal by time: the test says when
      SealKeys.enable(c, key, work);
      RollingFileSink sink = new RollingFileSink(NnauditSettings.fromConf(c).sinkContext());
      for (int b = 0; b < 120 / runs; b++) {
        StringBuilder batch = new StringBuilder();
        for (int i = 1 + rnd.nextInt(4); i > 0; i--) {
          batch.append(record(n++, rnd));
        }
        sink.write(ByteBuffer.wrap(batch.toString().getBytes(StandardCharsets.UTF_8)));
      }
      if (tail > 0 && run == runs - 1) {
        sink.seal(); // all it wrote sealed; then killed: never closed (its sealing thread has nothing to seal)
      } else {
        sink.close();
      }
    }
    StringBuilder t = new StringBuilder();
    for (int i = 0; i < tail; i++) {
      t.append(record(n++, rnd));
    }
    Files.write(f.toPath(), t.toString().getBytes(StandardCharsets.UTF_8), java.nio.file.StandardOpenOption.APPEND);
    return dir;
  }

  static String record(int n, Random rnd) {
    StringBuilder b = new StringBuilder(String.format("2026-11-23 10:00:%02d,%03d INFO FSNamesystem.audit: allowed=true"
        + "\tugi=u%d\tip=/10.0.0.%d\tcmd=mkdirs\tsrc=/d/%08d", n % 60, n % 1000, n % 7, n % 250, n));
    for (int i = rnd.nextInt(60); i > 0; i--) {
      b.append((char) ('a' + rnd.nextInt(26)));
    }
    return b.append("\tdst=null\tperm=u:g:rwxr-xr-x\tproto=rpc\n").toString();
  }

  @Test
  void untouchedTrailsVerify() throws Exception {
    for (Path t : templates) {
      VerifyReport r = Verification.report(checking, t.resolve("audit.log"));
      assertNull(r.tampering(), r.lines().toString());
      boolean tail = t.getFileName().toString().contains("tail");
      assertEquals(tail ? VerifyReport.UNSEALED : VerifyReport.VERIFIED, r.exitCode(), r.lines().toString());
    }
  }

  @Test
  void everyChangeIsFoundNamedAndPlaced() throws Exception {
    Map<Change, Integer> made = new EnumMap<>(Change.class);
    Map<Problem.Kind, Integer> reported = new EnumMap<>(Problem.Kind.class);
    Map<After, Integer> madeAfter = new EnumMap<>(After.class);
    Long only = Long.getLong("tamper.seed.only");
    for (int i = 0; i < CASES; i++) {
      long seed = only != null ? only : SEED + i;
      Random rnd = new Random(seed);
      Path template = templates.get(rnd.nextInt(templates.size()));
      Path dir = work.resolve("case");
      deleteTree(dir);
      copyTree(template, dir);
      Trail trail = new Trail(dir.resolve("audit.log"));
      Change change = Change.values()[rnd.nextInt(Change.values().length)];
      Expected want;
      try {
        want = apply(change, trail, rnd);
      } catch (RuntimeException | AssertionError e) {
        throw new AssertionError("case seed " + seed + " (" + change + " on " + template.getFileName() + ")", e);
      }
      if (want == null) {
        continue; // this trail offers no place for this change (retried with other seeds)
      }
      After after = After.values()[rnd.nextInt(After.values().length)];
      Path verified = restart(after, dir, work.resolve("crash-image"));
      VerifyReport r = Verification.report(checking, verified.resolve("audit.log"));
      Problem p = r.tampering();
      String context = "case seed " + seed + ": " + change + " on " + template.getFileName() + ", then " + after
          + " (" + want + ")\n" + String.join("\n", r.lines());
      madeAfter.merge(after, 1, Integer::sum);
      if (want.exit == VerifyReport.UNSEALED) {
        assertNull(p, "a change verify can only call unsealed, called a change: " + context);
        assertEquals(VerifyReport.UNSEALED, r.exitCode(), "never verified: " + context);
        made.merge(change, 1, Integer::sum);
        continue;
      }
      assertNotNull(p, "a change passed: " + context);
      assertEquals(VerifyReport.TAMPERED, r.exitCode(), context);
      Set<Problem.Kind> kinds = EnumSet.copyOf(want.kinds);
      if (after != After.NOTHING && kinds.contains(Problem.Kind.TRUNCATED)) {
        // a start ends the cut record's line before it writes (its own bytes are then recorded as found): the
        // cut is then a shorter record, and fewer records, where the file was cut
        kinds.add(Problem.Kind.RECORDS_DELETED);
        kinds.add(Problem.Kind.MODIFIED);
      }
      assertTrue(kinds.contains(p.kind), "kind " + p.kind + ", expected " + want.kinds + ": " + context);
      assertTrue(want.files.contains(p.file.getFileName().toString()), "file " + p.file.getFileName() + ": " + context);
      if (want.offset >= 0) {
        assertEquals(want.offset, p.offset, "offset: " + context);
      }
      if (want.line > 0) {
        assertEquals(want.line, p.line, "line: " + context);
      }
      made.merge(change, 1, Integer::sum);
      reported.merge(p.kind, 1, Integer::sum);
      if (only != null) {
        break;
      }
    }
    System.out.println("tamper cases by change: " + made + "\nreported kinds: " + reported + "\nthen: " + madeAfter);
    if (only == null) {
      for (Change c : Change.values()) {
        assertTrue(made.getOrDefault(c, 0) >= CASES / Change.values().length / 3, "too few cases of " + c + ": "
            + made);
      }
    }
  }

  /** What verify must report for a change. */
  static final class Expected {
    final Set<Problem.Kind> kinds;
    final Set<String> files;
    final long offset;
    final long line;
    /** 1 (tampered, as kinds, files, offset and line say), or 2: a change verify can only call unsealed. */
    final int exit;

    Expected(Set<Problem.Kind> kinds, List<String> files, long offset, long line) {
      this(kinds, files, offset, line, VerifyReport.TAMPERED);
    }

    Expected(Set<Problem.Kind> kinds, List<String> files, long offset, long line, int exit) {
      this.kinds = kinds;
      this.files = new java.util.HashSet<>(files);
      this.offset = offset;
      this.line = line;
      this.exit = exit;
    }

    /** Unsealed or sealed late, never verified: what deleting digests, or a killed run's tail, leaves. */
    static Expected notVerified() {
      return new Expected(EnumSet.noneOf(Problem.Kind.class), List.of(), -1, -1, VerifyReport.UNSEALED);
    }

    @Override
    public String toString() {
      return "expect exit " + exit + ", " + kinds + " in " + files + (offset >= 0 ? " at byte " + offset : "")
          + (line > 0 ? " line " + line : "");
    }
  }

  /** A copied trail: its files, and what their digests say. */
  static final class Trail {
    final Path live;
    /** Present indices, oldest first (0 is the live file). */
    final List<Integer> indices = new ArrayList<>();

    Trail(Path live) throws Exception {
      this.live = live;
      for (int i = 20; i >= 0; i--) {
        if (Files.exists(file(i))) {
          indices.add(i);
        }
      }
    }

    Path file(int i) {
      return i == 0 ? live : live.resolveSibling("audit.log." + i);
    }

    Path digest(int i) {
      return TrailNames.digest(file(i));
    }

    List<Seal> seals(int i) throws Exception {
      List<Seal> out = new ArrayList<>();
      for (String l : Files.readAllLines(digest(i))) {
        out.add(Seal.parse(l));
      }
      return out;
    }

    long sealedEnd(int i) throws Exception {
      List<Seal> s = seals(i);
      return s.isEmpty() ? 0 : s.get(s.size() - 1).to;
    }

    boolean hasTail(int i) throws Exception {
      return Files.size(file(i)) > sealedEnd(i);
    }

    /** The start of the non-empty sealed range holding byte {@code p}, and the line it starts at. */
    long[] rangeOf(int i, long p) throws Exception {
      long line = 1;
      for (Seal s : seals(i)) {
        if (s.from <= p && p < s.to) {
          return new long[] {s.from, line};
        }
        line += s.records;
      }
      throw new IllegalStateException("byte " + p + " is not sealed");
    }

    boolean inLastRange(int i, long p) throws Exception {
      List<Seal> s = seals(i);
      return p >= s.get(s.size() - 1).from;
    }

    /** [start, end) of each line wholly in the sealed bytes. */
    List<long[]> sealedLines(int i) throws Exception {
      byte[] b = Files.readAllBytes(file(i));
      long end = sealedEnd(i);
      List<long[]> out = new ArrayList<>();
      int start = 0;
      for (int k = 0; k < end; k++) {
        if (b[k] == '\n') {
          out.add(new long[] {start, k + 1});
          start = k + 1;
        }
      }
      return out;
    }

    List<Integer> rotated() {
      List<Integer> out = new ArrayList<>(indices);
      out.remove(Integer.valueOf(0));
      return out;
    }
  }

  /**
   * Starts and stops the sink on the changed trail as {@code after} says, and returns the directory to verify:
   * the trail itself, or, for a crash, the image a kill of the restarted run leaves (the files as they are while
   * it runs), which is then started and stopped once more.
   */
  static Path restart(After after, Path dir, Path image) throws Exception {
    switch (after) {
      case NOTHING:
        return dir;
      case RESTART:
        openSink(dir).close();
        return dir;
      case RESTARTS:
        openSink(dir).close();
        openSink(dir).close();
        openSink(dir).close();
        return dir;
      default: {
        RollingFileSink running = openSink(dir);
        running.seal(); // the start's own seal is written; a kill now leaves the files as they are
        deleteTree(image);
        copyTree(dir, image);
        running.close();
        openSink(image).close();
        return image;
      }
    }
  }

  /** Sink settings by trail directory: the keystore is read once, not at every start of a case. */
  private static final Map<Path, io.nnaudit.sink.SinkContext> SINKS = new java.util.HashMap<>();
  private static SealKeys.KeyFiles sinksKey;

  static RollingFileSink openSink(Path dir) throws Exception {
    if (sinksKey != key) { // another test's keys
      SINKS.clear();
      sinksKey = key;
    }
    io.nnaudit.sink.SinkContext context = SINKS.get(dir);
    if (context == null) {
      context = sinkContext(dir);
      SINKS.put(dir, context);
    }
    return new RollingFileSink(context);
  }

  private static io.nnaudit.sink.SinkContext sinkContext(Path dir) throws Exception {
    Configuration c = new Configuration(false);
    c.set(NnauditConfigKeys.FILE_PATH_KEY, dir.resolve("audit.log").toString());
    c.set(NnauditConfigKeys.FILE_MAX_SIZE_KEY, "3k");
    c.setInt(NnauditConfigKeys.FILE_MAX_BACKUPS_KEY, 4);
    c.setInt(NnauditConfigKeys.SEAL_INTERVAL_RECORDS_KEY, 5);
    SealKeys.enable(c, key, work);
    return NnauditSettings.fromConf(c).sinkContext();
  }

  /** Makes the change; returns what verify must say, or null when this trail has no place for it. */
  static Expected apply(Change change, Trail t, Random rnd) throws Exception {
    int i = t.indices.get(rnd.nextInt(t.indices.size()));
    Path f = t.file(i);
    String name = f.getFileName().toString();
    List<long[]> lines = t.sealedLines(i);
    byte[] b = Files.readAllBytes(f);
    boolean looseEnd = i == 0 && t.hasTail(0);
    switch (change) {
      case FLIP_BYTE: {
        long p = (long) (rnd.nextDouble() * t.sealedEnd(i));
        b[(int) p] ^= (byte) (1 + rnd.nextInt(255));
        Files.write(f, b);
        long[] r = t.rangeOf(i, p);
        return new Expected(EnumSet.of(Problem.Kind.MODIFIED), List.of(name), r[0], r[1]);
      }
      case DELETE_LINE: {
        long[] l = lines.get(rnd.nextInt(lines.size()));
        Files.write(f, concat(slice(b, 0, l[0]), slice(b, l[1], b.length)));
        long[] r = t.rangeOf(i, l[0]);
        boolean lastSealedLine = l[1] == t.sealedEnd(i);
        return new Expected(looseEnd && lastSealedLine ? EnumSet.of(Problem.Kind.RECORDS_DELETED, Problem.Kind.MODIFIED)
            : EnumSet.of(Problem.Kind.RECORDS_DELETED), List.of(name), r[0], r[1]);
      }
      case INSERT_LINE:
      case DUPLICATE_LINE: {
        // a new record before a sealed one, or a copy of a sealed record put after it (before the next)
        long[] l = lines.get(rnd.nextInt(lines.size()));
        boolean copy = change == Change.DUPLICATE_LINE;
        if (copy && l[1] == t.sealedEnd(i)) {
          return null; // after the last sealed record: the records after it are unsealed, or the file closed
        }
        byte[] extra = copy ? slice(b, l[0], l[1])
            : record(900_000 + rnd.nextInt(1000), rnd).getBytes(StandardCharsets.UTF_8);
        long at = copy ? l[1] : l[0];
        Files.write(f, concat(slice(b, 0, at), extra, slice(b, at, b.length)));
        long[] r = t.rangeOf(i, at);
        return new Expected(EnumSet.of(Problem.Kind.RECORDS_INSERTED), List.of(name), r[0], r[1]);
      }
      case SWAP_LINES: {
        if (lines.size() < 2) {
          return null;
        }
        int x = rnd.nextInt(lines.size());
        int y = rnd.nextInt(lines.size() - 1);
        y = y >= x ? y + 1 : y;
        long[] a = lines.get(Math.min(x, y));
        long[] c = lines.get(Math.max(x, y));
        Files.write(f, concat(slice(b, 0, a[0]), slice(b, c[0], c[1]), slice(b, a[1], c[0]), slice(b, a[0], a[1]),
            slice(b, c[1], b.length)));
        long[] r = t.rangeOf(i, a[0]);
        return new Expected(EnumSet.of(Problem.Kind.RECORDS_REORDERED), List.of(name), r[0], r[1]);
      }
      case TRUNCATE: {
        long end = t.sealedEnd(i);
        if (end < 2) {
          return null;
        }
        long p = 1 + (long) (rnd.nextDouble() * (end - 1));
        Files.write(f, slice(b, 0, p));
        long[] r = t.rangeOf(i, p == end ? p - 1 : p);
        boolean atBoundary = b[(int) p - 1] == '\n';
        return new Expected(atBoundary ? EnumSet.of(Problem.Kind.TRUNCATED, Problem.Kind.RECORDS_DELETED)
            : EnumSet.of(Problem.Kind.TRUNCATED), List.of(name), r[0], r[1]);
      }
      default:
        return applyToFiles(change, t, rnd);
    }
  }

  static Expected applyToFiles(Change change, Trail t, Random rnd) throws Exception {
    switch (change) {
      case APPEND_RECORDS: {
        long end = Files.size(t.live);
        boolean killed = t.hasTail(0);
        StringBuilder more = new StringBuilder();
        for (int k = 1 + rnd.nextInt(500); k > 0; k--) {
          more.append(record(800_000 + k, rnd));
        }
        Files.write(t.live, more.toString().getBytes(StandardCharsets.UTF_8), java.nio.file.StandardOpenOption.APPEND);
        // after a close seal: inserted, wherever; after a killed run's tail: as much as it may have left, unsealed
        return killed ? Expected.notVerified()
            : new Expected(EnumSet.of(Problem.Kind.RECORDS_INSERTED), List.of("audit.log"), end, -1);
      }
      case EDIT_LIVE_DELETE_DIGEST:
      case EDIT_DELETE_ALL_DIGESTS: {
        long end = t.sealedEnd(0);
        if (end == 0) {
          return null;
        }
        byte[] b = Files.readAllBytes(t.live);
        int p = (int) (rnd.nextDouble() * end);
        b[p] = b[p] == (byte) 'x' ? (byte) 'y' : (byte) 'x';
        Files.write(t.live, b);
        for (int k : change == Change.EDIT_LIVE_DELETE_DIGEST ? List.of(0) : t.indices) {
          Files.delete(t.digest(k));
        }
        return Expected.notVerified();
      }
      default:
        break;
    }
    List<Integer> rotated = t.rotated();
    if (rotated.isEmpty()) {
      return null; // a trail of one file: no rotated file to delete, rename, swap or replace
    }
    int i = rotated.get(rnd.nextInt(rotated.size()));
    String name = t.file(i).getFileName().toString();
    switch (change) {
      case DELETE_FILE:
        Files.delete(t.file(i));
        Files.delete(t.digest(i));
        return new Expected(EnumSet.of(Problem.Kind.FILE_MISSING), List.of(name), -1, -1);
      case DELETE_FILE_ONLY:
        Files.delete(t.file(i));
        return new Expected(EnumSet.of(Problem.Kind.FILE_MISSING), List.of(name), -1, -1);
      case DELETE_DIGEST_ONLY:
        Files.delete(t.digest(i));
        return new Expected(EnumSet.of(Problem.Kind.DIGEST_MISSING), List.of(name), -1, -1);
      case RENAME_FILE: {
        int oldest = t.indices.get(0);
        if (i == oldest) {
          return null; // renamed further up, the oldest keeps its place in the order: nothing changed
        }
        boolean withDigest = rnd.nextBoolean();
        int to = oldest + 1 + rnd.nextInt(3);
        Files.move(t.file(i), t.file(to));
        if (withDigest) {
          Files.move(t.digest(i), t.digest(to));
        }
        return new Expected(EnumSet.of(Problem.Kind.FILES_OUT_OF_ORDER, Problem.Kind.FILE_MISSING,
            Problem.Kind.DIGEST_MISSING), names(t, i, to, oldest), -1, -1);
      }
      case SWAP_FILES:
      case SWAP_FILES_WITH_DIGESTS: {
        int j = rotated.get(rnd.nextInt(rotated.size()));
        if (j == i) {
          return null;
        }
        swap(t.file(i), t.file(j));
        if (change == Change.SWAP_FILES_WITH_DIGESTS) {
          swap(t.digest(i), t.digest(j));
          return new Expected(EnumSet.of(Problem.Kind.FILES_OUT_OF_ORDER, Problem.Kind.FILE_MISSING),
              names(t, i, j, Math.max(i, j) + 1), -1, -1);
        }
        return new Expected(EnumSet.of(Problem.Kind.FILES_OUT_OF_ORDER), List.of(t.file(Math.max(i, j))
            .getFileName().toString()), 0, 1);
      }
      case FOREIGN_FILE: {
        Path other = foreign.resolve(t.file(i).getFileName());
        if (!Files.exists(other)) {
          return null;
        }
        Files.copy(other, t.file(i), StandardCopyOption.REPLACE_EXISTING);
        Files.copy(TrailNames.digest(other), t.digest(i), StandardCopyOption.REPLACE_EXISTING);
        return new Expected(EnumSet.of(Problem.Kind.FOREIGN_FILE), List.of(name), -1, -1);
      }
      case EDIT_SEAL: {
        int d = t.indices.get(rnd.nextInt(t.indices.size()));
        List<String> lines = Files.readAllLines(t.digest(d));
        int l = rnd.nextInt(lines.size());
        char[] text = lines.get(l).toCharArray();
        int pos = rnd.nextInt(text.length);
        char was = text[pos];
        do {
          text[pos] = (char) (' ' + 1 + rnd.nextInt(94)); // printable, no space
        } while (text[pos] == was);
        lines.set(l, new String(text));
        Files.write(t.digest(d), lines);
        return new Expected(EnumSet.of(Problem.Kind.BAD_SIGNATURE, Problem.Kind.SEAL_ALTERED),
            List.of(t.digest(d).getFileName().toString()), -1, l + 1);
      }
      case RESIGN: {
        SealKey forger = otherKey.signingKey();
        String prev = null;
        for (int k : t.indices) {
          List<String> out = new ArrayList<>();
          for (Seal s : t.seals(k)) {
            Seal r = Seal.unsigned(s.trail, s.file, s.oldest, s.number, s.kind, s.from, s.to, s.records, s.lineSum,
                s.lastLine, hexBytes(s.sha256), s.sinceMillis, s.timeMillis, prev == null ? s.prev : prev)
                .signedWith(forger);
            prev = r.hash();
            out.add(r.line());
          }
          Files.write(t.digest(k), out);
        }
        return new Expected(EnumSet.of(Problem.Kind.BAD_SIGNATURE),
            List.of(t.digest(t.indices.get(0)).getFileName().toString()), -1, 1);
      }
      default:
        throw new IllegalStateException(change.toString());
    }
  }

  private static List<String> names(Trail t, int... indices) {
    List<String> out = new ArrayList<>();
    for (int i : indices) {
      out.add(t.file(i).getFileName().toString());
    }
    for (int i : t.indices) { // a chain broken between two files may be reported at the file after the break
      out.add(t.file(i).getFileName().toString());
    }
    return out;
  }

  static byte[] hexBytes(String hex) {
    byte[] out = new byte[hex.length() / 2];
    for (int i = 0; i < out.length; i++) {
      out[i] = (byte) Integer.parseInt(hex.substring(2 * i, 2 * i + 2), 16);
    }
    return out;
  }

  private static void swap(Path a, Path b) throws Exception {
    Path tmp = a.resolveSibling("swap.tmp");
    Files.move(a, tmp);
    Files.move(b, a);
    Files.move(tmp, b);
  }

  static byte[] slice(byte[] b, long from, long to) {
    return Arrays.copyOfRange(b, (int) from, (int) to);
  }

  static byte[] concat(byte[]... parts) {
    int n = 0;
    for (byte[] p : parts) {
      n += p.length;
    }
    byte[] out = new byte[n];
    int at = 0;
    for (byte[] p : parts) {
      System.arraycopy(p, 0, out, at, p.length);
      at += p.length;
    }
    return out;
  }

  static void copyTree(Path from, Path to) throws Exception {
    Files.createDirectories(to);
    try (Stream<Path> s = Files.list(from)) {
      for (Path p : (Iterable<Path>) s::iterator) {
        Files.copy(p, to.resolve(p.getFileName()));
      }
    }
  }

  static void deleteTree(Path dir) throws Exception {
    if (!Files.exists(dir)) {
      return;
    }
    try (Stream<Path> s = Files.list(dir)) {
      for (Path p : (Iterable<Path>) s::iterator) {
        Files.delete(p);
      }
    }
    Files.delete(dir);
  }

}
