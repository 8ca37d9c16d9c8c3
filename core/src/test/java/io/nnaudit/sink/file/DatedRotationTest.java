package io.nnaudit.sink.file;

import static io.nnaudit.sink.SinkFixtures.write;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.FileTime;
import java.time.Instant;
import java.util.List;
import java.util.TreeSet;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import io.nnaudit.TestFiles;
import io.nnaudit.config.NnauditConfigKeys;
import io.nnaudit.seal.SealKeyFixture;
import io.nnaudit.seal.SealKeys;
import io.nnaudit.settings.NnauditSettings;
import io.nnaudit.sink.MovableClock;
import io.nnaudit.sink.SinkContext;
import io.nnaudit.trail.TrailNames;
import io.nnaudit.verify.Verification;
import io.nnaudit.verify.VerifyReport;

/**
 * Rotated files named by their period: the day (or hour) of their last record and a sequence within it; names
 * kept through later rotations; the oldest deleted by count; DailyRollingFileAppender's names; a rotation killed
 * half-way finished under its dated name; and sealed trails that verify, and do not once files are renamed
 * across days or a day is deleted.
 */
class DatedRotationTest {
  @RegisterExtension
  static final SealKeyFixture ec = new SealKeyFixture();

  @TempDir
  Path dir;

  private Path audit;

  private SinkContext context(String names, String period, String maxSize, int backups, MovableClock clock)
      throws Exception {
    return context(names, period, maxSize, backups, clock, "UTC");
  }

  private SinkContext context(String names, String period, String maxSize, int backups, MovableClock clock,
      String zone) throws Exception {
    audit = dir.resolve("audit.log");
    Configuration c = new Configuration(false);
    c.set(NnauditConfigKeys.FILE_PATH_KEY, audit.toString());
    c.set(NnauditConfigKeys.FILE_ROTATE_PERIOD_KEY, period);
    c.set(NnauditConfigKeys.FILE_ROTATE_ZONE_KEY, zone);
    c.set(NnauditConfigKeys.FILE_ROTATED_NAMES_KEY, names);
    c.set(NnauditConfigKeys.FILE_MAX_SIZE_KEY, maxSize);
    c.setInt(NnauditConfigKeys.FILE_MAX_BACKUPS_KEY, backups);
    SealKeys.enable(c, ec, dir);
    return NnauditSettings.fromConf(c).sinkContext().withWallClock(clock);
  }

  /** Writes one 100-byte record at {@code iso}, and gives the live file that time as its last write. */
  private void record(RollingFileSink sink, MovableClock clock, String iso, String tag) throws Exception {
    clock.set(iso);
    write(sink, String.format("%-99s\n", tag + " " + iso));
    Files.setLastModifiedTime(audit, FileTime.from(Instant.parse(iso)));
  }

  private TreeSet<String> auditNames() throws Exception {
    try (Stream<Path> s = Files.list(dir)) {
      return s.map(p -> p.getFileName().toString()).filter(n -> n.startsWith("audit.log"))
          .collect(Collectors.toCollection(TreeSet::new));
    }
  }

  private List<String> tags(String name) throws Exception {
    return TestFiles.lines(dir.resolve(name).toFile()).stream().map(l -> l.substring(0, l.indexOf(' ')))
        .collect(Collectors.toList());
  }

  @Test
  void dailyFilesAreNamedByTheirDayWithASequenceForEachRotationBySize() throws Exception {
    MovableClock clock = new MovableClock("2026-11-24T08:00:00Z");
    RollingFileSink sink = new RollingFileSink(context("dated", "daily", "1k", 20, clock));
    for (int i = 0; i < 12; i++) { // 1100 bytes (past 1k) before the 12th record: one rotation by size
      record(sink, clock, String.format("2026-11-24T%02d:00:00Z", 8 + i), "a" + i);
    }
    record(sink, clock, "2026-11-25T01:00:00Z", "b0"); // after midnight: the 24th's second file closes
    record(sink, clock, "2026-11-26T01:00:00Z", "c0");
    sink.close();
    assertEquals(new TreeSet<>(List.of("audit.log", "audit.log.seals", "audit.log.2026-11-24.1",
        "audit.log.2026-11-24.1.seals", "audit.log.2026-11-24.2", "audit.log.2026-11-24.2.seals",
        "audit.log.2026-11-25.1", "audit.log.2026-11-25.1.seals")), auditNames());
    assertEquals(List.of("a0", "a1", "a2", "a3", "a4", "a5", "a6", "a7", "a8", "a9", "a10"),
        tags("audit.log.2026-11-24.1"));
    assertEquals(List.of("a11"), tags("audit.log.2026-11-24.2"));
    assertEquals(List.of("b0"), tags("audit.log.2026-11-25.1"));
    assertEquals(List.of("c0"), tags("audit.log"));
    VerifyReport r = Verification.report(ec.checkingKey(), audit);
    assertEquals(VerifyReport.VERIFIED, r.exitCode(), r.toString());
    assertEquals(0, Verification.withCert(ec, dir.toString()).code, "a directory of dated files verifies");
  }

  @Test
  void theOldestDatedFilesGoByCountAndTheRestKeepTheirNames() throws Exception {
    MovableClock clock = new MovableClock("2026-11-01T12:00:00Z");
    RollingFileSink sink = new RollingFileSink(context("dated", "daily", "256m", 3, clock));
    for (int d = 1; d <= 7; d++) {
      record(sink, clock, String.format("2026-11-%02dT12:00:00Z", d), "d" + d);
    }
    sink.close();
    TreeSet<String> names = auditNames();
    assertTrue(names.contains("audit.log.2026-11-06.1") && names.contains("audit.log.2026-11-04.1"), names.toString());
    assertFalse(names.contains("audit.log.2026-11-03.1"), "three kept: the 4th, 5th and 6th");
    assertEquals(VerifyReport.VERIFIED, Verification.report(ec.checkingKey(), audit).exitCode());
  }

  @Test
  void dailyRollingFileAppendersNamesAndAnHourlyPattern() throws Exception {
    MovableClock clock = new MovableClock("2026-11-24T08:00:00Z");
    RollingFileSink sink = new RollingFileSink(context(".%d{yyyy-MM-dd}", "daily", "1k", 20, clock));
    for (int i = 0; i < 12; i++) {
      record(sink, clock, String.format("2026-11-24T%02d:00:00Z", 8 + i), "a" + i);
    }
    record(sink, clock, "2026-11-25T01:00:00Z", "b0");
    sink.close();
    TreeSet<String> names = auditNames();
    assertTrue(names.contains("audit.log.2026-11-24"), "the first of the day has the bare name: " + names);
    assertTrue(names.contains("audit.log.2026-11-24.2"), names.toString());
    Verification.Run drfa = Verification.withCert(ec, dir.toString());
    assertEquals(0, drfa.code, drfa.toString());

    Path hourly = dir.resolve("h");
    Files.createDirectories(hourly);
    dir = hourly;
    MovableClock c2 = new MovableClock("2026-11-24T08:10:00Z");
    RollingFileSink h = new RollingFileSink(context("-%d{yyyyMMdd-HH}-%i", "hourly", "256m", 20, c2));
    record(h, c2, "2026-11-24T08:10:00Z", "h8");
    record(h, c2, "2026-11-24T09:10:00Z", "h9");
    record(h, c2, "2026-11-24T10:10:00Z", "h10");
    h.close();
    assertTrue(auditNames().containsAll(List.of("audit.log-20261124-08-1", "audit.log-20261124-09-1")));
    assertTrue(Verification.withCert(ec, hourly.toString()).code != 0, "a pattern of its own is not guessed");
    Verification.Run given = Verification.withCert(ec, "--names", "-%d{yyyyMMdd-HH}-%i", hourly.toString());
    assertEquals(0, given.code, "and verifies when given: " + given);
    assertTrue(Verification.withCert(ec, "--names", "-%d{yyyy-MM-dd-HH}-%i", hourly.toString()).code != 0,
        "another pattern does not place these files");
    Verification.Run bad = Verification.withCert(ec, "--names", ".%i", hourly.toString());
    assertEquals(3, bad.code, "not a pattern: a usage error, " + bad);
    assertTrue(bad.output.contains("no %d{...} date"), bad.output);
  }

  @Test
  void aRotationKilledHalfWayIsFinishedUnderItsDatedName() throws Exception {
    MovableClock clock = new MovableClock("2026-11-24T08:00:00Z");
    RollingFileSink sink = new RollingFileSink(context("dated", "daily", "256m", 20, clock));
    record(sink, clock, "2026-11-24T08:00:00Z", "a0");
    record(sink, clock, "2026-11-25T08:00:00Z", "b0");
    sink.close();
    // What a kill leaves after the live file (and its digest) took the rotation's temporary name.
    Path staged = TrailNames.staged(audit, "1764057600000");
    Files.move(audit, staged);
    Files.move(TrailNames.digest(audit), TrailNames.digest(staged));
    VerifyReport read = Verification.report(ec.checkingKey(), audit);
    assertTrue(read.exitCode() != VerifyReport.TAMPERED, "a half-done rotation is not a change: " + read);
    RollingFileSink next = new RollingFileSink(context("dated", "daily", "256m", 20, clock));
    record(next, clock, "2026-11-25T09:00:00Z", "b1");
    next.close();
    TreeSet<String> names = auditNames();
    assertTrue(names.contains("audit.log.2026-11-25.1") && names.contains("audit.log.2026-11-25.1.seals"),
        "the staged file took its day's next name: " + names);
    assertFalse(names.stream().anyMatch(n -> n.contains("rotating")), names.toString());
    assertEquals(List.of("b0"), tags("audit.log.2026-11-25.1"));
    VerifyReport after = Verification.report(ec.checkingKey(), audit, true);
    assertEquals(VerifyReport.VERIFIED, after.exitCode(), after.toString());
  }

  @Test
  void filesRenamedAcrossDaysOrADeletedDayAreChanges() throws Exception {
    MovableClock clock = new MovableClock("2026-11-01T12:00:00Z");
    RollingFileSink sink = new RollingFileSink(context("dated", "daily", "256m", 20, clock));
    for (int d = 1; d <= 5; d++) {
      record(sink, clock, String.format("2026-11-%02dT12:00:00Z", d), "d" + d);
    }
    sink.close();
    assertEquals(VerifyReport.VERIFIED, Verification.report(ec.checkingKey(), audit).exitCode());
    // The 2nd and 3rd swap names, each with its digest.
    swap("audit.log.2026-11-02.1", "audit.log.2026-11-03.1");
    swap("audit.log.2026-11-02.1.seals", "audit.log.2026-11-03.1.seals");
    VerifyReport swapped = Verification.report(ec.checkingKey(), audit);
    assertEquals(VerifyReport.TAMPERED, swapped.exitCode(), swapped.toString());
    Verification.Run swappedRun = Verification.withCert(ec, audit.toString());
    assertTrue(swappedRun.output.contains("files out of order"), swappedRun.toString());
    swap("audit.log.2026-11-02.1", "audit.log.2026-11-03.1");
    swap("audit.log.2026-11-02.1.seals", "audit.log.2026-11-03.1.seals");
    assertEquals(VerifyReport.VERIFIED, Verification.report(ec.checkingKey(), audit).exitCode());
    // A day moved to another day's name, with its digest.
    Files.move(dir.resolve("audit.log.2026-11-03.1"), dir.resolve("audit.log.2026-11-05.1"));
    Files.move(dir.resolve("audit.log.2026-11-03.1.seals"), dir.resolve("audit.log.2026-11-05.1.seals"));
    VerifyReport moved = Verification.report(ec.checkingKey(), audit);
    assertTrue(moved.exitCode() != VerifyReport.VERIFIED, moved.toString());
    Files.move(dir.resolve("audit.log.2026-11-05.1"), dir.resolve("audit.log.2026-11-03.1"));
    Files.move(dir.resolve("audit.log.2026-11-05.1.seals"), dir.resolve("audit.log.2026-11-03.1.seals"));
    // A middle day deleted, file and digest.
    Files.delete(dir.resolve("audit.log.2026-11-02.1"));
    Files.delete(dir.resolve("audit.log.2026-11-02.1.seals"));
    VerifyReport deleted = Verification.report(ec.checkingKey(), audit);
    assertEquals(VerifyReport.TAMPERED, deleted.exitCode(), deleted.toString());
    Verification.Run deletedRun = Verification.withCert(ec, audit.toString());
    assertTrue(deletedRun.output.contains("missing"), deletedRun.toString());
  }

  @Test
  void compressedDatedFilesVerifyAndAReplacedOneIsNamed() throws Exception {
    MovableClock clock = new MovableClock("2026-11-01T12:00:00Z");
    RollingFileSink sink = new RollingFileSink(context("dated", "daily", "256m", 20, clock));
    for (int d = 1; d <= 4; d++) {
      record(sink, clock, String.format("2026-11-%02dT12:00:00Z", d), "d" + d);
    }
    sink.close();
    for (int d = 1; d <= 3; d++) {
      gzip(dir.resolve(String.format("audit.log.2026-11-%02d.1", d)), null);
    }
    Verification.Run clean = Verification.withCert(ec, dir.toString());
    assertEquals(0, clean.code, clean.toString());
    Path second = dir.resolve("audit.log.2026-11-02.1.gz");
    byte[] edited;
    try (java.io.InputStream in = new java.util.zip.GZIPInputStream(Files.newInputStream(second))) {
      edited = in.readAllBytes();
    }
    edited[3] = (byte) 'X';
    gzip(second, edited);
    Verification.Run replaced = Verification.withCert(ec, dir.toString());
    assertEquals(1, replaced.code, replaced.toString());
    assertTrue(replaced.output.contains("audit.log.2026-11-02.1.gz"), replaced.toString());
  }

  @Test
  void aKillBetweenAnExpiringFileAndItsDigestLeavesNoNameReusedAndNoChange() throws Exception {
    MovableClock clock = new MovableClock("2026-11-24T08:00:00Z");
    RollingFileSink sink = new RollingFileSink(context("dated", "daily", "1k", 1, clock));
    for (int i = 0; i < 22; i++) { // the 24th's first file (a0-a10), then 1100 bytes of its second
      record(sink, clock, String.format("2026-11-24T08:%02d:00Z", i), "a" + i);
    }
    Path first = dir.resolve("audit.log.2026-11-24.1");
    Path keptFile = dir.resolve("kept-file");
    Path keptDigest = dir.resolve("kept-digest");
    Files.copy(first, keptFile);
    Files.copy(TrailNames.digest(first), keptDigest);
    sink.idle(); // rotates by size, keeping one file: the first expires, its deletion announced by the seal
    sink.close();
    assertFalse(Files.exists(first));
    // Back to what a kill leaves between moving the expiring file aside and moving its digest: the live file
    // staged, the new live file not yet made.
    String stamp = "1764000000000";
    Path second = dir.resolve("audit.log.2026-11-24.2");
    Path staged = TrailNames.staged(audit, stamp);
    Files.delete(audit);
    Files.delete(TrailNames.digest(audit));
    Files.move(second, staged);
    Files.move(TrailNames.digest(second), TrailNames.digest(staged));
    Files.move(keptFile, dir.resolve("audit.log.2026-11-24.1.expired-" + stamp));
    Files.move(keptDigest, TrailNames.digest(first));
    Verification.Run before = Verification.withCert(ec, dir.toString());
    assertTrue(before.code != 1, before.toString());
    RollingFileSink next = new RollingFileSink(context("dated", "daily", "1k", 1, clock));
    record(next, clock, "2026-11-24T21:00:00Z", "b0");
    next.close();
    TreeSet<String> names = auditNames();
    assertFalse(names.contains("audit.log.2026-11-24.1") || names.contains("audit.log.2026-11-24.1.seals"),
        "the expired file and its digest are gone, and the name is not given again: " + names);
    assertEquals(List.of("a11", "a12", "a13", "a14", "a15", "a16", "a17", "a18", "a19", "a20", "a21"),
        tags("audit.log.2026-11-24.2"));
    Verification.Run after = Verification.withCert(ec, "--accept-late", dir.toString());
    assertEquals(0, after.code, after.toString());
  }

  @Test
  void aHalfDoneRotationInAnotherZoneIsReadAsTheNewestFile() throws Exception {
    MovableClock clock = new MovableClock("2026-11-24T20:00:00Z");
    audit = dir.resolve("audit.log");
    RollingFileSink sink = new RollingFileSink(context("dated", "daily", "256m", 20, clock, "Asia/Tokyo"));
    record(sink, clock, "2026-11-24T20:00:00Z", "a0"); // 05:00 on the 25th in Tokyo
    record(sink, clock, "2026-11-25T16:00:00Z", "b0"); // 01:00 on the 26th: the 25th's file closes
    sink.close();
    assertTrue(Files.exists(dir.resolve("audit.log.2026-11-25.1")), auditNames().toString());
    Files.setLastModifiedTime(audit, FileTime.from(Instant.parse("2026-11-25T16:00:00Z"))); // the 25th in UTC
    Path staged = TrailNames.staged(audit, "1764090000000");
    Files.move(audit, staged);
    Files.move(TrailNames.digest(audit), TrailNames.digest(staged));
    Verification.Run half = Verification.withCert(ec, audit.toString());
    assertTrue(half.code != 1, "read in UTC its date is the 25th, before the file of the 25th: " + half);
  }

  @Test
  void aClockThatGoesBackDoesNotNameAFileBeforeTheNewest() throws Exception {
    MovableClock clock = new MovableClock("2026-11-25T08:00:00Z");
    RollingFileSink sink = new RollingFileSink(context("dated", "daily", "1k", 20, clock));
    record(sink, clock, "2026-11-25T08:00:00Z", "a0");
    record(sink, clock, "2026-11-26T08:00:00Z", "b0"); // the 25th closes
    for (int i = 0; i < 11; i++) { // the clock stepped back a day: 1100 bytes, rotated by size
      record(sink, clock, "2026-11-25T09:00:00Z", "c" + i);
    }
    record(sink, clock, "2026-11-25T09:00:01Z", "d0");
    sink.close();
    TreeSet<String> names = auditNames();
    assertTrue(names.contains("audit.log.2026-11-25.2"), "continues the newest period: " + names);
    assertEquals(List.of("b0", "c0", "c1", "c2", "c3", "c4", "c5", "c6", "c7", "c8", "c9"),
        tags("audit.log.2026-11-25.2"));
    assertEquals(VerifyReport.VERIFIED, Verification.report(ec.checkingKey(), audit).exitCode());
  }

  @Test
  void aTrailVerifiesAcrossAChangeOfNamesEitherWay() throws Exception {
    Path top = dir;
    for (String[] schemes : new String[][] {{"dated", "numbered"}, {"numbered", "dated"}}) {
      dir = top.resolve(schemes[0] + "-then-" + schemes[1]);
      Files.createDirectories(dir);
      MovableClock clock = new MovableClock("2026-11-20T08:00:00Z");
      for (int phase = 0; phase < 2; phase++) {
        RollingFileSink sink = new RollingFileSink(context(schemes[phase], "daily", "256m", 50, clock));
        for (int d = 0; d < 3; d++) {
          record(sink, clock, String.format("2026-11-%02dT08:00:00Z", 20 + phase * 3 + d), "p" + phase + "d" + d);
        }
        sink.close();
        Verification.Run r = Verification.withCert(ec, dir.toString());
        assertEquals(0, r.code, "after " + schemes[phase] + ": " + auditNames() + "\n" + r);
      }
      assertTrue(auditNames().contains("audit.log.1")
          && auditNames().stream().anyMatch(n -> n.startsWith("audit.log.2026-11-2")), auditNames().toString());
    }
  }

  @Test
  void aDateWithDotsRotates() throws Exception {
    MovableClock clock = new MovableClock("2026-11-24T08:00:00Z");
    RollingFileSink sink = new RollingFileSink(context(".%d{yyyy.MM.dd}", "daily", "1k", 20, clock));
    for (int i = 0; i < 12; i++) {
      record(sink, clock, String.format("2026-11-24T%02d:00:00Z", 8 + i), "a" + i);
    }
    record(sink, clock, "2026-11-25T08:00:00Z", "b0");
    sink.close();
    assertEquals(0, sink.rotationFailures());
    assertTrue(auditNames().containsAll(List.of("audit.log.2026.11.24", "audit.log.2026.11.24.2")),
        auditNames().toString());
    Verification.Run r = Verification.withCert(ec, "--names", ".%d{yyyy.MM.dd}", dir.toString());
    assertEquals(0, r.code, r.toString());
  }

  /** Replaces {@code plain} by {@code plain.gz} of its bytes, or {@code gz} by a gzip of {@code content}. */
  private static void gzip(Path p, byte[] content) throws Exception {
    boolean isGz = p.getFileName().toString().endsWith(".gz");
    byte[] bytes = content != null ? content : Files.readAllBytes(p);
    Path gz = isGz ? p : p.resolveSibling(p.getFileName() + ".gz");
    try (java.io.OutputStream out = new java.util.zip.GZIPOutputStream(Files.newOutputStream(gz))) {
      out.write(bytes);
    }
    if (!isGz) {
      Files.delete(p);
    }
  }

  private void swap(String a, String b) throws Exception {
    Path tmp = dir.resolve("swap.tmp");
    Files.move(dir.resolve(a), tmp);
    Files.move(dir.resolve(b), dir.resolve(a));
    Files.move(tmp, dir.resolve(b), StandardCopyOption.ATOMIC_MOVE);
  }
}
