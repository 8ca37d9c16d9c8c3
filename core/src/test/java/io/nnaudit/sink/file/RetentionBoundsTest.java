package io.nnaudit.sink.file;

import static io.nnaudit.sink.SinkFixtures.write;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.FileTime;
import java.time.Instant;
import java.util.List;

import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import io.nnaudit.TestFiles;
import io.nnaudit.config.NnauditConfigKeys;
import io.nnaudit.seal.SealKeyFixture;
import io.nnaudit.seal.SealKeys;
import io.nnaudit.settings.NnauditSettings;
import io.nnaudit.ship.SpoolGuard;
import io.nnaudit.sink.MovableClock;
import io.nnaudit.sink.SinkContext;
import io.nnaudit.verify.Verification;
import io.nnaudit.verify.VerifyReport;

/**
 * Retention by age and by total size on real rotated files, alone and with the count: the oldest files past
 * any bound go at a rotation, the rest stay; a shipper's unfinished files stay past every bound; a sealed trail
 * thinned by age still verifies.
 */
class RetentionBoundsTest {
  @RegisterExtension
  static final SealKeyFixture ec = new SealKeyFixture();

  @TempDir
  Path dir;

  private Path audit;

  private SinkContext context(String maxAge, String maxTotal, int backups, boolean sealed, MovableClock clock)
      throws Exception {
    audit = dir.resolve("audit.log");
    Configuration c = new Configuration(false);
    c.set(NnauditConfigKeys.FILE_PATH_KEY, audit.toString());
    c.set(NnauditConfigKeys.FILE_ROTATE_PERIOD_KEY, "daily");
    c.set(NnauditConfigKeys.FILE_MAX_AGE_KEY, maxAge);
    c.set(NnauditConfigKeys.FILE_MAX_TOTAL_SIZE_KEY, maxTotal);
    c.setInt(NnauditConfigKeys.FILE_MAX_BACKUPS_KEY, backups);
    if (sealed) {
      SealKeys.enable(c, ec, dir);
    }
    return NnauditSettings.fromConf(c).sinkContext().withWallClock(clock);
  }

  private Path backup(int i) {
    return audit.resolveSibling(audit.getFileName() + "." + i);
  }

  /** One day's record (100 bytes with its newline), written at noon of day {@code day} of November 2026. */
  private static void day(RollingFileSink sink, MovableClock clock, int day) throws Exception {
    clock.set(String.format("2026-11-%02dT12:00:00Z", day));
    write(sink, String.format("day %02d %s\n", day, "x".repeat(92)));
  }

  /** Gives each file the last-modified time of noon on the day its record names. */
  private void stampFiles() throws Exception {
    List<Path> files;
    try (java.util.stream.Stream<Path> all = Files.list(dir)) {
      files = all.collect(java.util.stream.Collectors.toList());
    }
    for (Path p : files) {
      String name = p.getFileName().toString();
      if (name.startsWith("audit.log") && !name.contains(".seals") && Files.size(p) > 0) {
        String first = TestFiles.lines(p.toFile()).get(0);
        Files.setLastModifiedTime(p, FileTime.from(Instant.parse("2026-11-" + first.substring(4, 6) + "T12:00:00Z")));
      }
    }
  }

  @Test
  void filesOlderThanTheAgeGoAtARotation() throws Exception {
    MovableClock clock = new MovableClock("2026-11-01T00:00:00Z");
    RollingFileSink sink = new RollingFileSink(context("3d", "0", 20, false, clock));
    for (int d = 1; d <= 9; d++) {
      day(sink, clock, d);
      stampFiles();
    }
    sink.close();
    // At the rotation on day 9, day 8 became file.1; days 7, 6 (written 2 and 3 days before noon) are kept.
    assertEquals(List.of("day 06"), firstWords(backup(3)));
    assertEquals(List.of("day 07"), firstWords(backup(2)));
    assertEquals(List.of("day 08"), firstWords(backup(1)));
    assertFalse(Files.exists(backup(4)), "day 5, older than 3 days at the rotation, is gone");
  }

  @Test
  void theOldestFilesGoPastTheTotalSize() throws Exception {
    MovableClock clock = new MovableClock("2026-11-01T00:00:00Z");
    RollingFileSink sink = new RollingFileSink(context("0", "350", 20, false, clock));
    for (int d = 1; d <= 9; d++) {
      day(sink, clock, d);
    }
    sink.close();
    // 100 bytes a file: three rotated files fit in 350 bytes.
    assertEquals(List.of("day 06"), firstWords(backup(3)));
    assertFalse(Files.exists(backup(4)));
    assertEquals(List.of("day 09"), firstWords(audit), "the live file is not counted");
  }

  @Test
  void theTightestBoundWins() throws Exception {
    MovableClock clock = new MovableClock("2026-11-01T00:00:00Z");
    RollingFileSink sink = new RollingFileSink(context("30d", "10m", 2, false, clock));
    for (int d = 1; d <= 9; d++) {
      day(sink, clock, d);
    }
    sink.close();
    assertTrue(Files.exists(backup(2)));
    assertFalse(Files.exists(backup(3)), "the count, 2, is tighter than 30 days and 10 MB");
  }

  @Test
  void aShippersUnfinishedFilesStayPastEveryBound() throws Exception {
    MovableClock clock = new MovableClock("2026-11-01T00:00:00Z");
    SpoolGuard guard = new SpoolGuard(10);
    RollingFileSink sink = new RollingFileSink(context("1d", "150", 20, false, clock).withSpoolGuard(guard));
    for (int d = 1; d <= 4; d++) {
      day(sink, clock, d);
      stampFiles();
    }
    // The shipper is still in day 1's file (file.3).
    guard.holdFrom(String.valueOf(Files.readAttributes(backup(3), BasicFileAttributes.class,
        LinkOption.NOFOLLOW_LINKS).fileKey()), 10);
    day(sink, clock, 5);
    assertEquals(List.of("day 01"), firstWords(backup(4)), "unshipped: kept though a day too old and past 150 B");
    assertEquals(0, guard.lostFiles());
    guard.holdFrom(String.valueOf(Files.readAttributes(audit, BasicFileAttributes.class,
        LinkOption.NOFOLLOW_LINKS).fileKey()), 0);
    day(sink, clock, 6);
    stampFiles();
    sink.close();
    assertEquals(List.of("day 05"), firstWords(backup(1)));
    assertFalse(Files.exists(backup(2)), "shipped: the bounds apply again (150 B keeps one file)");
    assertEquals(0, guard.lostFiles());
  }

  @Test
  void aSealedTrailThinnedByAgeVerifies() throws Exception {
    MovableClock clock = new MovableClock("2026-11-01T00:00:00Z");
    RollingFileSink sink = new RollingFileSink(context("2d", "0", 20, true, clock));
    for (int d = 1; d <= 7; d++) {
      day(sink, clock, d);
      stampFiles();
    }
    sink.close();
    assertFalse(Files.exists(backup(3)));
    VerifyReport r = Verification.report(ec.checkingKey(), audit);
    assertEquals(VerifyReport.VERIFIED, r.exitCode(), r.toString());
  }

  private static List<String> firstWords(Path p) throws Exception {
    return TestFiles.lines(p.toFile()).stream().map(l -> l.substring(0, 6)).collect(java.util.stream.Collectors.toList());
  }
}
